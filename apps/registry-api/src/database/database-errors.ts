/**
 * Tells a database that cannot serve right now (a 503: retry later) from a query that is wrong (a 500: a bug).
 * node-postgres reports its own failures (timeouts, a dropped connection, a closed pool) only by message, so those
 * are matched by text; server errors by SQLSTATE class; socket errors by errno code.
 */

/** SQLSTATE classes and codes of a server that is unreachable, overloaded, shutting down, or refusing us. */
const UNAVAILABLE_SQLSTATE_CLASSES = new Set(['08', '28', '53', '57']);
const UNAVAILABLE_SQLSTATES = new Set(['3D000']);

const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Failures node-postgres and pg-pool raise themselves, without a code. */
const DRIVER_MESSAGES = [
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'Connection terminated unexpectedly',
  'Connection terminated',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/** Driver messages that mean the connection went silent rather than closed: other idle ones may have too. */
const SILENT_MESSAGES = new Set([
  'Query read timeout',
  'Connection terminated due to connection timeout',
  'timeout expired',
]);

interface ErrorLike {
  message: string;
  code?: unknown;
  cause?: unknown;
}

// Read by shape, not `instanceof Error`: socket errors are made by Node's own realm, which is not the caller's
// under a test runner's VM context.
function errorLike(error: unknown): ErrorLike | null {
  return typeof error === 'object' && error !== null && typeof (error as ErrorLike).message === 'string'
    ? (error as ErrorLike)
    : null;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const failure = errorLike(error);
  if (!failure) return false;
  if (typeof failure.code === 'string') {
    const code = failure.code;
    if (UNAVAILABLE_ERRNO.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return UNAVAILABLE_SQLSTATE_CLASSES.has(code.slice(0, 2));
  }
  return (
    DRIVER_MESSAGES.includes(failure.message) ||
    (failure.cause !== undefined && isDatabaseUnavailable(failure.cause))
  );
}

/** The connection stopped answering (or a new one never did): a network path that drops packets silently. */
export function isSilentConnection(error: unknown): boolean {
  const failure = errorLike(error);
  return failure !== null && SILENT_MESSAGES.has(failure.message);
}
