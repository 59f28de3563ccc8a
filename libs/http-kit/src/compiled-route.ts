import {
  ArgumentMetadata,
  CanActivate,
  ExceptionFilter,
  ExecutionContext,
  ForbiddenException,
  PipeTransform,
  RequestMethod,
  Type,
} from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyReply, FastifyRequest, RouteHandlerMethod, RouteOptions } from 'fastify';
import { isObservable, lastValueFrom } from 'rxjs';

// Nest's metadata keys (`@nestjs/common/constants`): part of every decorator's stored shape since Nest 5.
// compiled-route.spec.ts holds them equal to the installed Nest's.
export const NEST_METADATA = {
  routeArgs: '__routeArguments__',
  pipes: '__pipes__',
  guards: '__guards__',
  interceptors: '__interceptors__',
  filters: '__exceptionFilters__',
  httpCode: '__httpCode__',
  headers: '__headers__',
  redirect: '__redirect__',
  render: '__renderTemplate__',
  sse: '__sse__',
  passthrough: '__responsePassthrough__',
  method: 'method',
  paramtypes: 'design:paramtypes',
  fastifyRouteConfig: '__fastify_route_config__',
} as const;

// Nest's RouteParamtypes: the parameter decorators a compiled route accepts.
const PARAM = { request: 0, response: 1, body: 3, query: 4, param: 5, headers: 6 } as const;
/** The parameters Nest runs pipes on, and the `type` its pipes see for each. */
const PIPED_PARAM_TYPES: Partial<Record<number, ArgumentMetadata['type']>> = {
  [PARAM.body]: 'body',
  [PARAM.query]: 'query',
  [PARAM.param]: 'param',
};

/** The key, in a Fastify route's `config`, that marks a route to compile (set by `@CompiledRoute()`). */
export const COMPILED_ROUTE = 'dmrvCompiledRoute';

/** The Nest guard's refusal, as Nest words it (`@nestjs/core/guards/constants`). */
export const FORBIDDEN_RESOURCE = 'Forbidden resource';

interface CompiledRouteTarget {
  controller: Type<unknown>;
  methodName: string;
}

/**
 * Marks a controller route whose per-request pipeline is resolved once, at start-up, into one function that calls
 * the route's guards, pipes and method directly: Nest's router otherwise runs four nested `async` layers, its
 * interceptor machinery and a response controller on every request, which cost as much as the rest of a cached
 * registry answer (docs/performance.md, round two). The route stays a Nest route: declared on its controller,
 * registered by Nest's router (prefixes, versions, OpenAPI), its controller and enhancers taken from the DI
 * container, its errors rendered by the app's one exception filter.
 *
 * What it supports, and what makes start-up fail instead of being silently skipped: guards (global, controller,
 * method), pipes (global, controller, method, parameter), `@Req()`, `@Res({ passthrough: true })`, `@Query()`,
 * `@Param()`, `@Headers()`, `@Body()`, `@HttpCode()`, `@Header()`. Interceptors, exception filters other than the
 * app's, custom parameter decorators, `@Res()` without passthrough, `@Redirect()`, `@Render()`, `@Sse()` and
 * request-scoped controllers or enhancers are refused at start-up (`CompiledRouteError`): such a route keeps Nest's
 * own pipeline by not carrying this decorator. Answers go out through Nest's HTTP adapter, as Nest sends them.
 * Requires an app built by `createHttpApp` (which compiles the marked routes as Nest registers them).
 */
export function CompiledRoute(): MethodDecorator {
  return (target, key, descriptor) => {
    const handler = descriptor.value as unknown as object;
    const existing = (Reflect.getMetadata(NEST_METADATA.fastifyRouteConfig, handler) ?? {}) as Record<
      string,
      unknown
    >;
    const mark: CompiledRouteTarget = {
      controller: target.constructor as Type<unknown>,
      methodName: String(key),
    };
    Reflect.defineMetadata(
      NEST_METADATA.fastifyRouteConfig,
      { ...existing, [COMPILED_ROUTE]: mark },
      handler,
    );
    return descriptor;
  };
}

