/** When a failed attempt is tried again. Only idempotent requests (GET, HEAD) are retried. */
export interface RetryOptions {
  /** Attempts after the first one (0: none). */
  retries: number;
  /** Statuses worth another attempt: too many requests, and unavailable for now. */
  statuses: readonly number[];
  /** The first wait without a `Retry-After`; it doubles with each retry, each wait a random value between half and all of it. */
  minDelayMs: number;
  /** The longest wait: a `Retry-After` longer than this is not waited for (the error carries it as `retryAfterMs`). */
  maxDelayMs: number;
  /** No retry starts later than this after the first attempt began: the bound on the whole call, waits included. */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  retries: 2,
  statuses: [429, 503],
  minDelayMs: 250,
  maxDelayMs: 10_000,
  maxElapsedMs: 30_000,
};

/** `false` turns retries off; a partial policy is completed from the defaults. */
export function retryPolicy(options: Partial<RetryOptions> | false | undefined): RetryOptions {
  return options === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options };
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) as milliseconds from `now`: delay-seconds, or an HTTP date (a date in the past is 0).
 * Anything else is no hint.
 */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and its zone (`Wed, 21 Oct 2015 07:28:00 GMT`); a bare number with a sign or a
  // fraction is not one, though Date.parse would read some of them.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * How long to wait before retry number `retry` (1 for the first), or undefined for no retry: the server's
 * `Retry-After` when it gave one and it is within `maxDelayMs`, else exponential backoff with jitter.
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  policy: RetryOptions,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined) return retryAfterMs <= policy.maxDelayMs ? retryAfterMs : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
