import { Metadata } from '@grpc/grpc-js';
import {
  Answer,
  AnswerCache,
  AnswerSource,
  answerKey,
  entryBytes,
  etagOf,
  notModified,
  StoredAnswer,
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
const stored = (body: string): StoredAnswer => ({ ...answer(body), etag: etagOf(body) });

describe('AnswerCache', () => {
  let now: number;
  let seen: AnswerSource[];
  const cache = (latestTtlMs: number, maxBytes = 100_000): AnswerCache =>
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
    const all = Promise.all([1, 2, 3].map(() => answers.lookup('k', 'latest', call)));
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
    await answers.lookup('k', 'latest', () => Promise.resolve(answer('{"a":2}')));
    expect(seen[3]).toBe('miss');
  });

  it('shares an error with the questions that joined the call, and keeps nothing of it', async () => {
    const answers = cache(60_000);
    const upstream = deferred();
    const first = answers.lookup('k', 'latest', () => upstream.promise);
    const second = answers.lookup('k', 'latest', () => Promise.resolve(answer('never')));
    upstream.reject(new Error('node down'));
    await expect(first).rejects.toThrow('node down');
    await expect(second).rejects.toThrow('node down');
    const after = await answers.lookup('k', 'latest', () => Promise.resolve(answer('{}')));
    expect(after.source).toBe('miss');
  });

  it('keeps a latest-height answer for the TTL, then asks again', async () => {
    const answers = cache(1_000);
    await answers.lookup('k', 'latest', () => Promise.resolve(answer('{"v":1}')));
    now += 999;
    const hit = await answers.lookup('k', 'latest', () => Promise.resolve(answer('{"v":2}')));
    expect([hit.source, hit.answer.body, hit.freshForMs]).toEqual(['hit', '{"v":1}', 1]);
    now += 1;
    const expired = await answers.lookup('k', 'latest', () => Promise.resolve(answer('{"v":2}')));
    expect([expired.source, expired.answer.body]).toEqual(['miss', '{"v":2}']);
    expect(answers.bytesKept).toBe(entryBytes('k', stored('{"v":2}')));
  });

  it('keeps a height-pinned answer for good, even with the latest TTL at 0', async () => {
    const answers = cache(0);
    await answers.lookup('k', 'pinned', () => Promise.resolve(answer('{"h":1}')));
    now += 365 * 24 * 3600 * 1000;
    const hit = await answers.lookup('k', 'pinned', () => Promise.resolve(answer('other')));
    expect([hit.source, hit.answer.body, hit.freshForMs]).toEqual(['hit', '{"h":1}', Infinity]);
  });

  it('pushes the least recently used answers out past the byte bound, and never keeps one bigger than it', async () => {
    const size = entryBytes('a', stored('aaaa'));
    const answers = cache(60_000, 2 * size);
    await answers.lookup('a', 'pinned', () => Promise.resolve(answer('aaaa')));
    await answers.lookup('b', 'pinned', () => Promise.resolve(answer('bbbb')));
    await answers.lookup('a', 'pinned', () => Promise.resolve(answer('never')));
    await answers.lookup('c', 'pinned', () => Promise.resolve(answer('cccc')));
    expect([answers.bytesKept, answers.entriesKept]).toEqual([2 * size, 2]);
    expect((await answers.lookup('a', 'pinned', () => Promise.resolve(answer('new')))).source).toBe('hit');
    expect((await answers.lookup('b', 'pinned', () => Promise.resolve(answer('bbbb')))).source).toBe('miss');
    await answers.lookup('big', 'pinned', () => Promise.resolve(answer('x'.repeat(2 * size))));
    expect((await answers.lookup('big', 'pinned', () => Promise.resolve(answer('x')))).source).toBe('miss');
    const none = cache(60_000, 0);
    await none.lookup('a', 'pinned', () => Promise.resolve(answer('aaaa')));
    expect([none.bytesKept, none.entriesKept]).toEqual([0, 0]);
  });

  it('reports each answer dropped for room at the byte bound, and none that merely expired or replaced its own key', async () => {
    const size = entryBytes('a', stored('aaaa'));
    let evicted = 0;
    const answers = new AnswerCache({
      latestTtlMs: 1_000,
      maxBytes: 2 * size,
      now: () => now,
      evicted: () => (evicted += 1),
    });
    await answers.lookup('a', 'latest', () => Promise.resolve(answer('aaaa')));
    await answers.lookup('b', 'pinned', () => Promise.resolve(answer('bbbb')));
    expect(evicted).toBe(0);
    now += 1_000;
    await answers.lookup('c', 'pinned', () => Promise.resolve(answer('cccc')));
    expect(evicted).toBe(0);
    await answers.lookup('d', 'pinned', () => Promise.resolve(answer('dddd')));
    await answers.lookup('e', 'pinned', () => Promise.resolve(answer('eeee')));
    expect([evicted, answers.entriesKept]).toEqual([2, 2]);
  });

  it('counts keys and headers in the bound, not only bodies: unique 8 KB questions never hold more than it', async () => {
    const maxBytes = 256 * 1024;
    const answers = cache(60_000, maxBytes);
    const pad = 'p'.repeat(8 * 1024);
    let kept = 0;
    for (let i = 0; i < 400; i += 1) {
      const key = `/ixo.token.v1beta1.Query/Params\n\nx-pad=${pad}${i}`;
      const big: Answer = {
        status: 200,
        headers: { 'grpc-metadata-x-echo-x-pad': `${pad}${i}` },
        body: '{}',
      };
      await answers.lookup(key, i % 2 === 0 ? 'pinned' : 'latest', () => Promise.resolve(big));
      expect(answers.bytesKept).toBeLessThanOrEqual(maxBytes);
      kept = Math.max(kept, answers.entriesKept);
    }
    // Each entry holds two 8 KB strings: about 15 fit, whatever their bodies weigh.
    expect(kept).toBeLessThanOrEqual(maxBytes / (16 * 1024));
    expect(answers.entriesKept).toBeGreaterThan(0);
    expect(answers.bytesKept).toBeGreaterThan(answers.entriesKept * 16 * 1024);
  });

  it('counts a string with characters above U+00FF at two bytes per character, as V8 stores it', () => {
    const latin = entryBytes('k', stored('é'.repeat(100)));
    const wide = entryBytes('k', stored('€'.repeat(100)));
    expect(wide - latin).toBe(100);
  });

  it('drops expired latest-height answers on the next lookup of any question, and on evictExpired', async () => {
    const answers = cache(1_000);
    await answers.lookup('a', 'latest', () => Promise.resolve(answer('{"a":1}')));
    await answers.lookup('p', 'pinned', () => Promise.resolve(answer('{"p":1}')));
    now += 500;
    await answers.lookup('b', 'latest', () => Promise.resolve(answer('{"b":1}')));
    now += 500;
    await answers.lookup('c', 'latest', () => Promise.resolve(answer('{"c":1}')));
    expect(answers.entriesKept).toBe(3);
    expect(answers.bytesKept).toBe(
      entryBytes('p', stored('{"p":1}')) +
        entryBytes('b', stored('{"b":1}')) +
        entryBytes('c', stored('{"c":1}')),
    );
    now += 1_000;
    answers.evictExpired();
    expect([answers.entriesKept, answers.bytesKept]).toEqual([1, entryBytes('p', stored('{"p":1}'))]);
  });

  it('keeps nothing of an answer whose retention is none, yet joins identical questions in flight', async () => {
    const answers = cache(60_000);
    const upstream = deferred();
    let calls = 0;
    const call = (): Promise<Answer> => {
      calls += 1;
      return upstream.promise;
    };
    const both = Promise.all([answers.lookup('k', 'none', call), answers.lookup('k', 'none', call)]);
    upstream.resolve(answer('{"n":1}'));
    expect((await both).map((r) => [r.source, r.freshForMs])).toEqual([
      ['miss', 0],
      ['coalesced', 0],
    ]);
    expect([calls, answers.entriesKept, answers.bytesKept]).toEqual([1, 0, 0]);
  });

  it('gives each kept answer a strong ETag of its body', async () => {
    const answers = cache(60_000);
    const { answer: kept } = await answers.lookup('k', 'latest', () => Promise.resolve(answer('{"a":1}')));
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

describe('notModified', () => {
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
