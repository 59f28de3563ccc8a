import { Body, Controller, Get, Module, Post, Query, Req } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsInt, IsString, Max } from 'class-validator';
import { Type } from 'class-transformer';
import { AddressInfo } from 'node:net';
import { InvalidInputError, NotFoundError, UnauthenticatedError } from '@dmrv/errors';
import { LoggingModule, PinoLogger } from '@dmrv/logging';
import type { FastifyRequest } from 'fastify';
import { createHttpApp, installGracefulShutdown, setAccessLogClientId } from './create-http-app';
import { strictValidationPipe } from './validation';

class PageQuery {
  @Type(() => Number)
  @IsInt()
  @Max(500)
  limit!: number;
}

class EchoBody {
  @IsString()
  text!: string;
}

let releaseSlow: () => void = () => undefined;
let slowStarted: () => void = () => undefined;

@Controller()
class SampleController {
  @Get('page')
  page(@Query(strictValidationPipe()) query: PageQuery): { limit: number } {
    return { limit: query.limit };
  }

  @Get('missing')
  missing(): never {
    throw new NotFoundError('no device matches device_id=dev-9');
  }

  @Get('secret')
  secret(): never {
    throw new UnauthenticatedError('Invalid credentials', 'Basic realm="sample"');
  }

  @Get('invalid')
  invalid(): never {
    throw new InvalidInputError('time_period must look like 2024-Q1');
  }

  @Get('crash')
  crash(): never {
    throw new Error('connection to 10.1.2.3 refused: password=hunter2');
  }

  @Post('echo')
  echo(@Body(strictValidationPipe()) body: EchoBody): { text: string } {
    return { text: body.text };
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
  imports: [LoggingModule.forRoot({ service: 'sample', level: 'silent', pretty: false })],
  controllers: [SampleController],
})
class SampleModule {}

describe('createHttpApp pipeline', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await createHttpApp(SampleModule, { trustProxy: false, formBodies: true });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers an unknown route with 404 in the error shape and echoes the caller request id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/nope',
      headers: { 'x-request-id': 'probe-42' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers['x-request-id']).toBe('probe-42');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ message: 'Cannot GET /nope' });
  });

  it('generates a request id when the caller sends none or an unsafe one', async () => {
    const none = await app.inject({ method: 'GET', url: '/page?limit=5' });
    const unsafe = await app.inject({
      method: 'GET',
      url: '/page?limit=5',
      headers: { 'x-request-id': 'a b' },
    });
    expect(none.statusCode).toBe(200);
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(none.headers['x-request-id']).not.toBe(unsafe.headers['x-request-id']);
  });

  it('renders a domain 404 as { message }', async () => {
    const response = await app.inject({ method: 'GET', url: '/missing' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ message: 'no device matches device_id=dev-9' });
  });

  it('sends WWW-Authenticate with a 401', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/secret',
      headers: { 'x-request-id': 'r-401' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Basic realm="sample"');
    expect(response.headers['x-request-id']).toBe('r-401');
    expect(response.json()).toEqual({ message: 'Invalid credentials' });
  });

  it('renders a domain 400 as { message }', async () => {
    const response = await app.inject({ method: 'GET', url: '/invalid' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ message: 'time_period must look like 2024-Q1' });
  });

  it('names unknown and malformed query parameters in one message string', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/page?limit=5&colour=red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({ message: 'property colour should not exist' });
    const tooBig = await app.inject({ method: 'GET', url: '/page?limit=501' });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json()).toEqual({ message: 'limit must not be greater than 500' });
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'refuses ?%s like any other unknown parameter (names of Object.prototype are not dropped silently)',
    async (key) => {
      const response = await app.inject({ method: 'GET', url: `/page?limit=5&${key}=x` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ message: `property ${key} should not exist` });
    },
  );

  it('hides internal errors behind an opaque 500 that still carries the request id', async () => {
    const response = await app.inject({ method: 'GET', url: '/crash', headers: { 'x-request-id': 'r-500' } });
    expect(response.statusCode).toBe(500);
    expect(response.headers['x-request-id']).toBe('r-500');
    expect(response.json()).toEqual({ message: 'Internal server error' });
    expect(response.body).not.toContain('hunter2');
  });

  it('rejects malformed JSON with 400 in the error shape', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"text": ',
    });
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json())).toEqual(['message']);
  });

  it('accepts form-encoded bodies when enabled', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'text=1*2',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ text: '1*2' });
  });
});

