import { once } from 'node:events';
import { AddressInfo, createConnection } from 'node:net';
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ErrorRenderer, renderMessageBody } from '@dmrv/errors';
import { LoggingModule } from '@dmrv/logging';
import { createHttpApp, installGracefulShutdown } from './create-http-app';
import { FRAMEWORK_ERROR_MESSAGES } from './framework-errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let releaseSlow: () => void = () => undefined;
let slowStarted: () => void = () => undefined;

@Controller()
class PlainController {
  @Get('ok')
  ok(): { ok: true } {
    return { ok: true };
  }

  @Post('session')
  session(@Body() body: unknown): unknown {
    return body;
  }

  @Get('slow')
  async slow(): Promise<{ done: true }> {
    await new Promise<void>((resolve) => {
      releaseSlow = resolve;
      slowStarted();
    });
    return { done: true };
  }
}

@Module({
  imports: [LoggingModule.forRoot({ service: 'framework-errors', level: 'silent', pretty: false })],
  controllers: [PlainController],
})
class PlainModule {}

// Like the USSD gateway's: one route answers text its client shows to a person, the rest `{ message }`.
const routeAwareRenderer: ErrorRenderer = (error, request) =>
  request.method === 'POST' && request.url === '/session'
    ? { status: 200, body: `END refused (${error.status})`, contentType: 'text/plain; charset=utf-8' }
    : renderMessageBody(error, request);

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) };
}

/** Writes raw bytes to the server and reads everything it answers until it closes the connection. */
async function exchange(port: number, request: string): Promise<string> {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  await once(socket, 'connect');
  socket.write(request);
  await once(socket, 'close');
  return received;
}

describe('errors Fastify and Node answer before any route, in the app error shape', () => {
  let app: NestFastifyApplication;
  let port: number;

  beforeAll(async () => {
    app = await createHttpApp(PlainModule, { trustProxy: false, errorRenderer: routeAwareRenderer });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
  });

  afterAll(async () => {
    await app.close();
  });

  it.each(['/%', '/ok%zz', '/%E0%A4%A?x=1'])(
    'a path that is not valid percent-encoding (%s): 400 { message } with the request id',
    async (url) => {
      const response = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'bad-url-1' } });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['x-request-id']).toBe('bad-url-1');
      expect(response.json()).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.badUrl });
    },
  );

  it('headers over the limit: 431 { message } with a fresh request id, the connection closed', async () => {
    const response = parseResponse(
      await exchange(port, `GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    expect(response.status).toBe(431);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(JSON.parse(response.body)).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.headersTooLarge });
  });

  it('a request line over the limit is 431 too (Node has no 414)', async () => {
    const response = parseResponse(
      await exchange(port, `GET /ok?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.headersTooLarge });
  });

  it('a route whose errors are text gets its text even when the request never reached it', async () => {
    const response = parseResponse(
      await exchange(
        port,
        `POST /session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n{}`,
      ),
    );
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('END refused (431)');
  });

  it.each([
    ['a header line without a colon', 'GET /ok HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
    ['a relative request target', 'GET ok HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a control character in the URL', 'GET /ok?x=\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
    [
      'Content-Length and chunked together',
      'GET /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n',
    ],
  ])('bytes that are not HTTP (%s): 400 { message }', async (_label, request) => {
    const response = parseResponse(await exchange(port, request));
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(JSON.parse(response.body)).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.malformed });
  });

  it('HTTP/1.1 without Host: 400 { message } (Node answered with an empty body)', async () => {
    const response = parseResponse(
      await exchange(port, 'GET /ok HTTP/1.1\r\nx-request-id: no-host-1\r\nConnection: close\r\n\r\n'),
    );
    expect(response.status).toBe(400);
    expect(response.headers['x-request-id']).toBe('no-host-1');
    expect(JSON.parse(response.body)).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.missingHost });
  });

  it('an Expect other than 100-continue: 417 { message } (Node answered with an empty body)', async () => {
    const response = parseResponse(
      await exchange(port, 'GET /ok HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nx-request-id: expect-1\r\n\r\n'),
    );
    expect(response.status).toBe(417);
    expect(response.headers['x-request-id']).toBe('expect-1');
    expect(JSON.parse(response.body)).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.expectation });
  });
});

describe('a request that arrives while the server drains', () => {
  it('gets the app 503 in its error shape, not Fastify own', async () => {
    const app = await createHttpApp(PlainModule, { trustProxy: false });
    let closingStarted: () => void = () => undefined;
    const closing = new Promise<void>((resolve) => (closingStarted = resolve));
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('preClose', (done) => {
        closingStarted();
        done();
      });
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const exited = new Promise<number>((resolve) => {
      const uninstall = installGracefulShutdown(app, {
        graceMs: 5000,
        exit: (code) => {
          uninstall();
          resolve(code);
        },
      });
    });

    // One kept-alive connection: the slow request is in flight when the drain starts, the second one follows it.
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    await once(socket, 'connect');
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await started;
    process.emit('SIGTERM', 'SIGTERM');
    await closing;
    socket.write('GET /ok HTTP/1.1\r\nHost: x\r\nx-request-id: late-1\r\n\r\n');
    releaseSlow();
    await once(socket, 'close');
    await expect(exited).resolves.toBe(0);

    const second = received.indexOf('HTTP/1.1', 1);
    const first = parseResponse(received.slice(0, second));
    const late = parseResponse(received.slice(second));
    expect(first.status).toBe(200);
    expect(late.status).toBe(503);
    expect(late.headers['x-request-id']).toBe('late-1');
    expect(late.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(late.body)).toEqual({ message: 'Internal server error' });
  });
});