/** A route marked `@CompiledRoute()` uses something the compiled pipeline does not run. */
export class CompiledRouteError extends Error {
  constructor(route: string, reason: string) {
    super(`@CompiledRoute() ${route}: ${reason}; remove @CompiledRoute() to keep Nest's own pipeline for it`);
    this.name = 'CompiledRouteError';
  }
}

interface ParamSlot {
  index: number;
  type: number;
  data: string | undefined;
  pipes: PipeTransform[];
  metadata: ArgumentMetadata;
}

type MaybePromise<T> = T | Promise<T>;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
  );
}

function settle(value: unknown): MaybePromise<unknown> {
  if (isObservable(value)) return lastValueFrom(value);
  if (isThenable(value))
    return Promise.resolve(value).then((resolved) =>
      isObservable(resolved) ? lastValueFrom(resolved) : resolved,
    );
  return value;
}

/** What the compiler needs from the app: resolved once, by `createHttpApp`, when Nest registers the first route. */
export interface CompiledRouteDeps {
  moduleRef: ModuleRef;
  config: ApplicationConfig;
  adapterHost: HttpAdapterHost;
  /** The app's one exception filter (createHttpApp's `AppExceptionFilter`). */
  filter: ExceptionFilter;
}

/**
 * Fastify's `onRoute`: a route Nest registers with the `@CompiledRoute()` mark gets the compiled handler in place of
 * Nest's. Everything is resolved here, once; a route the compiler cannot run faithfully stops start-up.
 */
export function compileMarkedRoute(route: RouteOptions, deps: () => CompiledRouteDeps): void {
  const mark = (route.config as Record<string, unknown> | undefined)?.[COMPILED_ROUTE] as
    | CompiledRouteTarget
    | undefined;
  if (mark === undefined) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  route.handler = compileRoute(mark, `${methods.join(',')} ${route.url}`, methods[0] ?? 'GET', deps());
}

