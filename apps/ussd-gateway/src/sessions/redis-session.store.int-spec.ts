import { once } from 'node:events';
import Redis from 'ioredis';
import { createTestRedisNamespace, startFaultProxy, TEST_REDIS_URL, TestRedisNamespace } from '@dmrv/testing';
import { createRedisClient } from '../redis/redis.module';
import { initialState } from '../menus/menu-machine';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import { RateLimitCount, RedisRateLimitStorage } from '../rate-limit/rate-limit.storage';
import { RedisSessionStore } from './redis-session.store';
import { SessionBusyError, SessionLockLostError, SessionRecord } from './session-store';

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

describe('RedisSessionStore', () => {
  let namespace: TestRedisNamespace;
  let redis: Redis;
  let store: RedisSessionStore;

  beforeAll(() => {
    namespace = createTestRedisNamespace('ussd-sessions');
    redis = new Redis(TEST_REDIS_URL);
    store = new RedisSessionStore(redis, namespace.keyPrefix);
  });

  afterAll(async () => {
    await namespace.cleanup();
    redis.disconnect();
  });

  it('writes one expiring key per session and lists active ones from the index', async () => {
    await store.save(record('a'), 180);
    await store.save(record('b'), 60);
    await store.save(record('c', 'ended'), 180);
    expect(await redis.ttl(`${namespace.keyPrefix}session:a`)).toBeGreaterThan(170);
    expect(await store.get('a')).toEqual(record('a'));
    expect(await store.get('missing')).toBeNull();
    expect(await store.listActive(10)).toEqual(['b', 'a']);
    await store.save(record('a', 'ended'), 180);
    expect(await store.listActive(10)).toEqual(['b']);
  });

  it('drops sessions whose key expired from the list', async () => {
    let now = Date.now();
    const clocked = new RedisSessionStore(redis, `${namespace.keyPrefix}clock:`, () => now);
    await clocked.save(record('old'), 10);
    now += 11_000;
    expect(await clocked.listActive(10)).toEqual([]);
    // Writes trim the index too, so it does not grow with sessions nobody lists.
    await clocked.save(record('older'), 10);
    now += 11_000;
    await clocked.save(record('new'), 180);
    expect(await redis.zrange(`${namespace.keyPrefix}clock:sessions:active`, 0, -1)).toEqual(['new']);
  });

  it('reads, writes and unlocks a session in one hop, and leaves it untouched when the work fails', async () => {
    const options = { waitMs: 500, ttlSeconds: 120 };
    await expect(store.withSession('w', options, async (found) => ({ value: found }))).resolves.toBeNull();
    await store.withSession('w', options, async () => ({ value: 'saved', save: record('w') }));
    expect(await redis.ttl(`${namespace.keyPrefix}session:w`)).toBeGreaterThan(110);
    expect(await redis.exists(`${namespace.keyPrefix}lock:w`)).toBe(0);
    await expect(
      store.withSession('w', options, async () => {
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await redis.exists(`${namespace.keyPrefix}lock:w`)).toBe(0);
    await expect(store.withSession('w', options, async (found) => ({ value: found?.sessionId }))).resolves.toBe('w');
  });

  it('lets one holder at a time work on a session, across store instances', async () => {
    const other = new RedisSessionStore(redis, namespace.keyPrefix);
    let release!: () => void;
    let acquired!: () => void;
    const holding = new Promise<void>((resolve) => (acquired = resolve));
    const first = store.withSession('s', { waitMs: 2000, ttlSeconds: 60 }, async () => {
      acquired();
      await new Promise<void>((resolve) => (release = resolve));
      return { value: 'first', save: record('s') };
    });
    await holding;
    await expect(other.withSession('s', { waitMs: 100, ttlSeconds: 60 }, async () => ({ value: 'second' }))).rejects.toBeInstanceOf(SessionBusyError);
    release();
    await expect(first).resolves.toBe('first');
    await expect(other.withSession('s', { waitMs: 100, ttlSeconds: 60 }, async (found) => ({ value: found?.sessionId }))).resolves.toBe('s');
  });

  it('writes only while the lock is still its own (it expired and another hop took it)', async () => {
    await store.save(record('fenced'), 60);
    const lockKey = `${namespace.keyPrefix}lock:fenced`;
    const late = store.withSession('fenced', { waitMs: 500, ttlSeconds: 60 }, async () => {
      await redis.set(lockKey, 'another-hop', 'PX', 10_000);
      return { value: 'late', save: { ...record('fenced'), serviceCode: '*999#' } };
    });
    await expect(late).rejects.toBeInstanceOf(SessionLockLostError);
    expect(await store.get('fenced')).toEqual(record('fenced'));
    expect(await redis.get(lockKey)).toBe('another-hop');
  });

  it('gives the lock back when the hop runs out of budget, and saves nothing its work returns afterwards', async () => {
    const deadline = new AbortController();
    let finish!: () => void;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const late = store.withSession('abandoned', { waitMs: 2000, ttlSeconds: 60, signal: deadline.signal }, async () => {
      started();
      await new Promise<void>((resolve) => (finish = resolve));
      return { value: 'late', save: record('abandoned') };
    });
    await running;
    deadline.abort(new Error('hop budget spent'));
    // The aggregator's retry gets the session at its first try, while the late hop still runs.
    await expect(store.withSession('abandoned', { waitMs: 1, ttlSeconds: 60 }, async (found) => ({ value: found }))).resolves.toBeNull();
    finish();
    await expect(late).rejects.toThrow('hop budget spent');
    expect(await store.get('abandoned')).toBeNull();
  });

  it('gives back, once Redis answers again, the lock of a hop that failed while it could not be reached', async () => {
    const proxy = await startFaultProxy({ port: Number(new URL(TEST_REDIS_URL).port || 6379) });
    const client = createRedisClient(`redis://${proxy.host}:${proxy.port}/0`, 500);
    try {
      await once(client, 'ready');
      const cut = new RedisSessionStore(client, namespace.keyPrefix);
      const lockKey = `${namespace.keyPrefix}lock:outage`;
      const failed = cut.withSession('outage', { waitMs: 2000, ttlSeconds: 60 }, async () => {
        proxy.setMode({ kind: 'reset' });
        await new Promise((resolve) => client.once('close', resolve));
        throw new Error('the hop failed');
      });
      await expect(failed).rejects.toThrow('the hop failed');
      expect(await redis.exists(lockKey)).toBe(1);
      proxy.setMode({ kind: 'pass' });
      await once(client, 'ready');
      // Sent after the give-back on the same connection, so it sees its effect.
      expect(await client.exists(lockKey)).toBe(0);
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });

  describe('with a rate-limit hit', () => {
    const hit: RateLimitHit = { name: 'default', key: 'default:10.9.0.1', limit: 2, ttlMs: 60_000, blockMs: 30_000 };
    const counts: RateLimitCount[] = [];
    const admit = (count: RateLimitCount) => {
      counts.push(count);
      if (count.isBlocked) throw new Error('refused');
    };

    it('counts once per hop, also when the hop waits for the lock, in the counter the other endpoints use', async () => {
      let release!: () => void;
      let acquired!: () => void;
      const holding = new Promise<void>((resolve) => (acquired = resolve));
      const first = store.withSession('rl', { waitMs: 2000, ttlSeconds: 60, rateLimit: { hit, admit } }, async () => {
        acquired();
        await new Promise<void>((resolve) => (release = resolve));
        return { value: 'first', save: record('rl') };
      });
      await holding;
      let waited!: () => void;
      const secondStarted = new Promise<void>((resolve) => (waited = resolve));
      const second = store.withSession('rl', { waitMs: 2000, ttlSeconds: 60, rateLimit: { hit, admit: (count) => (admit(count), waited()) } }, async (found) => ({
        value: found?.sessionId,
      }));
      await secondStarted;
      release();
      await expect(first).resolves.toBe('first');
      await expect(second).resolves.toBe('rl');
      expect(counts.map((count) => count.totalHits)).toEqual([1, 2]);
      expect(counts[0]).toMatchObject({ isBlocked: false, timeToExpire: 60 });
      const storage = new RedisRateLimitStorage(redis, namespace.keyPrefix);
      await expect(storage.increment(hit.key, hit.ttlMs, 1000, hit.blockMs)).resolves.toMatchObject({ totalHits: 3 });
    });

    it('takes no lock and runs nothing for a request past the limit', async () => {
      const work = jest.fn(async () => ({ value: 'never' }));
      await expect(store.withSession('rl-refused', { waitMs: 500, ttlSeconds: 60, rateLimit: { hit, admit } }, work)).rejects.toThrow('refused');
      expect(work).not.toHaveBeenCalled();
      expect(counts.at(-1)).toMatchObject({ totalHits: 4, isBlocked: true, timeToBlockExpire: 30 });
      expect(await redis.exists(`${namespace.keyPrefix}lock:rl-refused`)).toBe(0);
      expect(await redis.pttl(`${namespace.keyPrefix}rl:${hit.key}:block`)).toBeGreaterThan(29_000);
    });
  });
});
