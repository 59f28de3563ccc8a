import { once } from 'node:events';
import Redis from 'ioredis';
import { createTestRedisNamespace, startFaultProxy, TEST_REDIS_URL, TestRedisNamespace } from '@dmrv/testing';
import { createRedisClient } from '../redis/redis.module';
import { RedisSessionStore } from './redis-session.store';
import { SessionLockLostError } from './session-store';
import { describeSessionStoreContract, sessionRecord as record } from './session-store.contract';

// The service speaks RESP3 (redis-client.ts); the scripts' replies read the same in RESP2, which a Redis without
// HELLO falls back to.
for (const protocol of [3, 2] as const) {
  describeSessionStoreContract(`RedisSessionStore (RESP${protocol})`, () => {
    const namespace = createTestRedisNamespace(`ussd-store-contract-resp${protocol}`);
    const redis = new Redis(TEST_REDIS_URL, { protocol });
    return {
      // Every instance on one Redis, as every gateway instance is: locks and counters are shared.
      create: (now) => new RedisSessionStore(redis, namespace.keyPrefix, now),
      close: async () => {
        await namespace.cleanup();
        redis.disconnect();
      },
    };
  });
}

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

  it('writes one expiring key per session, and the write of a new session trims the index of expired sessions', async () => {
    await store.save(record('a'), 180);
    expect(await redis.ttl(`${namespace.keyPrefix}session:a`)).toBeGreaterThan(170);
    let now = Date.now();
    const clocked = new RedisSessionStore(redis, `${namespace.keyPrefix}clock:`, () => now);
    const indexKey = `${namespace.keyPrefix}clock:sessions:active`;
    await clocked.save(record('older'), 10);
    await clocked.save(record('ongoing'), 180);
    now += 11_000;
    // A further hop of a session already in the index moves its entry and trims nothing (the expired entry stays
    // until the next new session, or a listing).
    await clocked.save(record('ongoing'), 180);
    // '-1' as text: ioredis 6.0.0 types `stop` as a string (a number is accepted again after 6.0.0, redis/ioredis#2163).
    expect(await redis.zrange(indexKey, 0, '-1')).toEqual(['older', 'ongoing']);
    now += 1;
    await clocked.save(record('new'), 180);
    expect(await redis.zrange(indexKey, 0, '-1')).toEqual(['ongoing', 'new']);
  });

  it('unlocks with the write, with a fresh TTL', async () => {
    const lease = await store.open('w', { waitMs: 500 });
    expect(await redis.exists(`${namespace.keyPrefix}lock:w`)).toBe(1);
    await lease.commit(record('w'), 120);
    expect(await redis.ttl(`${namespace.keyPrefix}session:w`)).toBeGreaterThan(110);
    expect(await redis.exists(`${namespace.keyPrefix}lock:w`)).toBe(0);
  });

  it('writes only while the lock is still its own (it expired and another hop took it)', async () => {
    await store.save(record('fenced'), 60);
    const lockKey = `${namespace.keyPrefix}lock:fenced`;
    const lease = await store.open('fenced', { waitMs: 500 });
    await redis.set(lockKey, 'another-hop', 'PX', 10_000);
    await expect(lease.commit({ ...record('fenced'), serviceCode: '*999#' }, 60)).rejects.toBeInstanceOf(
      SessionLockLostError,
    );
    expect(await store.get('fenced')).toEqual(record('fenced'));
    expect(await redis.get(lockKey)).toBe('another-hop');
  });

  it("speaks RESP3 on the service's connections", async () => {
    const client = createRedisClient(TEST_REDIS_URL, 2000);
    try {
      await once(client, 'ready');
      expect(await client.client('INFO')).toMatch(/ resp=3\s/);
    } finally {
      client.disconnect();
    }
  });

  it('gives back, once Redis answers again, the lock of a hop that failed while it could not be reached', async () => {
    const proxy = await startFaultProxy({ port: Number(new URL(TEST_REDIS_URL).port || 6379) });
    const client = createRedisClient(`redis://${proxy.host}:${proxy.port}/0`, 500);
    try {
      await once(client, 'ready');
      const cut = new RedisSessionStore(client, namespace.keyPrefix);
      const lockKey = `${namespace.keyPrefix}lock:outage`;
      const lease = await cut.open('outage', { waitMs: 2000 });
      proxy.setMode({ kind: 'reset' });
      await new Promise((resolve) => client.once('close', resolve));
      await lease.release();
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
});
