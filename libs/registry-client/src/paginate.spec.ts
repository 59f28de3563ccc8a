import { followPages, RepeatedCursorError } from './paginate';

type Answer = { data: string[]; page_info: { next_cursor: string | null; has_more: boolean; limit: number } };

/** A collection served `limit` at a time, the cursor being the index of the next item, as text. */
function collectionOf(items: string[]) {
  const asked: Record<string, unknown>[] = [];
  const fetchPage = async (query: Record<string, unknown>): Promise<Answer> => {
    asked.push(query);
    const limit = Number(query.limit ?? 50);
    const start = query.cursor === undefined ? 0 : Number(query.cursor);
    const more = start + limit < items.length;
    return {
      data: items.slice(start, start + limit),
      page_info: { next_cursor: more ? String(start + limit) : null, has_more: more, limit },
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
  it('yields each page with the cursor that asked for it and its next_cursor, until there is none', async () => {
    const collection = collectionOf(['a', 'b', 'c', 'd', 'e']);
    const pages = await all(followPages('/x/list', { pageSize: 2 }, collection.fetchPage));
    expect(pages.map((page) => [page.data.data, page.cursor, page.nextCursor])).toEqual([
      [['a', 'b'], null, '2'],
      [['c', 'd'], '2', '4'],
      [['e'], '4', null],
    ]);
  });

  it('starts at a saved cursor, keeps the filters on every page and replaces a cursor in them', async () => {
    const collection = collectionOf(['a', 'b', 'c', 'd', 'e']);
    const query = { cursor: 'stale', project_id: 'p' };
    const pages = await all(
      followPages('/x/list', { pageSize: 2, cursor: '2', query }, collection.fetchPage),
    );
    expect(pages.flatMap((page) => page.data.data)).toEqual(['c', 'd', 'e']);
    expect(collection.asked).toEqual([
      { project_id: 'p', limit: 2, cursor: '2' },
      { project_id: 'p', limit: 2, cursor: '4' },
    ]);
  });

  it('ends at has_more false even with a cursor, and at an empty next_cursor', async () => {
    const last = await all(
      followPages('/x/list', {}, async () => ({
        data: [],
        page_info: { next_cursor: 'x', has_more: false },
      })),
    );
    const empty = await all(
      followPages('/x/list', {}, async () => ({ data: [], page_info: { next_cursor: '', has_more: true } })),
    );
    expect([last.length, last[0]!.nextCursor, empty.length, empty[0]!.nextCursor]).toEqual([
      1,
      null,
      1,
      null,
    ]);
  });

  it('stops with RepeatedCursorError when a page answers the cursor it was asked with (it would loop forever)', async () => {
    const stuck = async () => ({ data: ['a'], page_info: { next_cursor: 'c', has_more: true } });
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const page of followPages('/x/list', {}, stuck)) seen.push(page.cursor);
      })(),
    ).rejects.toThrow(new RepeatedCursorError('/x/list', 'c'));
    expect(seen).toEqual([null]);
  });
});
