import { InvalidInputError, NotFoundError } from '@dmrv/errors';
import { renderJson } from '../http/rendered-json';
import { AggregateAnswerCache, aggregateKey } from './aggregate-cache';

describe('aggregateKey', () => {
  it('ignores parameter order and absent parameters', () => {
    expect(aggregateKey('households/stats', { region: 'East', project_id: 'p', extra: undefined })).toBe(
      aggregateKey('households/stats', { project_id: 'p', region: 'East' }),
    );
  });

  it.each([
    [{ region: 'a&b=c' }, { region: 'a', b: 'c' }],
    [{ limit: 5 }, { limit: '5' }],
    [{ region: 'East' }, {}],
  ])('tells %j and %j apart', (a, b) => {
    expect(aggregateKey('x', a)).not.toBe(aggregateKey('x', b));
  });

  it('tells endpoints apart', () => {
    expect(aggregateKey('households/stats', {})).not.toBe(aggregateKey('households/stove-stacking', {}));
  });
});

describe('AggregateAnswerCache', () => {
  let now: number;
  const clock = () => now;
  const cacheOf = (ttlMs: number, maxEntries = 10) =>
    new AggregateAnswerCache({ ttlMs, maxEntries, now: clock });
  const body = (value: unknown) => () => Promise.resolve(value);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('computes once and serves the same rendered body and tag afterwards', async () => {
    const cache = cacheOf(60_000);
    const compute = jest.fn(body({ total: 3 }));
    const first = await cache.getOrCompute('households/stats', { region: 'East' }, compute);
    const second = await cache.getOrCompute('households/stats', { region: 'East' }, compute);
    expect(first).toEqual(renderJson({ total: 3 }));
    expect(second).toBe(first);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('keeps an answer for the TTL counted from when its computation started', async () => {
    const cache = cacheOf(60_000);
    await cache.getOrCompute('k', {}, () => {
      now += 5_000;
      return Promise.resolve(1);
    });
    now += 54_999;
    await expect(cache.getOrCompute('k', {}, body(2))).resolves.toEqual(renderJson(1));
    now += 1;
    await expect(cache.getOrCompute('k', {}, body(2))).resolves.toEqual(renderJson(2));
  });

  it('drops everything on clear()', async () => {
    const cache = cacheOf(60_000);
    await cache.getOrCompute('a', {}, body(1));
    cache.clear();
    expect(cache.size).toBe(0);
    await expect(cache.getOrCompute('a', {}, body(2))).resolves.toEqual(renderJson(2));
  });

  it('does not keep an answer whose computation overlapped a clear()', async () => {
    const cache = cacheOf(60_000);
    let release: (value: unknown) => void = () => undefined;
    const pending = cache.getOrCompute(
      'households/stats',
      {},
      () => new Promise((resolve) => (release = resolve)),
    );
    cache.clear();
    release({ total: 1 });
    await expect(pending).resolves.toEqual(renderJson({ total: 1 }));
    expect(cache.size).toBe(0);
  });

  it('stores nothing with a TTL of 0', async () => {
    const cache = cacheOf(0);
    await cache.getOrCompute('a', {}, body(1));
    expect(cache.size).toBe(0);
  });

  it('stays within its bound, dropping the oldest answer first', async () => {
    const cache = cacheOf(60_000, 2);
    for (const key of ['a', 'b', 'c']) await cache.getOrCompute(key, {}, body(key));
    expect(cache.size).toBe(2);
    await expect(cache.getOrCompute('b', {}, body('other'))).resolves.toEqual(renderJson('b'));
    await expect(cache.getOrCompute('c', {}, body('other'))).resolves.toEqual(renderJson('c'));
    await expect(cache.getOrCompute('a', {}, body('other'))).resolves.toEqual(renderJson('other'));
  });

  it('tells its lookups as hits and misses', async () => {
    const lookups: Array<[string, boolean]> = [];
    const cache = new AggregateAnswerCache({
      ttlMs: 60_000,
      maxEntries: 10,
      onLookup: (endpoint, hit) => lookups.push([endpoint, hit]),
    });
    await cache.getOrCompute('households/stats', {}, body(1));
    await cache.getOrCompute('households/stats', {}, body(1));
    expect(lookups).toEqual([
      ['households/stats', false],
      ['households/stats', true],
    ]);
  });

  it('keeps a 404 and answers it again with the same message', async () => {
    const cache = cacheOf(60_000);
    const compute = jest.fn(() => Promise.reject(new NotFoundError('No project project-zz')));
    for (let i = 0; i < 2; i += 1) {
      await expect(
        cache.getOrCompute('households/stats', { project_id: 'project-zz' }, compute),
      ).rejects.toMatchObject({
        status: 404,
        message: 'No project project-zz',
      });
    }
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['a 400', new InvalidInputError('from must not be after to')],
    ['an unexpected failure', new Error('connection terminated')],
  ])('never keeps %s', async (_label, error) => {
    const cache = cacheOf(60_000);
    const compute = jest.fn(() => Promise.reject(error));
    for (let i = 0; i < 2; i += 1)
      await expect(
        cache.getOrCompute('fuel-usage', { from: '2024-03-01', to: '2024-02-01' }, compute),
      ).rejects.toBe(error);
    expect(compute).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });
});

describe('AggregateAnswerCache: where a kept answer is read', () => {
  it('computes an answer it will keep through readFresh (the primary), and one it will not directly', async () => {
    const fresh: string[] = [];
    const readFresh = <T>(work: () => Promise<T>): Promise<T> => {
      fresh.push('fresh');
      return work();
    };
    await new AggregateAnswerCache({ ttlMs: 60_000, maxEntries: 10, readFresh }).getOrCompute(
      'a',
      {},
      async () => 1,
    );
    expect(fresh).toEqual(['fresh']);
    await new AggregateAnswerCache({ ttlMs: 0, maxEntries: 10, readFresh }).getOrCompute(
      'a',
      {},
      async () => 1,
    );
    expect(fresh).toEqual(['fresh']);
  });
});
