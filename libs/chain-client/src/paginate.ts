/** One page of a list route, with the cursors to come back to it or to go on after it. */
export interface Page<Answer> {
  /** The answer as the gateway printed it (the list, and `pagination` with `next_key` and `total`). */
  data: Answer;
  /** The `pagination.key` this page was asked with; null for the first page. Resuming from it reads this page again. */
  cursor: string | null;
  /** This page's `next_key`: the cursor of the next page, null on the last one. Saved, it resumes after this page. */
  nextCursor: string | null;
}

export interface PageQuery {
  pageSize?: number;
  cursor?: string | null;
  params?: { path?: unknown; query?: Record<string, unknown> };
}

type PageAnswer = { pagination?: { next_key?: string | null } | null };

/** A repeated `next_key` would read the same page forever: the request did not carry the key it was given. */
export class RepeatedCursorError extends Error {
  override readonly name = 'RepeatedCursorError';

  constructor(
    readonly path: string,
    readonly cursor: string,
  ) {
    super(
      `${path}: the page asked with pagination.key ${cursor} answered the same next_key; its next page would repeat it`,
    );
  }
}

/**
 * Follows `next_key` from `query.cursor` (or the first page) to the last page, one request per page. `next_key` is
 * base64 text and goes back as `pagination.key` as it came (the gateway and a node take base64): decoding it to bytes
 * is for a client that sends bytes. The caller's `pagination.key` and `pagination.offset` are replaced (a key with an
 * offset is refused by the chain).
 */
export async function* followPages<Answer>(
  path: string,
  query: PageQuery,
  fetchPage: (params: { path?: unknown; query: Record<string, unknown> }) => Promise<Answer>,
): AsyncGenerator<Page<Answer>, void, undefined> {
  let cursor = query.cursor || null;
  for (;;) {
    const { 'pagination.key': _key, 'pagination.offset': _offset, ...rest } = query.params?.query ?? {};
    const pageQuery: Record<string, unknown> = { ...rest };
    if (query.pageSize !== undefined) pageQuery['pagination.limit'] = String(query.pageSize);
    if (cursor !== null) pageQuery['pagination.key'] = cursor;
    const data = await fetchPage({ path: query.params?.path, query: pageQuery });
    // A node prints an empty next_key as null (Go's nil slice); "" is taken the same way.
    const nextCursor = (data as PageAnswer).pagination?.next_key || null;
    if (nextCursor !== null && nextCursor === cursor) throw new RepeatedCursorError(path, cursor);
    yield { data, cursor, nextCursor };
    if (nextCursor === null) return;
    cursor = nextCursor;
  }
}
