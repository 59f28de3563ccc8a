import type { ThrottlerStorage } from '@nestjs/throttler';
import { keyLayoutFor, RedisKeyLayout } from '../redis/key-layout';
import type { RedisClient } from '../redis/redis-client';
import { redisScript } from '../redis/redis-script';

export type RateLimitCount = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * Counts one hit of a fixed window, starts the window on its first hit and a block when the limit is passed;
 * returns `{hits, ms left in the window, ms left of the block}` (a window's first hit has the whole window left: no
 * PTTL to ask). A Lua function so that a hop counts in the script that locks its session (hop-count.ts): every
 * counter of this service is the same code.
 */
export const COUNT_HIT_LUA = `
local function count_hit(key, block_key, window_ms, limit, block_ms)
  local hits = redis.call('INCR', key)
  local ttl = tonumber(window_ms)
  if hits == 1 then redis.call('PEXPIRE', key, window_ms) else ttl = redis.call('PTTL', key) end
  local blocked = redis.call('PTTL', block_key)
  if blocked <= 0 and hits > tonumber(limit) then
    redis.call('SET', block_key, '1', 'PX', block_ms)
    blocked = tonumber(block_ms)
  end
  return {hits, ttl, blocked}
end`;

const INCREMENT = `${COUNT_HIT_LUA}
return count_hit(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])`;

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** What `count_hit` returns, in @nestjs/throttler's terms (seconds). */
export function countOf(hits: number, ttlMs: number, blockedMs: number): RateLimitCount {
  return {
    totalHits: hits,
    timeToExpire: seconds(ttlMs),
    isBlocked: blockedMs > 0,
    timeToBlockExpire: seconds(blockedMs),
  };
}

/** Counters shared by every instance: fixed windows in Redis under `<prefix>rl:`. */
export class RedisRateLimitStorage implements ThrottlerStorage {
  private readonly incrementScript;
  private readonly layout: RedisKeyLayout;

  constructor(redis: RedisClient, prefix: string) {
    this.incrementScript = redisScript(redis, 'ussdRateLimitIncrement', INCREMENT, 2);
    this.layout = keyLayoutFor(redis, prefix);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<RateLimitCount> {
    const [hits, ttlMs, blockedMs] = (await this.incrementScript(
      ...this.layout.rateLimit(key),
      ttl,
      limit,
      blockDuration,
    )) as [number, number, number];
    return countOf(hits, ttlMs, blockedMs);
  }
}