describe('graceful shutdown', () => {
  it('lets an in-flight request finish, then exits 0', async () => {
    const app = await createHttpApp(SampleModule, { trustProxy: false });
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
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const inFlight = fetch(`http://127.0.0.1:${port}/slow`);
    await started;

    process.emit('SIGTERM', 'SIGTERM');
    releaseSlow();

    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ done: true });
    await expect(exited).resolves.toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/page?limit=1`)).rejects.toThrow();
  });
});

describe('createHttpApp without form bodies', () => {
  it('answers a form-encoded body with 415 in the error shape', async () => {
    const app = await createHttpApp(SampleModule, { trustProxy: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'text=1',
    });
    await app.close();
    expect(response.statusCode).toBe(415);
    expect(Object.keys(response.json())).toEqual(['message']);
  });
});

@Controller('logged')
class LoggingController {
  constructor(private readonly logger: PinoLogger) {}

  @Post()
  async post(@Body(strictValidationPipe()) body: EchoBody): Promise<{ ok: true }> {
    this.logger.info({ length: body.text.length }, 'handler before await');
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.logger.info('handler after await');
    return { ok: true };
  }

  @Get()
  get(): { ok: true } {
    this.logger.info('handler get');
    return { ok: true };
  }
}

@Controller()
class IdentifyingController {
  @Get('identified')
  identified(@Req() request: FastifyRequest): { ok: true } {
    // What an authentication guard does once it has verified the credentials: the id, never the secret.
    setAccessLogClientId(request, 'rc_client');
    return { ok: true };
  }

  @Get('anonymous')
  anonymous(): { ok: true } {
    return { ok: true };
  }
}

async function loggedApp(
  quietPaths?: string[],
): Promise<{ app: NestFastifyApplication; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  };
  @Module({
    imports: [
      LoggingModule.forRoot({ service: 'log-sample', level: 'info', pretty: false, destination, quietPaths }),
    ],
    controllers: [SampleController, LoggingController],
  })
  class LoggedModule {}
  const app = await createHttpApp(LoggedModule, { trustProxy: false, formBodies: true });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, lines };
}

describe('structured request logs', () => {
  it('binds the request id to every line the handler logs, before and after an await, for GET, JSON and form POST', async () => {
    const { app, lines } = await loggedApp();
    await app.inject({
      method: 'POST',
      url: '/logged',
      headers: { 'x-request-id': 'post-1' },
      payload: { text: 'abc' },
    });
    await app.inject({ method: 'GET', url: '/logged', headers: { 'x-request-id': 'get-1' } });
    await app.inject({
      method: 'POST',
      url: '/logged',
      headers: { 'x-request-id': 'form-1', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'text=abcd',
    });
    await app.close();

    const handlerLines = lines
      .filter((line) => typeof line.msg === 'string' && line.msg.startsWith('handler'))
      .map((line) => [line.msg, line.requestId]);
    expect(handlerLines).toEqual([
      ['handler before await', 'post-1'],
      ['handler after await', 'post-1'],
      ['handler get', 'get-1'],
      ['handler before await', 'form-1'],
      ['handler after await', 'form-1'],
    ]);
    expect(
      lines.find((line) => line.requestId === 'form-1' && line.msg === 'handler before await'),
    ).toMatchObject({
      length: 4,
    });
    expect(lines.filter((line) => line.msg === 'request completed').map((line) => line.requestId)).toEqual([
      'post-1',
      'get-1',
      'form-1',
    ]);
  });

  it('writes one access line per request with status and latency, at error level for a 5xx, none for quiet paths', async () => {
    const { app, lines } = await loggedApp(['/page']);
    await app.inject({ method: 'GET', url: '/missing?device_id=dev-9', headers: { 'x-request-id': 'nf-1' } });
    await app.inject({ method: 'GET', url: '/crash', headers: { 'x-request-id': 'crash-1' } });
    await app.inject({ method: 'GET', url: '/page?limit=1', headers: { 'x-request-id': 'quiet-1' } });
    await app.close();

    const access = lines.filter((line) => line.msg === 'request completed' || line.msg === 'request errored');
    expect(access).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        requestId: 'nf-1',
        req: { method: 'GET', path: '/missing', client: '127.0.0.1', userAgent: 'lightMyRequest' },
        res: { statusCode: 404 },
        responseTime: expect.any(Number) as unknown,
      }),
      expect.objectContaining({
        level: 50,
        msg: 'request errored',
        requestId: 'crash-1',
        res: { statusCode: 500 },
      }),
    ]);
    // The cause of the 500 is logged once, under the same request id, and never reaches the client.
    expect(lines.find((line) => line.level === 50 && line.msg !== 'request errored')).toMatchObject({
      requestId: 'crash-1',
    });
  });

  it('never writes a query string: a PIN or an operator token in it stays out of every line', async () => {
    const { app, lines } = await loggedApp();
    await app.inject({ method: 'GET', url: '/logged?text=1*2*54321&token=op-s3cret-token-0000' });
    await app.inject({ method: 'GET', url: '/crash?pin=54321' });
    await app.inject({ method: 'GET', url: '/%?pin=54321' });
    await app.close();
    const access = lines.filter((line) => line.msg === 'request completed' || line.msg === 'request errored');
    expect(access.map((line) => (line.req as { path: string }).path)).toEqual(['/logged', '/crash', '/%']);
    expect(JSON.stringify(lines)).not.toMatch(/54321|op-s3cret|text=|pin=/);
    // The 500's own line (written by the exception filter) names the path too.
    expect(lines.map((line) => line.msg)).toContain('GET /crash failed');
  });

  it('writes the client address as the trust-proxy settings resolve it, and the client id the app names', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    };
    @Module({
      imports: [LoggingModule.forRoot({ service: 'log-sample', level: 'info', pretty: false, destination })],
      controllers: [IdentifyingController],
    })
    class IdentifyingModule {}
    const app = await createHttpApp(IdentifyingModule, { trustProxy: 1 });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    // One proxy in front: its own X-Forwarded-For entry (the right-most) is the client; the left one is client-written.
    await app.inject({
      method: 'GET',
      url: '/identified',
      headers: { 'x-forwarded-for': '198.51.100.9, 203.0.113.7', authorization: 'Bearer rc_client.s3cret' },
    });
    await app.inject({ method: 'GET', url: '/anonymous' });
    await app.close();
    const access = lines.filter((line) => line.msg === 'request completed').map((line) => line.req);
    expect(access).toEqual([
      {
        method: 'GET',
        path: '/identified',
        client: '203.0.113.7',
        clientId: 'rc_client',
        userAgent: 'lightMyRequest',
      },
      { method: 'GET', path: '/anonymous', client: '127.0.0.1', userAgent: 'lightMyRequest' },
    ]);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('writes JSON lines carrying the request id and never the credentials or the USSD text', async () => {
    const lines: Record<string, unknown>[] = [];
    const destination = {
      write: (line: string) => {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    };
    @Module({
      imports: [LoggingModule.forRoot({ service: 'log-sample', level: 'info', pretty: false, destination })],
      controllers: [SampleController],
    })
    class LoggedModule {}

    const app = await createHttpApp(LoggedModule, { trustProxy: false });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'x-request-id': 'trace-me-7', authorization: 'Basic c2VjcmV0OnNlY3JldA==' },
      payload: { text: '1*2*12345' },
    });
    await app.close();

    const completed = lines.find((line) => line.msg === 'request completed');
    expect(completed).toMatchObject({
      service: 'log-sample',
      requestId: 'trace-me-7',
      req: { method: 'POST', path: '/echo' },
      res: { statusCode: 201 },
    });
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('c2VjcmV0OnNlY3JldA==');
    expect(everything).not.toContain('12345');
  });
});
