import createClient from 'openapi-fetch';
import type { Client } from 'openapi-fetch';
import {
  callRequestOptions,
  createResilientFetch,
  HttpError,
  throwHttpErrors,
  type CallOptions,
  type FetchFunction,
  type RetryOptions,
} from '@dmrv/http-client-kit';

export type { CallOptions };
import type { paths } from './openapi.generated.js';
import { followPages, type Page } from './paginate.js';
import type { ChainAnswer, ChainPath, GrpcStatusBody, PagedPath, WithParams } from './routes.js';

export interface ChainClientOptions {
  /** Where the routes start: the gateway's origin (`https://gateway.example.org`), or a node's REST (`…:1317`). */
  baseUrl: string;
  /** Sent with every request: an API key (`{ 'x-api-key': … }`), `x-cosmos-block-height` to pin a height … */
  headers?: Record<string, string>;
  /** How long one attempt may take, its whole answer read (default 15 000; 0 for no limit). */
  timeoutMs?: number;
  /** Retries on 429, 503 and network errors with backoff and jitter, honouring `Retry-After`; `false` for none. */
  retry?: Partial<RetryOptions> | false;
  /** The fetch underneath (the global one by default). */
  fetch?: FetchFunction;
}

export interface PageOptions extends CallOptions {
  /** `pagination.limit` of every page (the chain's default is 100). */
  pageSize?: number;
  /** A `nextCursor` (or `cursor`) saved from an earlier page: start there instead of at the first page. */
  cursor?: string | null;
}

export interface ChainClient {
  /** The answer of a route, typed from the gateway's OpenAPI document; an answer outside 2xx rejects with an HttpError. */
  get<P extends ChainPath>(path: P, ...options: WithParams<P, CallOptions>): Promise<ChainAnswer<P>>;
  /** Every page of a list route, following `next_key`, each with its cursor. */
  paginate<P extends PagedPath>(
    path: P,
    ...options: WithParams<P, PageOptions>
  ): AsyncGenerator<Page<ChainAnswer<P>>, void, undefined>;
  /** The openapi-fetch client underneath (its middleware, `request`, other methods), with the same fetch and errors. */
  readonly api: Client<paths>;
}

/**
 * The default timeout of one attempt: longer than the gateway's default upstream deadline (10 s), so that a slow node
 * gives the caller the gateway's 504 and its message rather than a timeout of our own.
 */
export const CHAIN_TIMEOUT_MS = 15_000;

/** A client of the ixo chain's REST routes (the protocol gateway, or a node's own REST API). */
export function createChainClient(options: ChainClientOptions): ChainClient {
  const fetchSettings = {
    fetch: options.fetch,
    timeoutMs: options.timeoutMs ?? CHAIN_TIMEOUT_MS,
    retry: options.retry,
  };
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.headers,
    fetch: createResilientFetch(fetchSettings),
  });
  api.use(throwHttpErrors);

  const get = async (path: string, call: CallOptions & { params?: unknown } = {}): Promise<unknown> => {
    const { data } = await api.GET(
      path as never,
      {
        params: call.params,
        ...callRequestOptions(call, fetchSettings),
      } as never,
    );
    return data;
  };

  return {
    api,
    get: ((path: string, call?: CallOptions & { params?: unknown }) => get(path, call)) as ChainClient['get'],
    paginate: ((path: string, call: PageOptions & { params?: { query?: Record<string, unknown> } } = {}) =>
      followPages(path, call, (params) => get(path, { ...call, params }))) as ChainClient['paginate'],
  };
}

/** The `{code, message, details}` body of a failed call (an HttpError from the gateway or a node), else undefined. */
export function grpcStatus(error: unknown): GrpcStatusBody | undefined {
  if (!(error instanceof HttpError)) return undefined;
  const body = error.body as Partial<GrpcStatusBody> | undefined;
  return body && typeof body === 'object' && typeof body.code === 'number' && typeof body.message === 'string'
    ? { code: body.code, message: body.message, details: Array.isArray(body.details) ? body.details : [] }
    : undefined;
}
