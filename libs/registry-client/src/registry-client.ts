import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import {
  callRequestOptions,
  createResilientFetch,
  throwHttpErrors,
  type CallOptions,
  type FetchFunction,
  type RetryOptions,
} from '@dmrv/http-client-kit';

export type { CallOptions };
import { conditionalRequests, type ResponseCache } from './conditional-requests.js';
import type { paths } from './openapi.generated.js';
import { followPages, type Page } from './paginate.js';
import type { ListPath, ListQuery, RegistryAnswer, RegistryPath, RouteParameters } from './routes.js';
import { verifySignatures, type SignatureVerification } from './signature-verification.js';

export interface RegistryClientOptions {
  /** The API's base URL, up to and including its prefix: `https://registry.example.org/v1`. */
  baseUrl: string;
  /** The API client's id and secret, sent as HTTP Basic credentials. */
  credentials?: { clientId: string; secret: string };
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** How long one attempt may take, its whole answer read (default 10 000; 0 for no limit). */
  timeoutMs?: number;
  /** Retries of GETs on 429, 503 and network errors with backoff and jitter, honouring `Retry-After`; `false`: none. */
  retry?: Partial<RetryOptions> | false;
  /** Conditional requests: answers kept by their ETag and asked again with `If-None-Match`. Off by default. */
  cache?: ResponseCache;
  /** Verify every answer's signature against these keys; unverified answers reject the call. Off by default. */
  verifySignatures?: SignatureVerification;
  /** The fetch underneath (the global one by default). */
  fetch?: FetchFunction;
}

export interface PageOptions extends CallOptions {
  /** `limit` of every page (the API's default is 50, its maximum 500). */
  pageSize?: number;
  /** A `nextCursor` (or `cursor`) saved from an earlier page: start there instead of at the first page. */
  cursor?: string | null;
}

/** `query` may be left out only where the route requires no parameter. */
export type WithQuery<
  P extends RegistryPath,
  Options,
  Query = RouteParameters<P>['query'],
> = undefined extends RouteParameters<P>['query']
  ? [options?: Options & { query?: Query }]
  : [options: Options & { query: Query }];

export interface RegistryClient {
  /** The answer of a route, typed from the API's OpenAPI document; an answer outside 2xx rejects with an HttpError. */
  get<P extends RegistryPath>(path: P, ...options: WithQuery<P, CallOptions>): Promise<RegistryAnswer<P>>;
  /** Every page of a collection (a `/list` route), following `page_info.next_cursor`, each with its cursor. */
  paginate<P extends ListPath>(
    path: P,
    ...options: WithQuery<P, PageOptions, ListQuery<P>>
  ): AsyncGenerator<Page<RegistryAnswer<P>>, void, undefined>;
  /** The openapi-fetch client underneath (its middleware, other methods), with the same fetch and errors. */
  readonly api: Client<paths>;
}

/** `Basic …` of a client id and secret, UTF-8 as RFC 7617 allows (TextEncoder and btoa: they run wherever fetch does). */
export function basicCredentials(clientId: string, secret: string): string {
  const bytes = new TextEncoder().encode(`${clientId}:${secret}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** A client of the registry data API. */
export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const fetchSettings = { fetch: options.fetch, timeoutMs: options.timeoutMs, retry: options.retry };
  const resilientFetch = createResilientFetch(fetchSettings);
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: {
      accept: 'application/json',
      ...(options.credentials && {
        authorization: basicCredentials(options.credentials.clientId, options.credentials.secret),
      }),
      ...options.headers,
    },
    fetch: resilientFetch,
  });
  // openapi-fetch hands an answer to the middleware last added first: verified as it came, then a 304 made the
  // kept answer, then a status outside 2xx thrown.
  api.use(throwHttpErrors);
  if (options.cache) api.use(conditionalRequests(options.cache));
  if (options.verifySignatures) api.use(verifySignatures(options.verifySignatures, resilientFetch));

  const get = async (path: string, call: CallOptions & { query?: unknown } = {}): Promise<unknown> => {
    const { data } = await api.GET(
      path as never,
      {
        params: { query: call.query },
        ...callRequestOptions(call, fetchSettings),
      } as never,
    );
    return data;
  };

  return {
    api,
    get: ((path: string, call?: CallOptions & { query?: unknown }) =>
      get(path, call)) as RegistryClient['get'],
    paginate: ((path: string, call: PageOptions & { query?: Record<string, unknown> } = {}) =>
      followPages(path, call, (query) => get(path, { ...call, query }))) as RegistryClient['paginate'],
  };
}