function compileRoute(
  mark: CompiledRouteTarget,
  name: string,
  httpMethod: string,
  deps: CompiledRouteDeps,
): RouteHandlerMethod {
  const { controller, methodName } = mark;
  const refuse = (reason: string): never => {
    throw new CompiledRouteError(name, reason);
  };
  const prototype = controller.prototype as Record<string, unknown>;
  const callback = prototype[methodName] as (...args: unknown[]) => unknown;
  const instance = resolve(deps.moduleRef, controller, () =>
    refuse(`its controller ${controller.name} is not a static provider of the app`),
  );

  for (const [key, what] of [
    [NEST_METADATA.redirect, '@Redirect()'],
    [NEST_METADATA.render, '@Render()'],
    [NEST_METADATA.sse, '@Sse()'],
  ] as const) {
    if (Reflect.getMetadata(key, callback) !== undefined) refuse(`it uses ${what}`);
  }
  const interceptors = [
    ...deps.config.getGlobalInterceptors(),
    ...deps.config.getGlobalRequestInterceptors(),
    ...listed(NEST_METADATA.interceptors, controller),
    ...listed(NEST_METADATA.interceptors, callback),
  ];
  if (interceptors.length > 0) refuse('it has interceptors');
  if (
    listed(NEST_METADATA.filters, controller).length > 0 ||
    listed(NEST_METADATA.filters, callback).length > 0
  )
    refuse('it has exception filters of its own');
  const globalFilters = deps.config.getGlobalFilters();
  if (
    deps.config.getGlobalRequestFilters().length > 0 ||
    globalFilters.length !== 1 ||
    globalFilters[0] !== deps.filter
  )
    refuse("the app has exception filters besides createHttpApp's");
  if (deps.config.getGlobalRequestGuards().length > 0 || deps.config.getGlobalRequestPipes().length > 0)
    refuse('the app has request-scoped global guards or pipes');

  const enhancer = <T>(item: unknown, kind: string, has: keyof T): T =>
    typeof item === 'object' && item !== null && has in item
      ? (item as T)
      : resolve(deps.moduleRef, item as Type<T>, () =>
          refuse(`its ${kind} ${(item as { name?: string }).name ?? String(item)} is not a static provider`),
        );
  const guards: CanActivate[] = [
    ...deps.config.getGlobalGuards(),
    ...listed(NEST_METADATA.guards, controller),
    ...listed(NEST_METADATA.guards, callback),
  ].map((guard) => enhancer<CanActivate>(guard, 'guard', 'canActivate'));
  const routePipes: PipeTransform[] = [
    ...deps.config.getGlobalPipes(),
    ...listed(NEST_METADATA.pipes, controller),
    ...listed(NEST_METADATA.pipes, callback),
  ].map((pipe) => enhancer<PipeTransform>(pipe, 'pipe', 'transform'));

  const argsMetadata = (Reflect.getMetadata(NEST_METADATA.routeArgs, controller, methodName) ?? {}) as Record<
    string,
    { index: number; data?: unknown; pipes?: unknown[] }
  >;
  const paramtypes = (Reflect.getMetadata(NEST_METADATA.paramtypes, prototype, methodName) ?? []) as Array<
    Type<unknown> | undefined
  >;
  const slots: ParamSlot[] = Object.entries(argsMetadata).map(([key, entry]) => {
    const typeKey = key.split(':')[0];
    const type = Number(typeKey);
    if (!Object.values(PARAM).includes(type as (typeof PARAM)[keyof typeof PARAM]))
      refuse(`parameter ${entry.index} uses a parameter decorator it does not run (${typeKey})`);
    if (entry.data !== undefined && typeof entry.data !== 'string' && type !== PARAM.response)
      refuse(`parameter ${entry.index} has a non-string key`);
    const data = typeof entry.data === 'string' ? entry.data : undefined;
    const pipeType = PIPED_PARAM_TYPES[type];
    const paramPipes = (entry.pipes ?? []).map((pipe) => enhancer<PipeTransform>(pipe, 'pipe', 'transform'));
    return {
      index: entry.index,
      type,
      data,
      pipes: pipeType === undefined ? [] : [...routePipes, ...paramPipes],
      metadata: { type: pipeType ?? 'custom', metatype: paramtypes[entry.index], data },
    };
  });
  const passthrough = Reflect.getMetadata(NEST_METADATA.passthrough, controller, methodName) === true;
  if (slots.some((slot) => slot.type === PARAM.response) && !passthrough)
    refuse('@Res() without passthrough');
  const argsLength = slots.reduce((length, slot) => Math.max(length, slot.index + 1), 0);

  const httpCode = Reflect.getMetadata(NEST_METADATA.httpCode, callback) as number | undefined;
  const nestMethod = Reflect.getMetadata(NEST_METADATA.method, callback) as RequestMethod | undefined;
  const status =
    httpCode ??
    (nestMethod === RequestMethod.POST || (nestMethod === undefined && httpMethod === 'POST') ? 201 : 200);
  const headers = (Reflect.getMetadata(NEST_METADATA.headers, callback) ?? []) as Array<{
    name: string;
    value: string | (() => string);
  }>;
  const adapter = deps.adapterHost.httpAdapter;
  const filter = deps.filter;

  const fail = (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    filter.catch(error, httpExecutionContext(request, reply, controller, callback));
    return reply;
  };
  const send = (result: unknown, reply: FastifyReply): FastifyReply =>
    adapter.reply(reply, result, status) as FastifyReply;
  const invoke = (args: unknown[], reply: FastifyReply): MaybePromise<FastifyReply> => {
    const result = settle(callback.apply(instance, args));
    return isThenable(result)
      ? Promise.resolve(result).then((value) => send(value, reply))
      : send(result, reply);
  };
  const afterGuards = (request: FastifyRequest, reply: FastifyReply): MaybePromise<FastifyReply> => {
    void reply.code(status);
    for (const { name, value } of headers)
      void reply.header(name, typeof value === 'function' ? value() : value);
    const args: unknown[] = new Array(argsLength).fill(undefined);
    let pending: Promise<unknown>[] | undefined;
    for (const slot of slots) {
      const extracted = extract(slot, request, reply);
      // Without pipes the value is passed as it is: Fastify's reply is itself a thenable (it settles when sent).
      if (slot.pipes.length === 0) {
        args[slot.index] = extracted;
        continue;
      }
      const value = applyPipes(extracted, slot);
      if (isThenable(value))
        (pending ??= []).push(Promise.resolve(value).then((resolved) => (args[slot.index] = resolved)));
      else args[slot.index] = value;
    }
    return pending === undefined ? invoke(args, reply) : Promise.all(pending).then(() => invoke(args, reply));
  };

  return function compiledHandler(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> | undefined {
    try {
      const context =
        guards.length === 0 ? undefined : httpExecutionContext(request, reply, controller, callback);
      let index = 0;
      const nextGuard = (): MaybePromise<FastifyReply> => {
        while (index < guards.length) {
          const verdict = guards[index++]!.canActivate(context!);
          if (verdict === true) continue;
          if (verdict === false) throw new ForbiddenException(FORBIDDEN_RESOURCE);
          return Promise.resolve(settle(verdict)).then((allowed) => {
            if (!allowed) throw new ForbiddenException(FORBIDDEN_RESOURCE);
            return nextGuard();
          });
        }
        return afterGuards(request, reply);
      };
      const outcome = nextGuard();
      // Fastify waits for a returned promise; a reply sent synchronously needs nothing returned.
      return outcome instanceof Promise
        ? outcome.catch((error: unknown) => fail(error, request, reply))
        : undefined;
    } catch (error) {
      fail(error, request, reply);
      return undefined;
    }
  };
}

function applyPipes(value: unknown, slot: ParamSlot): unknown {
  let current: unknown = value;
  for (let i = 0; i < slot.pipes.length; i++) {
    if (isThenable(current)) {
      const rest = slot.pipes.slice(i);
      return Promise.resolve(current).then((resolved) =>
        rest.reduce<Promise<unknown>>(
          (deferred, pipe) => deferred.then((v) => pipe.transform(v, slot.metadata)),
          Promise.resolve(resolved),
        ),
      );
    }
    current = slot.pipes[i]!.transform(current, slot.metadata);
  }
  return current;
}

function extract(slot: ParamSlot, request: FastifyRequest, reply: FastifyReply): unknown {
  switch (slot.type) {
    case PARAM.request:
      return request;
    case PARAM.response:
      return reply;
    case PARAM.body:
      return slot.data === undefined
        ? request.body
        : (request.body as Record<string, unknown> | undefined)?.[slot.data];
    case PARAM.query:
      return slot.data === undefined ? request.query : (request.query as Record<string, unknown>)[slot.data];
    case PARAM.param:
      return slot.data === undefined
        ? request.params
        : (request.params as Record<string, unknown>)[slot.data];
    default:
      return slot.data === undefined ? request.headers : request.headers[slot.data.toLowerCase()];
  }
}

function listed(key: string, target: object): unknown[] {
  return (Reflect.getMetadata(key, target) as unknown[] | undefined) ?? [];
}

function resolve<T>(moduleRef: ModuleRef, token: Type<T>, otherwise: () => never): T {
  try {
    return moduleRef.get(token, { strict: false });
  } catch {
    return otherwise();
  }
}

/**
 * The view of an HTTP request Nest gives its guards (`ExecutionContext`) and exception filters (`ArgumentsHost`),
 * for Fastify routes Nest's router does not run: compiled routes, and routes an app registers on Fastify itself
 * whose errors go through the app's filter. `controller` and `handler` are what `getClass()`/`getHandler()` answer.
 */
export function httpExecutionContext(
  request: FastifyRequest,
  reply: FastifyReply,
  controller?: Type<unknown>,
  handler?: (...args: unknown[]) => unknown,
): ExecutionContext {
  const args = [request, reply, undefined];
  const http = { getRequest: () => request, getResponse: () => reply, getNext: () => undefined };
  const notHere = (kind: string) => (): never => {
    throw new Error(`not a ${kind} context`);
  };
  return {
    getClass: () => controller,
    getHandler: () => handler,
    getArgs: () => args,
    getArgByIndex: (index: number) => args[index],
    getType: () => 'http',
    switchToHttp: () => http,
    switchToRpc: notHere('RPC'),
    switchToWs: notHere('WebSocket'),
  } as unknown as ExecutionContext;
}
