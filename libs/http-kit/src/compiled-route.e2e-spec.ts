import {
  Body,
  CallHandler,
  CanActivate,
  Controller,
  createParamDecorator,
  ExecutionContext,
  Get,
  Header,
  Headers,
  HttpCode,
  Injectable,
  Module,
  NestInterceptor,
  Param,
  ParseIntPipe,
  Post,
  Query,
  Res,
  SetMetadata,
  Type,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsInt, IsOptional, IsString, Max } from 'class-validator';
import { Type as TransformType } from 'class-transformer';
import type { FastifyReply } from 'fastify';
import { Observable, of } from 'rxjs';
import { NotFoundError, UnauthenticatedError } from '@dmrv/errors';
import { LoggingModule } from '@dmrv/logging';
import { CompiledRoute, CompiledRouteError } from './compiled-route';
import { createHttpApp } from './create-http-app';
import { strictValidationPipe } from './validation';

class LimitQuery {
  @TransformType(() => Number)
  @IsInt()
  @Max(500)
  limit!: number;

  @IsOptional()
  @IsString()
  note?: string;
}

class NoteBody {
  @IsString()
  note!: string;
}

const ROLE = 'sampleRole';

/** A global guard (APP_GUARD), reading the route's metadata the way Nest's guards do, through the Reflector. */
@Injectable()
class RoleGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const role = this.reflector.getAllAndOverride<string | undefined>(ROLE, [
      context.getHandler(),
      context.getClass(),
    ]);
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
    if (role === 'credentials' && request.headers['x-key'] === undefined)
      throw new UnauthenticatedError('Invalid credentials', 'Basic realm="sample"');
    return true;
  }
}

/** A controller-level guard that answers asynchronously, and through an Observable when asked to. */
@Injectable()
class SlowGateGuard implements CanActivate {
  canActivate(context: ExecutionContext): Promise<boolean> | Observable<boolean> {
    const gate = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers[
      'x-gate'
    ];
    if (gate === 'observable') return of(true);
    return new Promise((resolve) => setImmediate(() => resolve(gate !== 'closed')));
  }
}

/**
 * The same routes twice: once compiled (`/c/…`), once through Nest's own pipeline (`/n/…`). Every request below is
 * sent to both and must get the same answer.
 */
function sampleController(prefix: 'c' | 'n'): Type<unknown> {
  const compiled: MethodDecorator = prefix === 'c' ? CompiledRoute() : () => undefined;

  @Controller(prefix)
  @UseGuards(SlowGateGuard)
  @SetMetadata(ROLE, 'open')
  class SampleController {
    @Get('plain')
    @compiled
    plain(): { answer: string } {
      return { answer: 'plain' };
    }

    @Get('accepted')
    @HttpCode(202)
    @Header('cache-control', 'no-store')
    @compiled
    accepted(): { accepted: true } {
      return { accepted: true };
    }

    @Get('limit')
    @compiled
    limit(@Query() query: LimitQuery): LimitQuery {
      return query;
    }

    @Get('items/:id')
    @compiled
    item(
      @Param('id', ParseIntPipe) id: number,
      @Headers('x-thing') thing: string | undefined,
    ): { id: number; thing: string | null } {
      return { id, thing: thing ?? null };
    }

    @Post('notes')
    @compiled
    async note(@Body() body: NoteBody): Promise<{ saved: string }> {
      await new Promise((resolve) => setImmediate(resolve));
      return { saved: body.note };
    }

    @Get('tagged')
    @compiled
    tagged(@Res({ passthrough: true }) reply: FastifyReply): string {
      void reply.header('etag', '"v1"').header('content-type', 'text/plain; charset=utf-8');
      return 'tagged';
    }

    @Get('nothing')
    @compiled
    nothing(): undefined {
      return undefined;
    }

    @Get('missing')
    @compiled
    async missing(): Promise<never> {
      await Promise.resolve();
      throw new NotFoundError('no device matches device_id=dev-9');
    }

    @Get('crash')
    @compiled
    crash(): never {
      throw new Error('connection refused: password=hunter2');
    }

    @Get('private')
    @SetMetadata(ROLE, 'credentials')
    @compiled
    privateRoute(): { secret: false } {
      return { secret: false };
    }

    @Get('stream')
    @compiled
    observable(): Observable<{ from: string }> {
      return of({ from: 'observable' });
    }

    @Get('echo/:word')
    @compiled
    async echo(@Param('word') word: string): Promise<{ word: string }> {
      await new Promise((resolve) => setImmediate(resolve));
      return { word };
    }
  }
  return SampleController;
}

@Module({
  imports: [LoggingModule.forRoot({ service: 'compiled', level: 'silent', pretty: false })],
  controllers: [sampleController('c'), sampleController('n')],
  providers: [SlowGateGuard, { provide: APP_GUARD, useClass: RoleGuard }],
})
class SampleModule {}

