import { NetworkError, TimeoutError } from './errors.js';
import { parseRetryAfter, retryDelay, retryPolicy, RetryOptions } from './retry-policy.js';

/** The fetch openapi-fetch calls (`createClient({ fetch })`, or per call). */
export type FetchFunction = (request: Request) => Promise<Response>;

export interface ResilientFetchOptions {
  /** The fetch underneath; the global one by default. */
  fetch?: FetchFunction;
  /** How long one attempt may take, its whole answer read; 0 for no limit. */
  timeoutMs?: number;
  /** Retries of GET and HEAD on 429, 503 and network errors; `false` for none. */
  retry?: Partial<RetryOptions> | false;
  /** The jitter's random source (tests). */
  random?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

const IDEMPOTENT = new Set(['GET', 'HEAD']);
// Statuses whose answer has no body: a Response cannot be built with one.
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch with a timeout per attempt, the request's own signal (the caller's `AbortSignal`) honoured throughout, and
 * bounded retries: what JSON API clients need and fetch leaves out. Each attempt reads the whole answer before it
 * resolves, so the timeout covers the body too and an answer cut halfway is a network error like any other. It never
 * throws for a status: a 4xx or 5xx that is not retried, or still failing after the retries, is the Response; a
 * network failure is a {@link NetworkError}, an attempt past its time a {@link TimeoutError}, and the caller's abort
 * rejects with the signal's reason, as fetch does.
 */
export function createResilientFetch(options: ResilientFetchOptions = {}): FetchFunction {
  const policy = retryPolicy(options.retry);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const random = options.random ?? Math.random;
  return async (request) => {
    // Late-bound: a test or an app that replaces globalThis.fetch after the client was made is still heard.
    const fetchOnce: FetchFunction = options.fetch ?? ((input) => globalThis.fetch(input));
    const retries = IDEMPOTENT.has(request.method.toUpperCase()) ? policy.retries : 0;
    const started = Date.now();
    for (let retry = 1; ; retry += 1) {
      let response: Response | undefined;
      let failure: NetworkError | undefined;
      try {
        response = await attempt(fetchOnce, request, timeoutMs);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        failure = error;
      }
      if (response && !policy.statuses.includes(response.status)) return response;
      const retryAfter = response?.headers.get('retry-after') ?? null;
      const delay =
        retry > retries
          ? undefined
          : retryDelay(retry, parseRetryAfter(retryAfter, Date.now()), policy, random);
      if (delay === undefined || Date.now() + delay - started > policy.maxElapsedMs) {
        if (response) return response;
        throw failure;
      }
      await pause(delay, request.signal);
    }
  };
}

/** One attempt: the request under a signal of its own that the caller's signal and the timer both abort. */
async function attempt(fetchOnce: FetchFunction, request: Request, timeoutMs: number): Promise<Response> {
  const caller = request.signal;
  if (caller.aborted) throw caller.reason;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(caller.reason);
  caller.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new TimeoutError(request.method, request.url, timeoutMs));
        }, timeoutMs)
      : undefined;
  try {
    const answer = await fetchOnce(new Request(request, { signal: controller.signal }));
    const body = NULL_BODY.has(answer.status) ? null : await answer.arrayBuffer();
    return new Response(body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  } catch (error) {
    if (timedOut) throw new TimeoutError(request.method, request.url, timeoutMs);
    if (caller.aborted) throw caller.reason;
    throw new NetworkError(request.method, request.url, error);
  } finally {
    clearTimeout(timer);
    caller.removeEventListener('abort', onAbort);
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (no timer is left behind). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
