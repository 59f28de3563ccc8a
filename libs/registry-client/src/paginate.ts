/** One page of a collection, with the cursors to come back to it or to go on after it. */
export interface Page<Answer> {
  /** The answer as the API sent it: `data`, `page_info` and `total_count`. */
  data: Answer;
  /** The `cursor` this page was asked with; null for the first page. Resuming from it reads this page again. */
  cursor: string | null;
  /** This page's `page_info.next_cursor`: null on the last page. Saved, it resumes after this page. */
  nextCursor: string | null;
}

export interface PageQuery {
  pageSize?: number;
  cursor?: string | null;
  query?: Record<string, unknown>;
}

type PageAnswer = { page_info?: { next_cursor?: string | null; has_more?: boolean } | null };

/** A repeated `next_cursor` would read the same page forever: the request did not carry the cursor it was given. */
export class RepeatedCursorError extends Error {
  override readonly name = 'RepeatedCursorError';

  constructor(
    readonly path: string,
    readonly cursor: string,
  ) {
    super(
      `${path}: the page asked with cursor ${cursor} answered the same next_cursor; its next page would repeat it`,
    );
  }
}

/**
 * Follows `page_info.next_cursor` from `query.cursor` (or the first page) to the last page, one request per page,
 * with the caller's filters on every page. The caller's own `cursor` in the query is replaced.
 */
export async function* followPages<Answer>(
  path: string,
  query: PageQuery,
  fetchPage: (query: Record<string, unknown>) => Promise<Answer>,
): AsyncGenerator<Page<Answer>, void, undefined> {
  let cursor = query.cursor || null;
  for (;;) {
    const { cursor: _ignored, ...filters } = query.query ?? {};
    const pageQuery: Record<string, unknown> = { ...filters };
    if (query.pageSize !== undefined) pageQuery.limit = query.pageSize;
    if (cursor !== null) pageQuery.cursor = cursor;
    const data = await fetchPage(pageQuery);
    const info = (data as PageAnswer).page_info;
    const nextCursor = info?.has_more === false ? null : info?.next_cursor || null;
    if (nextCursor !== null && nextCursor === cursor) throw new RepeatedCursorError(path, cursor);
    yield { data, cursor, nextCursor };
    if (nextCursor === null) return;
    cursor = nextCursor;
  }
}
