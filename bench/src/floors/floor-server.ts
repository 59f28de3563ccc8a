import type { AddressInfo } from 'node:net';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

export type FloorHandler = (
  request: IncomingMessage,
  body: string,
  response: ServerResponse,
) => Promise<void>;

/** What the framework reference (bench/src/reference) and its floor both answer. */
export const CONSTANT_ANSWER = { message: 'the same answer every time' } as const;

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`${name} is required\n`);
    process.exit(2);
  }
  return value;
}

export function sendJson(response: ServerResponse, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

export function sendText(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * A floor is the least work that answers the same request: plain `node:http`, no framework, no logging, no
 * validation beyond what the answer needs. It runs as its own process, like the service it is compared with.
 */
export function serveFloor(name: string, handler: FloorHandler, close: () => Promise<void>): void {
  const port = Number(requireEnv('PORT'));
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      handler(request, Buffer.concat(chunks).toString('utf8'), response).catch((error: unknown) => {
        process.stderr.write(`${name}: ${(error as Error).stack ?? String(error)}\n`);
        if (!response.headersSent) sendJson(response, 500, { message: 'floor failed' });
        else response.destroy();
      });
    });
  });
  server.keepAliveTimeout = 65_000;
  // PORT 0 binds a free port; the line says which one (the bench reads it).
  server.listen(port, '127.0.0.1', () => {
    const { port: bound } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ listening: `127.0.0.1:${bound}`, floor: name })}\n`);
  });
  const shutdown = (): void => {
    server.close();
    server.closeAllConnections();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}
