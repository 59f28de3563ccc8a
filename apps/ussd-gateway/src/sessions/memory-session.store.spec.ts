import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { initialState } from '../menus/menu-machine';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import { MemorySessionStore } from './memory-session.store';
import { SessionBusyError, SessionRecord } from './session-store';

const record = (sessionId: string, status: SessionRecord['status'] = 'active'): SessionRecord => ({
  sessionId,
  phoneNumber: '+254700000001',
  serviceCode: '*123#',
  state: initialState(),
  consumed: { length: 0, digest: '' },
  status,
  replies: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('MemorySessionStore', () => {
  it('expires records after their TTL and lists only active ones', async () => {
    let now = 0;
    const store = new MemorySessionStore(() => now);
    await store.save(record('a'), 180);
    await store.save(record('b', 'ended'), 180);
    now = 1000;
    await store.save(record('c'), 10);
    expect(await store.listActive(10)).toEqual(['c', 'a']);
    now = 11_001;
    expect(await store.get('c')).toBeNull();
    expect(await store.listActive(10)).toEqual(['a']);
    expect((await store.get('a'))?.sessionId).toBe('a');
  });

  it('returns copies, never the stored object', async () => {
    const store = new MemorySessionStore();
    await store.save(record('a'), 180);
    const first = await store.get('a');
    first!.status = 'ended';
    expect((await store.get('a'))?.status).toBe('active');
  });

  it('reads and writes a session in one hop, saving nothing when the work fails', async () => {
    const store = new MemorySessionStore();
    const options = { waitMs: 100, ttlSeconds: 60 };
    await expect(store.withSession('w', options, async (found) => ({ value: found }))).resolves.toBeNull();
    await expect(
      store.withSession('w', options, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await store.get('w')).toBeNull();
    await store.withSession('w', options, async () => ({ value: undefined, save: record('w') }));
    await expect(store.withSession('w', options, async (found) => ({ value: found?.sessionId }))).resolves.toBe('w');
  });

  it('runs the work of one session one at a time', async () => {
    const store = new MemorySessionStore();
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    const first = store.withLock('s', 1000, async () => {
      order.push('first:start');
      await firstHolds;
      order.push('first:end');
    });
    const second = store.withLock('s', 1000, async () => {
      order.push('second');
    });
    await Promise.resolve();
    releaseFirst();
    await Promise.all([first, second]);
    expect(order).toEqual(['first:start', 'first:end', 'second']);
  });

  it('gives up with SessionBusyError when the lock is held too long', async () => {
    const store = new MemorySessionStore();
    let release!: () => void;
    const held = store.withLock('s', 1000, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(store.withLock('s', 10, async () => 'never')).rejects.toBeInstanceOf(SessionBusyError);
    release();
    await held;
    await expect(store.withLock('s', 10, async () => 'free')).resolves.toBe('free');
  });

  it('counts the hop in the shared counter before it runs, and a refusal runs nothing', async () => {
    const counter = new MemoryRateLimitStorage();
    const store = new MemorySessionStore(Date.now, counter);
    const hit: RateLimitHit = { name: 'default', key: 'default:10.0.0.1', limit: 2, ttlMs: 60_000, blockMs: 60_000 };
    const counts: RateLimitCount[] = [];
    const admit = (count: RateLimitCount) => {
      counts.push(count);
      if (count.isBlocked) throw new Error('refused');
    };
    const options = { waitMs: 100, ttlSeconds: 60, rateLimit: { hit, admit } };
    await store.withSession('r', options, async () => ({ value: undefined, save: record('r') }));
    await store.withSession('r', options, async () => ({ value: undefined }));
    const work = jest.fn(async () => ({ value: undefined }));
    await expect(store.withSession('r', options, work)).rejects.toThrow('refused');
    expect(work).not.toHaveBeenCalled();
    expect(counts.map((count) => [count.totalHits, count.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    // The same counter the other endpoints are counted in.
    await expect(counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs)).resolves.toMatchObject({ totalHits: 4 });
  });

  it('gives the session back when the hop runs out of budget, and saves nothing its work returns afterwards', async () => {
    const store = new MemorySessionStore();
    const deadline = new AbortController();
    let finish!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const late = store.withSession('late', { waitMs: 100, ttlSeconds: 60, signal: deadline.signal }, async () => {
      started();
      await new Promise<void>((resolve) => (finish = resolve));
      return { value: 'late', save: record('late') };
    });
    await running;
    deadline.abort(new Error('hop budget spent'));
    // The retry is served at once, not after the late hop ends.
    await expect(store.withSession('late', { waitMs: 10, ttlSeconds: 60 }, async (found) => ({ value: found }))).resolves.toBeNull();
    finish();
    await expect(late).rejects.toThrow('hop budget spent');
    expect(await store.get('late')).toBeNull();
  });
});
