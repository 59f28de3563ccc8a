export { HttpError, httpErrorFrom, NetworkError, throwHttpErrors, TimeoutError } from './errors.js';
export { DEFAULT_RETRY, parseRetryAfter, retryDelay, retryPolicy } from './retry-policy.js';
export type { RetryOptions } from './retry-policy.js';
export { createResilientFetch, DEFAULT_TIMEOUT_MS } from './resilient-fetch.js';
export type { FetchFunction, ResilientFetchOptions } from './resilient-fetch.js';
export { callRequestOptions } from './call-options.js';
export type { CallOptions } from './call-options.js';
