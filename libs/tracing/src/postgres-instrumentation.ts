import type { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { tracingRequested } from './tracing-settings';

let registered: PgInstrumentation | undefined;

/**
 * Registers OpenTelemetry's PostgreSQL instrumentation (`@opentelemetry/instrumentation-pg`) when the environment asks
 * for tracing. It patches node-postgres as node-postgres is required, so a service calls this first thing in
 * `main.ts`, before anything requires `pg`; with tracing off it loads nothing. Its spans go nowhere until the
 * service's tracer hands it its provider (`OtelTracer`).
 *
 * A span per query (`pg.query:SELECT <database>`, the parameterised SQL as `db.query.text`, never the values) and per
 * wait for a pooled connection (`pg-pool.connect`), as children of the request that ran them: work outside a request
 * (start-up, the change listener) is left untraced.
 */
export function instrumentPostgres(env: NodeJS.ProcessEnv = process.env): void {
  if (registered !== undefined || !tracingRequested(env)) return;
  // Required here, not imported at the top: with tracing off, no part of OpenTelemetry is loaded.
  type Module = typeof import('@opentelemetry/instrumentation-pg');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as Module;
  registered = new PgInstrumentation({ requireParentSpan: true });
}

/** The instrumentation `instrumentPostgres` registered in this process, if it did. */
export function postgresInstrumentation(): PgInstrumentation | undefined {
  return registered;
}
