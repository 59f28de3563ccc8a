import type { IncomingHttpHeaders } from 'node:http';

export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

/** The span of one HTTP request, made current for everything the request does. */
export interface RequestSpan {
  /** Runs the rest of the request's pipeline with this span as the parent of the spans it starts. */
  run(work: () => void): void;
  /** Ends the span, named after the route template (`GET /v1/households/:id`); a 5xx marks it failed. */
  end(route: string, status: number): void;
}

/** A span for one call to PostgreSQL, Redis or the chain node, child of the request's span. */
export interface ChildSpan {
  setAttribute(key: string, value: SpanAttributeValue): void;
  /** Writes this span's W3C trace context (`traceparent`, and `tracestate` when there is one) through `set`. */
  inject(set: (key: string, value: string) => void): void;
  /** Ends the span; with a message, marked failed. */
  end(failure?: string): void;
}

export type ChildKind = 'client' | 'internal';

/**
 * What the service's seams use when tracing is on. When it is off there is no tracer at all (`Tracing.tracer` is
 * undefined): the seams test that once, at construction, and the SDK is never loaded.
 */
export interface SpanTracer {
  startRequest(method: string, path: string, headers: IncomingHttpHeaders, requestId: string): RequestSpan;
  /**
   * A child of the current span; undefined when no span is current (work outside a request: timers, start-up, the
   * change listener), which is left untraced rather than exported as a trace of its own.
   */
  startChild(name: string, kind: ChildKind, attributes: SpanAttributes): ChildSpan | undefined;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/** The service's tracing: `tracer` is set only when an OTLP endpoint is configured and the SDK is not disabled. */
export class Tracing {
  constructor(readonly tracer: SpanTracer | undefined) {}

  get enabled(): boolean {
    return this.tracer !== undefined;
  }
}
