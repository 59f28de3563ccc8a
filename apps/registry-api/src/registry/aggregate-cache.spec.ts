import { InvalidInputError, NotFoundError } from '@dmrv/errors';
import { renderJson } from '../http/http-cache';
import { aggregateKey, AggregateAnswers, AggregateCache, CachedAnswer } from './aggregate-cache';

const ok = (body: unknown): CachedAnswer => ({ kind: 'ok', rendered: renderJson(body) });

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

describe('AggregateCache', () => {
  let now: number;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('keeps an answer for the TTL counted from when its computation started', () => {
    const cache = new AggregateCache(60_000, 10, clock);
    const ticket = cache.ticket();
    now += 5_000;
    cache.remember('k', ok(1), ticket);
    now += 54_999;
    expect(cache.get('k')).toEqual(ok(1));
    now += 1;
    expect(cache.get('k')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops everything on clear() and refuses answers computed before it', () => {
    const cache = new AggregateCache(60_000, 10, clock);
    cache.remember('a', ok(1), cache.ticket());
    const inFlight = cache.ticket();
    cache.clear();
    expect(cache.get('a')).toBeUndefined();
    cache.remember('b', ok(2), inFlight);
    expect(cache.get('b')).toBeUndefined();
    cache.remember('b', ok(3), cache.ticket());
    expect(cache.get('b')).toEqual(ok(3));
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new AggregateCache(0, 10, clock);
    cache.remember('a', ok(1), cache.ticket());
    expect(cache.get('a')).toBeUndefined();
  });

  it('stays within its bound, dropping the oldest answer first', () => {
    const cache = new AggregateCache(60_000, 2, clock);
    for (const key of ['a', 'b', 'c']) cache.remember(key, ok(key), cache.ticket());
    expect(cache.size).toBe(2);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toEqual(ok('b'));
    expect(cache.get('c')).toEqual(ok('c'));
  });
});

describe('AggregateAnswers', () => {
  let cache: AggregateCache;
  let answers: AggregateAnswers;

  beforeEach(() => {
    cache = new AggregateCache(60_000, 10);
    answers = new AggregateAnswers(cache);
  });

  it('computes once and serves the same rendered body and tag afterwards', async () => {
    const compute = jest.fn(() => Promise.resolve({ total: 3 }));
    const first = await answers.answer('households/stats', { region: 'East' }, compute);
    const second = await answers.answer('households/stats', { region: 'East' }, compute);
    expect(first).toEqual(renderJson({ total: 3 }));
    expect(second).toBe(first);
    expect(compute).toHaveBeenCalledTimes(1);
  });

  it('keeps a 404 and answers it again with the same message', async () => {
    const compute = jest.fn(() => Promise.reject(new NotFoundError('No project project-zz')));
    for (let i = 0; i < 2; i += 1) {
      await expect(
        answers.answer('households/stats', { project_id: 'project-zz' }, compute),
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
    const compute = jest.fn(() => Promise.reject(error));
    for (let i = 0; i < 2; i += 1)
      await expect(
        answers.answer('fuel-usage', { from: '2024-03-01', to: '2024-02-01' }, compute),
      ).rejects.toBe(error);
    expect(compute).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it('does not keep an answer whose computation overlapped a refresh', async () => {
    let release: (value: unknown) => void = () => undefined;
    const slow = jest.fn(() => new Promise((resolve) => (release = resolve)));
    const pending = answers.answer('households/stats', {}, slow);
    cache.clear();
    release({ total: 1 });
    await expect(pending).resolves.toEqual(renderJson({ total: 1 }));
    expect(cache.size).toBe(0);
  });
});
