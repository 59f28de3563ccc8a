import { status } from '@grpc/grpc-js';
import { ChainNodeError, DEFAULT_LIMIT, paginate } from './paginate';

const items = Array.from({ length: 250 }, (_, index) => `k${String(index).padStart(3, '0')}`);
const key = (item: string): string => item;

describe('paginate (Cosmos SDK semantics)', () => {
  it('defaults to 100 items and points next_key at the first item of the next page', () => {
    const page = paginate(items, key, undefined);
    expect(page.items).toHaveLength(DEFAULT_LIMIT);
    expect(page.pagination.next_key.toString()).toBe('k100');
    expect(page.pagination.total).toBe('0');
  });

  it('resumes at next_key and ends with an empty key', () => {
    const seen: string[] = [];
    let next: Buffer | undefined;
    do {
      const page = paginate(items, key, { limit: 40, key: next });
      seen.push(...page.items);
      next = page.pagination.next_key.length > 0 ? page.pagination.next_key : undefined;
    } while (next);
    expect(seen).toEqual(items);
  });

  it.each([
    [{ offset: 240, count_total: true }, 10, '250'],
    [{ offset: '5', limit: '3' }, 3, '0'],
    [{ offset: 400 }, 0, '0'],
  ])('pages by offset %j', (request, count, total) => {
    const page = paginate(items, key, request);
    expect(page.items).toHaveLength(count);
    expect(page.pagination.total).toBe(total);
  });

  it('walks in reverse', () => {
    const first = paginate(items, key, { reverse: true, limit: 2 });
    expect(first.items).toEqual(['k249', 'k248']);
    const second = paginate(items, key, { reverse: true, limit: 2, key: first.pagination.next_key });
    expect(second.items).toEqual(['k247', 'k246']);
  });

  it('refuses key and offset together, as the SDK does', () => {
    expect(() => paginate(items, key, { key: Buffer.from('k001'), offset: 2 })).toThrow(ChainNodeError);
    try {
      paginate(items, key, { key: Buffer.from('k001'), offset: 2 });
    } catch (error) {
      expect((error as ChainNodeError).code).toBe(status.INVALID_ARGUMENT);
    }
  });
});
