import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetworkError, TimeoutError } from './errors';
import { createResilientFetch } from './resilient-fetch';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A real HTTP server that answers each request with the next handler of its script (the last one repeats). */
class ScriptedServer {
  readonly seen: string[] = [];
  private readonly server: Server;
  private script: Handler[] = [];

  constructor() {
    this.server = createServer((request, response) => {
      this.seen.push(`${request.method} ${request.url}`);
      const handler = this.script.length > 1 ? this.script.shift()! : this.script[0]!;
      handler(request, response);
    });
  }

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  answer(...script: Handler[]): void {
    this.script = script;
    this.seen.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

const status =
  (code: number, headers: Record<string, string> = {}, body = `{"status":${code}}`): Handler =>
  (_request, response) => {
    response.writeHead(code, { 'content-type': 'application/json', ...headers }).end(body);
  };

describe('createResilientFetch against a real HTTP server', () => {
  const server = new ScriptedServer();
  let base: string;
  const fastRetry = { minDelayMs: 1, maxDelayMs: 1_000 };

  beforeAll(async () => {
    base = await server.start();
  });
  afterAll(() => server.stop());

  it('a 503 with Retry-After in seconds, then a 200: one call, the 200', async () => {
    server.answer(status(503, { 'retry-after': '0' }), status(200, {}, '{"ok":true}'));
    const response = await createResilientFetch()(new Request(`${base}/a`));
    expect({ status: response.status, body: await response.json(), seen: server.seen }).toEqual({
      status: 200,
      body: { ok: true },
      seen: ['GET /a', 'GET /a'],
    });
  });

  it('a 429 with Retry-After as an HTTP date (already past), then a 200', async () => {
    server.answer(status(429, { 'retry-after': new Date(Date.now() - 1_000).toUTCString() }), status(200));
    const response = await createResilientFetch()(new Request(`${base}/b`));
    expect([response.status, server.seen.length]).toEqual([200, 2]);
  });

  it('gives up after `retries` more attempts and resolves to the last answer', async () => {
    server.answer(status(503));
    const response = await createResilientFetch({ retry: { ...fastRetry, retries: 2 } })(
      new Request(`${base}/c`),
    );
    expect([response.status, await response.json(), server.seen.length]).toEqual([503, { status: 503 }, 3]);
  });

  it('does not wait for a Retry-After beyond maxDelayMs, nor past maxElapsedMs, nor with retry: false', async () => {
    server.answer(status(503, { 'retry-after': '120' }));
    expect((await createResilientFetch()(new Request(`${base}/d`))).status).toBe(503);
    expect(server.seen.length).toBe(1);

    server.answer(status(503));
    const bounded = createResilientFetch({
      retry: { retries: 5, minDelayMs: 2_000, maxElapsedMs: 500 },
      random: () => 1,
    });
    expect((await bounded(new Request(`${base}/e`))).status).toBe(503);
    expect(server.seen.length).toBe(1);

    server.answer(status(503, { 'retry-after': '0' }));
    expect((await createResilientFetch({ retry: false })(new Request(`${base}/f`))).status).toBe(503);
    expect(server.seen.length).toBe(1);
  });

  it('retries only idempotent requests: a POST answered 503 is not sent twice', async () => {
    server.answer(status(503, { 'retry-after': '0' }), status(200));
    const response = await createResilientFetch()(new Request(`${base}/g`, { method: 'POST', body: 'x' }));
    expect([response.status, server.seen]).toEqual([503, ['POST /g']]);
  });

  it('an answer cut halfway through its body is a network error, retried like one', async () => {
    server.answer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"partial":');
        setImmediate(() => response.socket?.destroy());
      },
      status(200, {}, '{"whole":true}'),
    );
    const response = await createResilientFetch({ retry: fastRetry })(new Request(`${base}/h`));
    expect([await response.json(), server.seen.length]).toEqual([{ whole: true }, 2]);
  });

  it('a refused connection is a NetworkError naming the cause, after the retries', async () => {
    const closed = new ScriptedServer();
    const address = await closed.start();
    await closed.stop();
    const failure = await createResilientFetch({ retry: { ...fastRetry, retries: 1 } })(
      new Request(`${address}/i`),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NetworkError);
    expect((failure as NetworkError).message).toBe(
      `GET ${address}/i: no answer from the server (fetch failed: ECONNREFUSED)`,
    );
  });

  it('an attempt past its timeout is a TimeoutError, not retried, and the request is abandoned', async () => {
    const abandoned = new Promise<void>((resolve) =>
      server.answer((request) => request.socket.once('close', () => resolve())),
    );
    const failure = await createResilientFetch({ timeoutMs: 100 })(new Request(`${base}/j`)).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TimeoutError);
    expect(failure).toMatchObject({
      timeoutMs: 100,
      message: `GET ${base}/j: no complete answer within 100 ms`,
    });
    await abandoned;
    expect(server.seen).toEqual(['GET /j']);
  });

  it("the caller's abort ends the call while it waits to retry, with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    server.answer((request, response) => {
      status(503, { 'retry-after': '25' })(request, response);
      response.once('finish', () => controller.abort(reason));
    });
    const slowRetry = createResilientFetch({ retry: { maxDelayMs: 60_000, maxElapsedMs: 60_000 } });
    await expect(slowRetry(new Request(`${base}/k`, { signal: controller.signal }))).rejects.toBe(reason);
    expect(server.seen).toEqual(['GET /k']);
  });

  it('a signal aborted before the call sends nothing', async () => {
    server.answer(status(200));
    const reason = new Error('already stopped');
    await expect(
      createResilientFetch()(new Request(`${base}/l`, { signal: AbortSignal.abort(reason) })),
    ).rejects.toBe(reason);
    expect(server.seen).toEqual([]);
  });
});
