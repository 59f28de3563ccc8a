import { followPages, RepeatedCursorError } from './paginate';

type Answer = { items: string[]; pagination: { next_key: string | null; total: string } | null };

/** A list of 5 keyed items served 2 at a time, as the chain pages: next_key is the first key of the next page. */
function listOf(keys: string[]) {
  const asked: Record<string, unknown>[] = [];
  const fetchPage = async ({ query }: { query: Record<string, unknown> }): Promise<Answer> => {
    asked.push(query);
    const limit = Number(query['pagination.limit'] ?? 100);
    const start =
      query['pagination.key'] === undefined ? 0 : keys.indexOf(atob(String(query['pagination.key'])));
    const next = keys[start + limit];
    return {
      items: keys.slice(start, start + limit),
      pagination: { next_key: next === undefined ? null : btoa(next), total: '0' },
    };
  };
  return { asked, fetchPage };
}

async function all<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('followPages', () => {
  it('yields each page with the cursor that asked for it and its next_key, until next_key is null', async () => {
    const list = listOf(['a', 'b', 'c', 'd', 'e']);
    const pages = await all(followPages('/x', { pageSize: 2 }, list.fetchPage));
    expect(pages.map((page) => [page.data.items, page.cursor, page.nextCursor])).toEqual([
      [['a', 'b'], null, btoa('c')],
      [['c', 'd'], btoa('c'), btoa('e')],
      [['e'], btoa('e'), null],
    ]);
  });

  it('starts at a saved cursor, and replaces the caller’s key and offset, keeping the rest of the query', async () => {
    const list = listOf(['a', 'b', 'c', 'd', 'e']);
    const query = { 'pagination.key': 'stale', 'pagination.offset': '3', 'pagination.reverse': false };
    const pages = await all(
      followPages('/x', { pageSize: 2, cursor: btoa('c'), params: { query } }, list.fetchPage),
    );
    expect(pages.flatMap((page) => page.data.items)).toEqual(['c', 'd', 'e']);
    expect(list.asked[0]).toEqual({
      'pagination.reverse': false,
      'pagination.limit': '2',
      'pagination.key': btoa('c'),
    });
  });

  it('a list without pagination in its answer, or with an empty next_key, is one page', async () => {
    const single = await all(followPages('/x', {}, async () => ({ items: ['a'], pagination: null })));
    const empty = await all(
      followPages('/x', {}, async () => ({ items: ['a'], pagination: { next_key: '', total: '0' } })),
    );
    expect([single.length, single[0]!.nextCursor, empty.length, empty[0]!.nextCursor]).toEqual([
      1,
      null,
      1,
      null,
    ]);
  });

  it('stops with RepeatedCursorError when a page answers the key it was asked with (it would loop forever)', async () => {
    const stuck = async (): Promise<Answer> => ({
      items: ['a'],
      pagination: { next_key: 'YQ==', total: '0' },
    });
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const page of followPages('/x', {}, stuck)) seen.push(page.cursor);
      })(),
    ).rejects.toThrow(RepeatedCursorError);
    expect(seen).toEqual([null]);
  });
});
