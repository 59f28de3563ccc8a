import { createResilientFetch, type FetchFunction, type ResilientFetchOptions } from './resilient-fetch.js';

/** What a caller may set on one call of a client built on openapi-fetch and the resilient fetch. */
export interface CallOptions {
  /** Aborts the call, waits between retries included; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's timeout per attempt, instead of the client's. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/**
 * openapi-fetch's request options for one call: its headers and signal and, when it sets its own timeout, a fetch
 * with the client's settings (retries included) but that timeout.
 */
export function callRequestOptions(
  call: CallOptions,
  clientFetch: ResilientFetchOptions,
): { headers?: Record<string, string>; signal?: AbortSignal; fetch?: FetchFunction } {
  return {
    headers: call.headers,
    signal: call.signal,
    ...(call.timeoutMs === undefined
      ? {}
      : { fetch: createResilientFetch({ ...clientFetch, timeoutMs: call.timeoutMs }) }),
  };
}
