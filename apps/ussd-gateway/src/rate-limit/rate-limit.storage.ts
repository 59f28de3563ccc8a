import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

// One round trip: count the hit, start the window on the first one, start a block when the limit is passed.
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
if blocked <= 0 and hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blocked = tonumber(ARGV[3])
end
return {hits, ttl, blocked}`;

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** Counters shared by every instance: fixed windows in Redis under `<prefix>rl:`. */
export class RedisRateLimitStorage implements ThrottlerStorage {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<ThrottlerStorageRecord> {
    const base = `${this.prefix}rl:${key}`;
    const [hits, ttlMs, blockedMs] = (await this.redis.eval(INCREMENT, 2, base, `${base}:block`, ttl, limit, blockDuration)) as [
      number,
      number,
      number,
    ];
    return { totalHits: hits, timeToExpire: seconds(ttlMs), isBlocked: blockedMs > 0, timeToBlockExpire: seconds(blockedMs) };
  }
}
