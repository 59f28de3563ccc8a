import type { IncomingMessage } from 'node:http';
import {
  BadRequestException,
  DynamicModule,
  INestApplication,
  ServiceUnavailableException,
  Type,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyInstance } from 'fastify';
import { AppExceptionFilter, ErrorRenderer, renderMessageBody } from '@dmrv/errors';
import { Logger, REQUEST_ID_HEADER, RequestLogging, resolveRequestId } from '@dmrv/logging';
import {
  HttpMetrics,
  installMetricsRoute,
  Metrics,
  METRICS_OPTIONS,
  MetricsModuleOptions,
} from '@dmrv/metrics';
import { RequestSpan, SpanTracer, Tracing } from '@dmrv/tracing';
import {
  FRAMEWORK_ERROR_MESSAGES,
  FrameworkAnswerHeaders,
  FrameworkErrorResponder,
} from './framework-errors';

export interface HttpAppOptions {
  /**
   * Proxies whose X-Forwarded-For entries are believed: `false` (none), a hop count, or proxy addresses/CIDRs.
   * Never `true`: that would believe the left-most entry, which the client writes itself. Use `trustedProxies()`.
   */
  trustProxy: false | number | string[];
  /** Wire shape of errors for this app; default `{ message }`. */
  errorRenderer?: ErrorRenderer;
  /** Accept `application/x-www-form-urlencoded` bodies (USSD aggregators send them). */
  formBodies?: boolean;
  /**
   * Headers to add to the answers written outside Fastify's hooks (malformed URLs and requests, an unsupported
   * Expect), which an app's onSend hooks never see.
   */
  frameworkAnswerHeaders?: FrameworkAnswerHeaders;
}

/** Largest accepted request body: no endpoint of ours takes more than a USSD form. */
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Fastify 5.12 turned a numeric `trustProxy` into "trust nothing" (a hop count alone does not check that the peer is
 * a proxy). Ours is an explicit operator choice (TRUST_PROXY_HOPS: that many proxies we run append to
 * X-Forwarded-For), so it becomes the function proxy-addr built for a number before: believe the nearest `hops` hops.
 */
function fastifyTrustProxy(
  trust: HttpAppOptions['trustProxy'],
): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

/**
 * Builds a Nest app on Fastify with the pipeline every service shares: request ids assigned before routing
 * (so 404s and errors carry them too), structured logs, the app's single exception filter.
 * `bootstrap()` of each app and its e2e tests both go through here.
 */
export async function createHttpApp(
  module: Type<unknown> | DynamicModule,
  options: HttpAppOptions,
): Promise<NestFastifyApplication> {
  const frameworkErrors = new FrameworkErrorResponder();
  const adapter = new FastifyAdapter({
    trustProxy: fastifyTrustProxy(options.trustProxy),
    bodyLimit: BODY_LIMIT_BYTES,
    // Fastify's default of 100 counts the percent-encoded bytes: a 100-character id with non-ASCII characters
    // (up to 12 bytes each once encoded) would be a 404 before reaching a handler that can answer properly.
    routerOptions: { maxParamLength: 2048 },
    // Our own access line (RequestLogging) replaces Fastify's per-request lines; Fastify 5.12 takes this through a
    // log controller (the top-level `disableRequestLogging` is deprecated, FSTDEP023).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    genReqId: (request: IncomingMessage) => {
      const id = resolveRequestId(request.headers[REQUEST_ID_HEADER]);
      // Normalised in place so the logger, guards and the gRPC forwarder all read the same id.
      request.headers[REQUEST_ID_HEADER] = id;
      return id;
    },
    // Errors Fastify and Node would answer in their own shape, before any route: rendered as the app renders its own.
    frameworkErrors: frameworkErrors.badUrl,
    clientErrorHandler: frameworkErrors.clientError,
    // Requests that arrive on a kept-alive connection while the server drains get the app's 503 (installRequestHooks)
    // instead of Fastify's; a missing Host is refused there too, instead of by Node with an empty body.
    return503OnClosing: false,
    http: { requireHostHeader: false },
    // No Express-style middleware anywhere: request logging runs on Fastify hooks (installRequestHooks). A middleware added
    // later fails at start-up instead of silently costing a middleware pass on every request.
    skipMiddie: true,
  });
  // Fastify parses JSON itself; Nest's body parser adds `application/x-www-form-urlencoded`, wanted only where
  // a client sends forms. Elsewhere such bodies get a 415.
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, {
    bufferLogs: true,
    // A wiring error rejects (runService prints it and exits 1; tests see it) instead of Nest calling process.exit.
    abortOnError: false,
    bodyParser: options.formBodies === true,
  });
  app.useLogger(app.get(Logger));
  // Nest flushes the start-up buffer only in listen(); an app driven by inject() (tests) kept every later Nest
  // Logger line (the exception filter's among them) in that buffer.
  app.flushLogs();
  const render = options.errorRenderer ?? renderMessageBody;
  const requestLogging = app.get(RequestLogging);
  frameworkErrors.attach(render, requestLogging, options.frameworkAnswerHeaders);
  const fastify = adapter.getInstance();
  fastify.server.on('checkExpectation', frameworkErrors.expectationFailed);
  const metrics = optionalProvider(app, HttpMetrics);
  if (metrics !== undefined) {
    metrics.install(fastify);
    const token = app.get<MetricsModuleOptions>(METRICS_OPTIONS).config.METRICS_TOKEN;
    if (token !== undefined) installMetricsRoute(fastify, app.get(Metrics), token);
  }
  installRequestHooks(fastify, requestLogging, metrics, optionalProvider(app, Tracing)?.tracer);
  app.useGlobalFilters(new AppExceptionFilter(app.get(HttpAdapterHost), render));
  return app;
}

