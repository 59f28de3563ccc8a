import { once } from 'node:events';
import Redis from 'ioredis';
import { createTestRedisNamespace, startFaultProxy, TEST_REDIS_URL, TestRedisNamespace } from '@dmrv/testing';
import { createRedisClient } from '../redis/redis.module';
import { describePhoneLanguageCopyContract } from './phone-language-copy.contract';
import { RedisPhoneLanguageCopyStore } from './redis-phone-language-copy';

for (const protocol of [3, 2] as const) {
  describePhoneLanguageCopyContract(`RedisPhoneLanguageCopyStore (RESP${protocol})`, () => {
    const namespace = createTestRedisNamespace(`ussd-copy-contract-resp${protocol}`);
    const redis = new Redis(TEST_REDIS_URL, { protocol });
    let isolated = 0;
    return {
      isolated: (now) =>
        new RedisPhoneLanguageCopyStore(redis, `${namespace.keyPrefix}isolated${(isolated += 1)}:`, now),
      close: async () => {
        await namespace.cleanup();
        redis.disconnect();
      },
    };
  });
}

describe('RedisPhoneLanguageCopyStore', () => {
  let namespace: TestRedisNamespace;
  let redis: Redis;

  beforeAll(() => {
    namespace = createTestRedisNamespace('ussd-copy');
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    await namespace.cleanup();
    redis.disconnect();
  });

  const copyKey = (prefix: string): string => `${prefix}phone-languages`;

  it('is one hash that expires as a whole, from its creation (never refreshed by a read), reset by a completed fill', async () => {
    const prefix = `${namespace.keyPrefix}copy-ttl:`;
    const copy = new RedisPhoneLanguageCopyStore(redis, prefix);
    await copy.rememberPhoneLanguage('+254700000001', 'fr', 600);
    expect(await redis.hgetall(copyKey(prefix))).toEqual({ '+254700000001': 'fr' });
    expect(await redis.ttl(copyKey(prefix))).toBeGreaterThan(590);
    await redis.expire(copyKey(prefix), 300);
    await copy.rememberPhoneLanguage('+254700000002', 'sw', 600);
    await copy.readPhoneLanguage('+254700000001');
    expect(await redis.ttl(copyKey(prefix))).toBeLessThanOrEqual(300);
    const token = await copy.beginPhoneLanguageFill(60_000, 600);
    await copy.completePhoneLanguageFill(token!, 86_400);
    expect(await redis.ttl(copyKey(prefix))).toBeGreaterThan(86_000);
  });

  it('never marks complete a copy lost (flushed, evicted) while a fill ran: the fill stops and the copy stays unknown', async () => {
    const prefix = `${namespace.keyPrefix}copy-lost:`;
    const copy = new RedisPhoneLanguageCopyStore(redis, prefix);
    const token = await copy.beginPhoneLanguageFill(60_000, 600);
    await expect(
      copy.fillPhoneLanguages(token!, [{ phoneNumber: '+254700000001', language: 'fr' }]),
    ).resolves.toBe(true);
    await redis.del(copyKey(prefix));
    // A change written after the loss makes the hash again, without the fill's mark.
    await copy.rememberPhoneLanguage('+254700000002', 'sw', 600);
    await expect(
      copy.fillPhoneLanguages(token!, [{ phoneNumber: '+254700000003', language: 'en' }]),
    ).resolves.toBe(false);
    await expect(copy.completePhoneLanguageFill(token!, 600)).resolves.toBe(false);
    expect(await copy.readPhoneLanguage('+254700000001')).toEqual({ kind: 'unknown' });
    expect(await copy.readPhoneLanguage('+254700000002')).toEqual({ kind: 'chosen', language: 'sw' });
  });

  it('writes a change it could not write while Redis was unreachable as soon as Redis answers again', async () => {
    const prefix = `${namespace.keyPrefix}copy-outage:`;
    const proxy = await startFaultProxy({ port: Number(new URL(TEST_REDIS_URL).port || 6379) });
    const client = createRedisClient(`redis://${proxy.host}:${proxy.port}/0`, 500);
    try {
      await once(client, 'ready');
      const cut = new RedisPhoneLanguageCopyStore(client, prefix);
      await cut.rememberPhoneLanguage('+254700000001', 'en', 600);
      proxy.setMode({ kind: 'reset' });
      await new Promise((resolve) => client.once('close', resolve));
      await expect(cut.rememberPhoneLanguage('+254700000001', 'fr', 600)).rejects.toThrow();
      expect(await redis.hget(copyKey(prefix), '+254700000001')).toBe('en');
      proxy.setMode({ kind: 'pass' });
      await once(client, 'ready');
      // Sent after the catch-up write on the same connection, so it sees its effect.
      expect(await client.hget(copyKey(prefix), '+254700000001')).toBe('fr');
    } finally {
      client.disconnect();
      await proxy.close();
    }
  });
});
