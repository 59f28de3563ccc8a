import { Metadata } from '@grpc/grpc-js';
import {
  Answer,
  AnswerCache,
  AnswerSource,
  answerKey,
  cacheHeaders,
  etagOf,
  notModified,
} from './answer-cache';

function deferred(): { promise: Promise<Answer>; resolve: (a: Answer) => void; reject: (e: Error) => void } {
  let resolve!: (a: Answer) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<Answer>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const answer = (body: string): Answer => ({ status: 200, headers: { 'x-cosmos-block-height': '7' }, body });

describe('AnswerCache', () => {
  let now: number;
  let seen: AnswerSource[];
  const cache = (latestTtlMs: number, maxBytes = 1_000): AnswerCache =>
    new AnswerCache({ latestTtlMs, maxBytes, now: () => now, observe: (source) => seen.push(source) });

  beforeEach(() => {
    now = 1_000_000;
    seen = [];
  });

  it('joins identical questions asked while the first is in flight: one call, one answer for all', async () => {
    const answers = cache(0);
    const upstream = deferred();
    let calls = 0;
    const call = (): Promise<Answer> => {
      calls += 1;
      return upstream.promise;
    };
    const all = Promise.all([1, 2, 3].map(() => answers.lookup('k', false, call)));
    upstream.resolve(answer('{"a":1}'));
    const results = await all;
    expect(calls).toBe(1);
    expect(results.map((r) => [r.source, r.answer.body, r.freshForMs])).toEqual([
      ['miss', '{"a":1}', 0],
      ['coalesced', '{"a":1}', 0],
      ['coalesced', '{"a":1}', 0],
    ]);
    expect(seen).toEqual(['miss', 'coalesced', 'coalesced']);
    // Not kept (TTL 0): the next question calls again.
    await answers.lookup('k', false, () => Promise.resolve(answer('{"a":2}')));
    expect(seen[3]).toBe('miss');
  });

  it('shares an error with the questions that joined the call, and keeps nothing of it', async () => {
    const answers = cache(60_000);
    const upstream = deferred();
    const first = answers.lookup('k', false, () => upstream.promise);
    const second = answers.lookup('k', false, () => Promise.resolve(answer('never')));
    upstream.reject(new Error('node down'));
    await expect(first).rejects.toThrow('node down');
    await expect(second).rejects.toThrow('node down');
    const after = await answers.lookup('k', false, () => Promise.resolve(answer('{}')));
    expect(after.source).toBe('miss');
  });

  it('keeps a latest-height answer for the TTL, then asks again', async () => {
    const answers = cache(1_000);
    await answers.lookup('k', false, () => Promise.resolve(answer('{"v":1}')));
    now += 999;
    const hit = await answers.lookup('k', false, () => Promise.resolve(answer('{"v":2}')));
    expect([hit.source, hit.answer.body, hit.freshForMs]).toEqual(['hit', '{"v":1}', 1]);
    now += 1;
    const expired = await answers.lookup('k', false, () => Promise.resolve(answer('{"v":2}')));
    expect([expired.source, expired.answer.body]).toEqual(['miss', '{"v":2}']);
    expect(answers.bytesKept).toBe('{"v":2}'.length);
  });

  it('keeps a height-pinned answer for good, even with the latest TTL at 0', async () => {
    const answers = cache(0);
    await answers.lookup('k', true, () => Promise.resolve(answer('{"h":1}')));
    now += 365 * 24 * 3600 * 1000;
    const hit = await answers.lookup('k', true, () => Promise.resolve(answer('other')));
    expect([hit.source, hit.answer.body, hit.freshForMs]).toEqual(['hit', '{"h":1}', Infinity]);
  });

  it('pushes the least recently used answers out past the byte budget, and never keeps one bigger than it', async () => {
    const answers = cache(60_000, 10);
    await answers.lookup('a', true, () => Promise.resolve(answer('aaaa')));
    await answers.lookup('b', true, () => Promise.resolve(answer('bbbb')));
    await answers.lookup('a', true, () => Promise.resolve(answer('never')));
    await answers.lookup('c', true, () => Promise.resolve(answer('cccc')));
    expect(answers.bytesKept).toBe(8);
    expect((await answers.lookup('a', true, () => Promise.resolve(answer('new')))).source).toBe('hit');
    expect((await answers.lookup('b', true, () => Promise.resolve(answer('bbbb')))).source).toBe('miss');
    await answers.lookup('big', true, () => Promise.resolve(answer('x'.repeat(11))));
    expect((await answers.lookup('big', true, () => Promise.resolve(answer('x')))).source).toBe('miss');
    expect(cache(60_000, 0).bytesKept).toBe(0);
  });

  it('gives each kept answer a strong ETag of its body', async () => {
    const answers = cache(60_000);
    const { answer: kept } = await answers.lookup('k', false, () => Promise.resolve(answer('{"a":1}')));
    expect(kept.etag).toBe(etagOf('{"a":1}'));
    expect(kept.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf('{"a":2}')).not.toBe(kept.etag);
  });
});

describe('answerKey', () => {
  const metadata = (entries: Record<string, string>): Metadata => {
    const m = new Metadata();
    for (const [k, v] of Object.entries(entries)) m.set(k, v);
    return m;
  };
  const payload = Buffer.from([1, 2, 3]);

  it('ignores what differs on every request (request id, trace context), not what the node may answer on', () => {
    const base = answerKey('/s/M', payload, metadata({ 'x-request-id': 'a', traceparent: '00-1' }));
    expect(answerKey('/s/M', payload, metadata({ 'x-request-id': 'b' }))).toBe(base);
    expect(answerKey('/s/M', payload, metadata({ 'x-cosmos-block-height': '5' }))).not.toBe(base);
    expect(answerKey('/s/M', payload, metadata({ authorization: 'Bearer x' }))).not.toBe(base);
    expect(answerKey('/s/M', payload, metadata({ tenant: 'acme' }))).not.toBe(base);
    expect(answerKey('/s/N', payload, metadata({}))).not.toBe(base);
    expect(answerKey('/s/M', Buffer.from([1, 2]), metadata({}))).not.toBe(base);
  });

  it('does not depend on the order of the metadata', () => {
    expect(answerKey('/s/M', payload, metadata({ a: '1', b: '2' }))).toBe(
      answerKey('/s/M', payload, metadata({ b: '2', a: '1' })),
    );
  });
});

describe('cacheHeaders and notModified', () => {
  const lookup = (freshForMs: number) => ({
    answer: { status: 200, headers: {}, body: '{}', etag: '"abc"' },
    source: 'miss' as const,
    freshForMs,
  });

  it.each([
    [Infinity, true, true, 'public, max-age=31536000, immutable'],
    [0, true, false, 'private, max-age=31536000, immutable'],
    [4_999, false, true, 'public, max-age=4'],
    [999, false, true, 'public, no-cache'],
    [0, false, false, 'private, no-cache'],
  ])('fresh for %d ms, pinned %s, shared %s → %s', (fresh, pinned, shared, control) => {
    expect(cacheHeaders(lookup(fresh), pinned, shared)).toEqual({
      etag: '"abc"',
      'cache-control': control,
      vary: 'x-cosmos-block-height',
    });
  });

  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['*', true],
    ['"abcd"', false],
  ])('If-None-Match %s → %s', (header, expected) => {
    expect(notModified(header, '"abc"')).toBe(expected);
  });
});