/** A provider of a module the app may not import (MetricsModule, TracingModule: the apps do, small test apps need not). */
function optionalProvider<T>(
  app: NestFastifyApplication,
  token: abstract new (...args: never[]) => T,
): T | undefined {
  try {
    // Through ModuleRef: the app's own get() goes through Nest's exception zone, which logs a failed lookup at error.
    return app.get(ModuleRef).get(token as unknown as Type<T>, { strict: false });
  } catch {
    return undefined;
  }
}

// A request decoration (declared once, so every request object keeps one shape) that the access line reads.
const CLIENT_ID_PROPERTY = 'accessLogClientId';

interface ClientIdentified {
  [CLIENT_ID_PROPERTY]: string | null;
}

/**
 * Names the authenticated client on the request's access line. An authentication guard calls it once the
 * credentials are verified, with the client's id: never a secret, the access line is not redacted.
 */
export function setAccessLogClientId(request: object, clientId: string): void {
  (request as ClientIdentified)[CLIENT_ID_PROPERTY] = clientId;
}

/**
 * Every request: its id echoed in the response, a logger bound to that id while it is served, one access line and
 * one latency observation when it is answered, and with tracing on a span around it all. Registered before `init()`
 * registers the routes, so the hooks apply to all of them. The metrics route is left out of all but the id.
 */
function installRequestHooks(
  fastify: FastifyInstance,
  requestLogging: RequestLogging,
  metrics: HttpMetrics | undefined,
  tracer: SpanTracer | undefined,
): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    // Thrown to the app's exception filter, so both answer in the app's error shape.
    if (closing) return done(new ServiceUnavailableException(FRAMEWORK_ERROR_MESSAGES.closing));
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1')
      return done(new BadRequestException(FRAMEWORK_ERROR_MESSAGES.missingHost));
    // Fastify's body parser binds its continuation to this context, so handlers of POST requests keep the binding.
    requestLogging.serveWith(request.id, done);
  });
  fastify.decorateRequest(CLIENT_ID_PROPERTY, null);
  if (tracer !== undefined) installRequestSpans(fastify, tracer, metrics);
  fastify.addHook('onResponse', (request, reply, done) => {
    if (metrics !== undefined) {
      if (!metrics.isObserved(request)) return done();
      metrics.observe(request, reply);
    }
    requestLogging.completed({
      requestId: request.id,
      method: request.method,
      url: request.raw.url ?? request.url,
      client: request.ip,
      clientId: (request as unknown as ClientIdentified)[CLIENT_ID_PROPERTY] ?? undefined,
      userAgent: request.headers['user-agent'],
      statusCode: reply.statusCode,
      responseTimeMs: reply.elapsedTime,
    });
    done();
  });
}

const SPAN_PROPERTY = 'traceSpan';

interface Traced {
  [SPAN_PROPERTY]: RequestSpan | null;
}

/**
 * A server span per request, current while the request is served (so the pool, Redis and gRPC seams start its
 * children). Started in `preParsing`, the first hook after the route-level ones, once the route is known to be
 * observed; Fastify's body parser keeps the context, so POST handlers run inside it too. Installed only with
 * tracing on: with it off, requests keep their shape and pay nothing.
 */
function installRequestSpans(
  fastify: FastifyInstance,
  tracer: SpanTracer,
  metrics: HttpMetrics | undefined,
): void {
  fastify.decorateRequest(SPAN_PROPERTY, null);
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    if (metrics !== undefined && !metrics.isObserved(request)) return done(null, payload);
    const url = request.url;
    const query = url.indexOf('?');
    const span = tracer.startRequest(
      request.method,
      query === -1 ? url : url.slice(0, query),
      request.headers,
      request.id,
    );
    (request as unknown as Traced)[SPAN_PROPERTY] = span;
    span.run(() => done(null, payload));
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const span = (request as unknown as Traced)[SPAN_PROPERTY];
    if (span !== null)
      span.end(metrics?.routeOf(request) ?? request.routeOptions.url ?? 'unmatched', reply.statusCode);
    done();
  });
}

export interface ShutdownOptions {
  graceMs: number;
  /** For tests: what to do instead of exiting the process. */
  exit?: (code: number) => void;
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish, close pools (module destroy hooks),
 * then exit 0. Nest's own shutdown hooks re-raise the signal, which ends the process with 143 instead of 0.
 */
export function installGracefulShutdown(app: INestApplication, options: ShutdownOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const logger = app.get(Logger);
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: draining in-flight requests`, 'Shutdown');
    const force = setTimeout(() => {
      logger.error(`still busy after ${options.graceMs} ms: exiting anyway`, 'Shutdown');
      exit(1);
    }, options.graceMs);
    force.unref();
    app.close().then(
      () => {
        clearTimeout(force);
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(force);
        logger.error({ err: error }, 'shutdown failed', 'Shutdown');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
