import { ListOperationId, OPERATION_PATHS, Operations, RegistryOperations } from './generated';

export interface RegistryClientOptions {
  /** The API's base URL, up to and including `/v1` (e.g. `https://registry.example.org/v1`). */
  baseUrl: string;
  clientId: string;
  secret: string;
  /** Defaults to the global `fetch` (Node 18+). */
  fetch?: typeof fetch;
}

/** An answer other than 200, with the status and the `{ message }` body the API sends. */
export class RegistryApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
    this.name = 'RegistryApiError';
  }
}

/** The item type of a collection operation. */
export type ItemOf<K extends ListOperationId> = Operations[K]['response'] extends { data: Array<infer T> }
  ? T
  : never;

/**
 * The registry data API over `fetch`: one typed method per operation (generated from the OpenAPI document), and
 * `paginate` to walk a `/list` collection by its cursors.
 */
export class RegistryClient extends RegistryOperations {
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly fetch: typeof fetch;

  constructor(options: RegistryClientOptions) {
    super();
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${options.clientId}:${options.secret}`).toString('base64')}`;
    this.fetch = options.fetch ?? fetch;
  }

  /**
   * Every item of a collection, page after page: the first page is read with `query`, each later one with the same
   * filters and the previous page's `next_cursor`, until a page says there is no more.
   */
  async *paginate<K extends ListOperationId>(
    operationId: K,
    query?: Omit<Operations[K]['query'], 'cursor'>,
  ): AsyncGenerator<ItemOf<K>> {
    let cursor: string | undefined;
    do {
      const pageQuery = { ...query, ...(cursor === undefined ? {} : { cursor }) } as Operations[K]['query'];
      const page = (await this.request(operationId, pageQuery)) as unknown as {
        data: Array<ItemOf<K>>;
        page_info: { next_cursor: string | null; has_more: boolean };
      };
      yield* page.data;
      cursor =
        page.page_info.has_more && page.page_info.next_cursor !== null
          ? page.page_info.next_cursor
          : undefined;
    } while (cursor !== undefined);
  }

  protected async request<K extends keyof Operations>(
    operationId: K,
    query: Operations[K]['query'] | undefined,
  ): Promise<Operations[K]['response']> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) search.append(name, String(value));
    }
    const text = search.toString();
    const url = `${this.baseUrl}${OPERATION_PATHS[operationId]}${text ? `?${text}` : ''}`;
    const response = await this.fetch(url, {
      headers: { authorization: this.authorization, accept: 'application/json' },
    });
    const body = (await response.json().catch(() => null)) as unknown;
    if (response.status !== 200) {
      const message =
        body && typeof body === 'object' && 'message' in body
          ? String(body.message)
          : `HTTP ${response.status}`;
      const retryAfter = response.headers.get('retry-after');
      throw new RegistryApiError(response.status, message, retryAfter === null ? null : Number(retryAfter));
    }
    return body as Operations[K]['response'];
  }
}
