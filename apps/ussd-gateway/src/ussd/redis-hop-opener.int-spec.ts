import Redis from 'ioredis';
import { createTestRedisNamespace, TEST_REDIS_URL, TestRedisNamespace } from '@dmrv/testing';
import { RedisRateLimitStorage } from '../rate-limit/rate-limit.storage';
import { describeHopOpenerContract } from './hop-opener.contract';
import { HopOpener } from './hop-opener';
import { redisSessionRooms } from './session-rooms';

// The service speaks RESP3 (redis-client.ts); the scripts' replies read the same in RESP2, which a Redis without
// HELLO falls back to.
for (const protocol of [3, 2] as const) {
  describeHopOpenerContract(`RedisHopOpener (RESP${protocol})`, () => {
    const namespace = createTestRedisNamespace(`ussd-hop-contract-resp${protocol}`);
    const redis = new Redis(TEST_REDIS_URL, { protocol });
    // One set of rooms on the shared prefix: their locks and counters live in Redis, as every gateway instance's do.
    const shared = redisSessionRooms(redis, namespace.keyPrefix);
    let isolated = 0;
    return {
      create: () => shared,
      isolated: () => redisSessionRooms(redis, `${namespace.keyPrefix}isolated${(isolated += 1)}:`),
      close: async () => {
        await namespace.cleanup();
        redis.disconnect();
      },
    };
  });
}

describe('RedisHopOpener', () => {
  let namespace: TestRedisNamespace;
  let redis: Redis;
  let opener: HopOpener;

  beforeAll(() => {
    namespace = createTestRedisNamespace('ussd-hop');
    redis = new Redis(TEST_REDIS_URL);
    opener = redisSessionRooms(redis, namespace.keyPrefix).opener;
  });

  afterAll(async () => {
    await namespace.cleanup();
    redis.disconnect();
  });

  it('counts a hop in the counter the other endpoints use, and a refused hop takes no lock', async () => {
    const hit = {
      name: 'default' as const,
      key: 'default:10.9.0.1',
      limit: 1,
      ttlMs: 60_000,
      blockMs: 30_000,
    };
    const { lease } = await opener.open('rl', { waitMs: 500, hit });
    await lease!.release();
    const refused = await opener.open('rl-refused', { waitMs: 500, hit });
    expect(refused.count).toMatchObject({ totalHits: 2, isBlocked: true });
    expect(await redis.exists(`${namespace.keyPrefix}lock:rl-refused`)).toBe(0);
    expect(await redis.pttl(`${namespace.keyPrefix}rl:${hit.key}:block`)).toBeGreaterThan(29_000);
    const storage = new RedisRateLimitStorage(redis, namespace.keyPrefix);
    await expect(storage.increment(hit.key, hit.ttlMs, 1000, hit.blockMs)).resolves.toMatchObject({
      totalHits: 3,
    });
  });
});