async function startApp(module: Type<unknown>): Promise<NestFastifyApplication> {
  const app = await createHttpApp(module, { trustProxy: false });
  app.useGlobalPipes(strictValidationPipe());
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

interface Probe {
  method?: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  payload?: object;
}

const SAME_HEADERS = ['content-type', 'content-length', 'cache-control', 'etag', 'www-authenticate'];

describe('@CompiledRoute(): the same answers as Nest’s own pipeline', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await startApp(SampleModule);
  });

  afterAll(async () => {
    await app.close();
  });

  async function both(
    probe: Probe,
  ): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
    const answers = await Promise.all(
      (['c', 'n'] as const).map(async (prefix) => {
        const response = await app.inject({
          method: probe.method ?? 'GET',
          url: `/${prefix}/${probe.url}`,
          headers: probe.headers,
          payload: probe.payload,
        });
        const headers = Object.fromEntries(SAME_HEADERS.map((name) => [name, response.headers[name]]));
        return {
          status: response.statusCode,
          body: response.body.replaceAll(`/${prefix}/`, '/x/'),
          headers,
          id: response.headers['x-request-id'],
        };
      }),
    );
    const [compiled, nest] = answers;
    expect(compiled!.id).toEqual(expect.any(String));
    expect({ status: compiled!.status, body: compiled!.body, headers: compiled!.headers }).toEqual({
      status: nest!.status,
      body: nest!.body,
      headers: nest!.headers,
    });
    return compiled!;
  }

  it.each<[string, Probe, number, string]>([
    ['a plain object', { url: 'plain' }, 200, '{"answer":"plain"}'],
    ['@HttpCode() and @Header()', { url: 'accepted' }, 202, '{"accepted":true}'],
    [
      'a valid query through the global pipe',
      { url: 'limit?limit=7&note=hi' },
      200,
      '{"limit":7,"note":"hi"}',
    ],
    [
      '@Param() with its own pipe, and @Headers()',
      { url: 'items/42', headers: { 'x-thing': 'lamp' } },
      200,
      '{"id":42,"thing":"lamp"}',
    ],
    [
      'a POST body (201 by default)',
      { method: 'POST', url: 'notes', payload: { note: 'n1' } },
      201,
      '{"saved":"n1"}',
    ],
    ['@Res({ passthrough: true }) setting headers', { url: 'tagged' }, 200, 'tagged'],
    ['a handler returning nothing', { url: 'nothing' }, 200, ''],
    ['an Observable result', { url: 'stream' }, 200, '{"from":"observable"}'],
    [
      'a guard answering through an Observable',
      { url: 'plain', headers: { 'x-gate': 'observable' } },
      200,
      '{"answer":"plain"}',
    ],
    [
      'credentials present for a guarded route',
      { url: 'private', headers: { 'x-key': 'k' } },
      200,
      '{"secret":false}',
    ],
  ])('%s', async (_name, probe, status, body) => {
    const answer = await both(probe);
    expect(answer.status).toBe(status);
    expect(answer.body).toBe(body);
  });

  it.each<[string, Probe, number]>([
    ['an invalid query (400 from the global pipe)', { url: 'limit?limit=900' }, 400],
    ['an unknown query key (400, strict pipe)', { url: 'limit?limit=1&extra=1' }, 400],
    ['an invalid path parameter (400 from ParseIntPipe)', { url: 'items/lamp' }, 400],
    ['an invalid body (400)', { method: 'POST', url: 'notes', payload: { note: 7 } }, 400],
    ['a rejected promise (404 of the app’s errors)', { url: 'missing' }, 404],
    ['a thrown Error (500, nothing of it shown)', { url: 'crash' }, 500],
    ['an asynchronous guard refusing (403)', { url: 'plain', headers: { 'x-gate': 'closed' } }, 403],
    ['a global guard throwing (401 with its challenge)', { url: 'private' }, 401],
  ])('%s', async (_name, probe, status) => {
    const answer = await both(probe);
    expect(answer.status).toBe(status);
    expect(answer.body).not.toContain('hunter2');
  });

  it('answers the exact bodies of the app’s error shape', async () => {
    expect((await both({ url: 'plain', headers: { 'x-gate': 'closed' } })).body).toBe(
      '{"message":"Forbidden resource"}',
    );
    expect((await both({ url: 'missing' })).body).toBe('{"message":"no device matches device_id=dev-9"}');
    expect((await both({ url: 'private' })).headers['www-authenticate']).toBe('Basic realm="sample"');
  });

  it('keeps each request’s own arguments when 200 run at once through async guards and handlers', async () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    const answers = await Promise.all(
      words.map((word) => app.inject({ method: 'GET', url: `/c/echo/${word}` })),
    );
    expect(answers.map((answer) => [answer.statusCode, answer.json<{ word: string }>().word])).toEqual(
      words.map((word) => [200, word]),
    );
  });
});

describe('@CompiledRoute(): what it cannot run stops start-up', () => {
  @Injectable()
  class PassThroughInterceptor implements NestInterceptor {
    intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
      return next.handle();
    }
  }

  const Custom = createParamDecorator(() => 'custom');

  @Controller('intercepted')
  class InterceptedController {
    @Get()
    @UseInterceptors(PassThroughInterceptor)
    @CompiledRoute()
    get(): string {
      return 'x';
    }
  }

  @Controller('raw')
  class RawResponseController {
    @Get()
    @CompiledRoute()
    get(@Res() reply: FastifyReply): void {
      void reply.send('x');
    }
  }

  @Controller('custom')
  class CustomParamController {
    @Get()
    @CompiledRoute()
    get(@Custom() value: string): string {
      return value;
    }
  }

  it.each<[string, Type<unknown>, string]>([
    ['an interceptor', InterceptedController, '@CompiledRoute() GET /intercepted: it has interceptors'],
    [
      '@Res() without passthrough',
      RawResponseController,
      '@CompiledRoute() GET /raw: @Res() without passthrough',
    ],
    [
      'a custom parameter decorator',
      CustomParamController,
      '@CompiledRoute() GET /custom: parameter 0 uses a parameter decorator it does not run',
    ],
  ])('%s', async (_name, controller, message) => {
    @Module({
      imports: [LoggingModule.forRoot({ service: 'compiled', level: 'silent', pretty: false })],
      controllers: [controller],
      providers: [PassThroughInterceptor],
    })
    class RefusedModule {}
    const app = await createHttpApp(RefusedModule, { trustProxy: false });
    const started = app.init();
    await expect(started).rejects.toThrow(CompiledRouteError);
    await expect(started).rejects.toThrow(message);
    await app.close().catch(() => undefined);
  });
});
