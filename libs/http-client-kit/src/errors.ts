import { parseRetryAfter } from './retry-policy.js';

/**
 * The server answered with a status outside 2xx (after any retries). `body` is the answer as JSON when it parses, else
 * its text; `retryAfterMs` is the server's `Retry-After` hint, in seconds or as an HTTP date, as milliseconds from now.
 */
export class HttpError<Body = unknown> extends Error {
  override readonly name = 'HttpError';
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly headers: Headers,
    readonly body: Body | undefined,
  ) {
    super(`${method} ${url}: ${status}${bodyMessage(body)}`);
    this.retryAfterMs = parseRetryAfter(headers.get('retry-after'), Date.now());
  }
}

/** The request did not reach the server, or its answer was cut (connection refused, reset, DNS, TLS). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';

  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${method} ${url}: no answer from the server (${causeText(cause)})`, { cause });
  }
}

/** No complete answer within the timeout (of one attempt). The caller's own abort is not this: it rejects with the signal's reason. */
export class TimeoutError extends Error {
  override readonly name = 'TimeoutError';

  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
  ) {
    super(`${method} ${url}: no complete answer within ${timeoutMs} ms`);
  }
}

function bodyMessage(body: unknown): string {
  if (typeof body === 'string') return body.length > 0 ? ` ${body.slice(0, 200)}` : '';
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string')
    return ` ${(body as { message: string }).message}`;
  return '';
}

/** Node's fetch says `fetch failed` and keeps the reason (`ECONNREFUSED` …) in its cause. */
// Read by shape, not `instanceof Error`: the error may come from another realm (a worker's, a test sandbox's fetch).
function causeText(cause: unknown): string {
  const error = cause as { message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  if (typeof error?.message !== 'string') return String(cause);
  const inner = error.cause;
  const detail =
    typeof inner?.code === 'string' ? inner.code : typeof inner?.message === 'string' ? inner.message : '';
  return detail ? `${error.message}: ${detail}` : error.message;
}

/** The HttpError for an answer outside 2xx: its body read as JSON when it parses, else as text. */
export async function httpErrorFrom(request: Request, response: Response): Promise<HttpError> {
  const text = await response.clone().text();
  let body: unknown = text.length > 0 ? text : undefined;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the body
  }
  return new HttpError(request.method, request.url, response.status, response.headers, body);
}

/**
 * openapi-fetch middleware (`client.use(throwHttpErrors)`): an answer outside 2xx rejects the call with an
 * {@link HttpError} instead of resolving to `{ error }`, so a caller branches with `instanceof` as for the other errors.
 */
export const throwHttpErrors = {
  async onResponse({ request, response }: { request: Request; response: Response }): Promise<undefined> {
    if (!response.ok) throw await httpErrorFrom(request, response);
    return undefined;
  },
};
