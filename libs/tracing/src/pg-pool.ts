import type { SpanAttributes, SpanTracer } from './tracing';

type Callable = (...args: unknown[]) => unknown;

/** What tracing needs of a node-postgres `Pool`. */
export interface TraceablePool {
  connect: Callable;
  on(event: 'acquire', listener: (client: { query: Callable }) => void): unknown;
}

const TRACED = Symbol('dmrv.traced');

function operationOf(sql: string): string {
  const match = /^\s*([A-Za-z]+)/.exec(sql);
  return match ? match[1]!.toUpperCase() : 'postgresql';
}

/** Why a query failed, without its text or values: a driver's message can quote the values it refused. */
function failureOf(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === 'string' ? `SQLSTATE ${code}` : typeof name === 'string' ? name : 'query failed';
}

function traceClient(
  client: { query: Callable; [TRACED]?: true },
  tracer: SpanTracer,
  base: SpanAttributes,
): void {
  if (client[TRACED]) return;
  client[TRACED] = true;
  const query = client.query;
  client.query = function tracedQuery(this: unknown, ...args: unknown[]): unknown {
    const first = args[0] as { text?: unknown; submit?: unknown } | string | undefined;
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : undefined;
    // Streams (COPY, cursors) are Submittables with their own life cycle: left untraced.
    const span =
      text === undefined || (typeof first === 'object' && typeof first.submit === 'function')
        ? undefined
        : tracer.startChild(operationOf(text), 'client', { ...base, 'db.query.text': text });
    if (span === undefined) return query.apply(this, args);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        span.end(error ? failureOf(error) : undefined);
        (last as Callable)(error, result);
      };
      return query.apply(this, args);
    }
    const result = query.apply(this, args);
    if (result instanceof Promise)
      result.then(
        () => span.end(),
        (error: unknown) => span.end(failureOf(error)),
      );
    return result;
  };
}

/**
 * A span per query on this pool's connections, child of the request that ran it (`SELECT`, `INSERT`, … with the
 * parameterised SQL as `db.query.text`; values are never recorded). The pool's `connect` callback is bound to its
 * caller's context: a caller that waited for a free connection is otherwise called back from the request that
 * released it, and its queries would join that request's trace. Call only with tracing on.
 */
export function tracePgPool(pool: TraceablePool, tracer: SpanTracer, attributes: SpanAttributes = {}): void {
  const base: SpanAttributes = { 'db.system.name': 'postgresql', ...attributes };
  const connect = pool.connect;
  pool.connect = function boundConnect(this: unknown, ...args: unknown[]): unknown {
    const callback = args[0];
    if (typeof callback === 'function') args[0] = tracer.bind(callback as Callable);
    return connect.apply(this, args);
  };
  pool.on('acquire', (client) => traceClient(client, tracer, base));
}

/** `db.namespace`, `server.address` and `server.port` of a `postgres://` URL (never its credentials). */
export function postgresAttributes(url: string): SpanAttributes {
  try {
    const parsed = new URL(url);
    const attributes: SpanAttributes = { 'server.address': parsed.hostname };
    if (parsed.port !== '') attributes['server.port'] = Number(parsed.port);
    const database = decodeURIComponent(parsed.pathname.slice(1));
    if (database !== '') attributes['db.namespace'] = database;
    return attributes;
  } catch {
    return {};
  }
}
