import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** Listens on a loopback port and returns the API's base URL there (`http://127.0.0.1:<port>/v1`). */
export async function listening(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/v1`;
}

type Refusal = (response: ServerResponse) => void;

/**
 * An HTTP server in front of a running registry: it answers the next requests with the refusals it is given
 * (a 503 with Retry-After …), one each, and relays every other request to the registry unchanged.
 */
export class FrontServer {
  readonly seen: string[] = [];
  private readonly server: Server;
  private refusals: Refusal[] = [];

  constructor(private readonly upstreamOrigin: string) {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  refuseNext(...refusals: Refusal[]): void {
    this.refusals = refusals;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    this.seen.push(`${request.method} ${request.url}`);
    const refusal = this.refusals.shift();
    if (refusal) {
      refusal(response);
      return;
    }
    const headers = Object.entries(request.headers).flatMap(([name, value]) =>
      name === 'host' || value === undefined ? [] : [[name, String(value)] as [string, string]],
    );
    const answer = await fetch(`${this.upstreamOrigin}${request.url}`, { method: request.method, headers });
    const body = Buffer.from(await answer.arrayBuffer());
    answer.headers.forEach((value, name) => {
      if (!['content-length', 'transfer-encoding', 'content-encoding', 'connection'].includes(name))
        response.setHeader(name, value);
    });
    response.writeHead(answer.status).end(body);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** A 503 the way a busy registry answers: `{ message }` and a Retry-After (seconds, or an HTTP date). */
export function unavailable(retryAfter: string): Refusal {
  return (response) =>
    response
      .writeHead(503, { 'content-type': 'application/json', 'retry-after': retryAfter })
      .end('{"message":"too many authentications in progress; retry later"}');
}

/** A loopback port nothing listens on (fetch refuses the well-known ones, such as 1, outright: "bad port"). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
