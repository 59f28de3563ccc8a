import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { QueryErrorRedaction } from './otel-tracer';

describe('QueryErrorRedaction', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [new QueryErrorRedaction(), new SimpleSpanProcessor({ exporter })],
  });

  afterAll(() => provider.shutdown());

  // What @opentelemetry/instrumentation-pg does with a failed query: an exception event with the error's class and
  // code only, and PostgreSQL's message (which can quote a value the query sent) as the status.
  function failedQuery(scope: string): void {
    const span = provider.getTracer(scope).startSpan('pg.query:SELECT registry');
    span.recordException("PostgreSQL error of type 'error' occurred (code: 22P02)");
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: 'invalid input syntax for type integer: "+260971234567"',
    });
    span.end();
  }

  it("keeps a failed query's status to the error's class and SQLSTATE, never PostgreSQL's message", () => {
    exporter.reset();
    failedQuery('@opentelemetry/instrumentation-pg');
    const [span] = exporter.getFinishedSpans();
    expect(span!.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: "PostgreSQL error of type 'error' occurred (code: 22P02)",
    });
    expect(JSON.stringify(span!.status)).not.toContain('260971234567');
  });

  it("leaves other instrumentations' spans and successful queries as they are", () => {
    exporter.reset();
    failedQuery('@dmrv/tracing');
    const ok = provider.getTracer('@opentelemetry/instrumentation-pg').startSpan('pg.query:SELECT registry');
    ok.end();
    expect(exporter.getFinishedSpans().map((span) => span.status)).toEqual([
      { code: SpanStatusCode.ERROR, message: 'invalid input syntax for type integer: "+260971234567"' },
      { code: SpanStatusCode.UNSET },
    ]);
  });
});
