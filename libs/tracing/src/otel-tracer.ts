// Loaded only when tracing is on (tracing.module.ts imports it on demand): with tracing off, none of the SDK is.
import type { IncomingHttpHeaders } from 'node:http';
import {
  Context,
  context,
  ROOT_CONTEXT,
  Span,
  SpanKind,
  SpanStatusCode,
  TextMapGetter,
  trace,
  Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  Sampler,
  type Span as SdkSpan,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { postgresInstrumentation } from './postgres-instrumentation';
import type {
  ChildKind,
  ChildSpan,
  RequestSpan,
  SpanAttributes,
  SpanAttributeValue,
  SpanTracer,
} from './tracing';
import type { TracingSettings } from './tracing-settings';

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

function samplerOf(settings: TracingSettings['sampler']): Sampler {
  const root =
    settings.root === 'always_off'
      ? new AlwaysOffSampler()
      : settings.root === 'traceidratio'
        ? new TraceIdRatioBasedSampler(settings.ratio)
        : new AlwaysOnSampler();
  return settings.parentBased ? new ParentBasedSampler({ root }) : root;
}

/**
 * Says when exports start failing and when they work again, once per change rather than per batch: the exporter's own
 * reports go to OpenTelemetry's diagnostic logger, which is silent unless a process installs one.
 */
class ExportHealthReporter implements SpanExporter {
  private healthy = true;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly onHealthChange: (healthy: boolean, reason?: string) => void,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      const healthy = result.code === ExportResultCode.SUCCESS;
      if (healthy !== this.healthy) {
        this.healthy = healthy;
        this.onHealthChange(healthy, result.error?.message);
      }
      done(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}

/** The instrumentation scope of `@opentelemetry/instrumentation-pg`'s spans (its package name). */
const POSTGRES_SCOPE = '@opentelemetry/instrumentation-pg';

/**
 * PostgreSQL's error messages can quote the values a query sent (`invalid input syntax for type integer: "…"`), and
 * the pg instrumentation writes the message as a failed span's status. This keeps the status to the error's class and
 * SQLSTATE, which the instrumentation's own exception event already limits itself to. `onEnding` (the last moment a
 * span may change) is marked experimental in sdk-trace 2.x: otel-tracer.spec.ts fails if an upgrade changes it.
 */
export class QueryErrorRedaction implements SpanProcessor {
  onStart(): void {}

  onEnding(span: SdkSpan): void {
    if (span.instrumentationScope.name !== POSTGRES_SCOPE || span.status.code !== SpanStatusCode.ERROR)
      return;
    const exception = span.events.find((event) => event.name === 'exception');
    const message = exception?.attributes?.['exception.message'];
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: typeof message === 'string' ? message : 'query failed',
    });
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

class OtelRequestSpan implements RequestSpan {
  constructor(
    private readonly span: Span,
    private readonly context: Context,
    private readonly contexts: AsyncLocalStorageContextManager,
    private readonly method: string,
  ) {}

  run(work: () => void): void {
    this.contexts.with(this.context, work);
  }

  end(route: string, status: number): void {
    this.span.updateName(`${this.method} ${route}`);
    this.span.setAttribute('http.route', route);
    this.span.setAttribute('http.response.status_code', status);
    // A server span fails on a 5xx only: a 4xx is the client's mistake, answered as designed.
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

class OtelChildSpan implements ChildSpan {
  constructor(
    private readonly span: Span,
    private readonly context: Context,
    private readonly propagator: W3CTraceContextPropagator,
  ) {}

  setAttribute(key: string, value: SpanAttributeValue): void {
    this.span.setAttribute(key, value);
  }

  inject(set: (key: string, value: string) => void): void {
    this.propagator.inject(this.context, set, { set: (carrier, key, value) => carrier(key, value) });
  }

  end(failure?: string): void {
    if (failure !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
    this.span.end();
  }
}

/**
 * The SDK, wired at our own seams: the tracer provider, the context manager and the propagator belong to this service
 * instance (two apps in one test process keep apart), and spans are started by http-kit's request hooks, the Redis
 * scripts and the gRPC client. The one exception is PostgreSQL: when `instrumentPostgres` registered
 * OpenTelemetry's pg instrumentation at start-up, this tracer hands it its provider and makes its context manager
 * the process's, which the instrumentation reads to find the request a query belongs to.
 */
export class OtelTracer implements SpanTracer {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly contexts = new AsyncLocalStorageContextManager().enable();
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly ownsGlobalContext: boolean;

  constructor(settings: TracingSettings, onExportHealthChange?: (healthy: boolean, reason?: string) => void) {
    // OTLP/HTTP with JSON bodies: what both OTEL_EXPORTER_OTLP_PROTOCOL values we accept have always sent, and what
    // every OTLP/HTTP receiver takes. A batch the receiver refuses or misses past its retries is dropped: tracing is
    // best effort and never holds a request.
    const otlp = new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
    const exporter = onExportHealthChange ? new ExportHealthReporter(otlp, onExportHealthChange) : otlp;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes(settings.resource),
      sampler: samplerOf(settings.sampler),
      spanProcessors: [new QueryErrorRedaction(), new BatchSpanProcessor({ exporter })],
    });
    this.tracer = this.provider.getTracer('@dmrv/tracing');
    const postgres = postgresInstrumentation();
    this.ownsGlobalContext = postgres !== undefined && context.setGlobalContextManager(this.contexts);
    if (this.ownsGlobalContext) postgres!.setTracerProvider(this.provider);
  }

  startRequest(method: string, path: string, headers: IncomingHttpHeaders, requestId: string): RequestSpan {
    // A caller's traceparent makes this request part of its trace; without one, a trace starts here.
    const parent = this.propagator.extract(ROOT_CONTEXT, headers, headerGetter);
    const span = this.tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.path': path,
          // The semantic conventions' name for a captured request header: the id the service echoes and logs.
          'http.request.header.x-request-id': [requestId],
        },
      },
      parent,
    );
    return new OtelRequestSpan(span, trace.setSpan(parent, span), this.contexts, method);
  }

  startChild(name: string, kind: ChildKind, attributes: SpanAttributes): ChildSpan | undefined {
    const active = this.contexts.active();
    if (trace.getSpan(active) === undefined) return undefined;
    const span = this.tracer.startSpan(
      name,
      { kind: kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes },
      active,
    );
    return new OtelChildSpan(span, trace.setSpan(active, span), this.propagator);
  }

  async shutdown(): Promise<void> {
    try {
      await this.provider.shutdown();
    } finally {
      if (this.ownsGlobalContext) context.disable();
      this.contexts.disable();
    }
  }
}
