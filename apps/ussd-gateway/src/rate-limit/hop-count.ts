import type { ThrottlerStorage } from '@nestjs/throttler';
import type { RedisKeyLayout } from '../redis/key-layout';
import type { RateLimitHit } from './rate-limit.policy';
import { COUNT_HIT_LUA, countOf, RateLimitCount } from './rate-limit.storage';

/** What one session request counts: the caller's limit (per IP, or per phone for exempt aggregator addresses). */
export interface HopHits {
  hit: RateLimitHit;
  /** The session's own limit, counted with the caller's; past either limit, the hop goes no further. */
  sessionHit?: RateLimitHit;
}

export interface HopCounts {
  /** What `hit` counted: the caller decides whether the hop goes on. */
  count: RateLimitCount;
  /** What `sessionHit` counted, when there was one. */
  sessionCount?: RateLimitCount;
}

/** Past either limit: the hop takes no lock and does nothing. */
export const isRefused = ({ count, sessionCount }: HopCounts): boolean =>
  count.isBlocked || sessionCount?.isBlocked === true;

/**
 * Counts a hop's two hits in the caller's script (the one that locks the session: no round trip of its own):
 * `count_hop(KEYS of hopCountKeys, ARGV of hopCountArgs)` returns the six numbers `hopCountsOf` reads, and whether
 * the hop is refused. Without a session limit its window is '0' and its keys repeat the caller's, so the script
 * always declares the keys it may touch.
 */
export const COUNT_HOP_LUA = `${COUNT_HIT_LUA}
local function count_hop(key, block_key, session_key, session_block_key, window_ms, limit, block_ms, session_window_ms, session_limit, session_block_ms)
  local count = count_hit(key, block_key, window_ms, limit, block_ms)
  local per_session = {0, 0, 0}
  if session_window_ms ~= '0' then per_session = count_hit(session_key, session_block_key, session_window_ms, session_limit, session_block_ms) end
  return {count[1], count[2], count[3], per_session[1], per_session[2], per_session[3]}, count[3] > 0 or per_session[3] > 0
end`;

/** The four keys `count_hop` touches. */
export function hopCountKeys(layout: RedisKeyLayout, { hit, sessionHit }: HopHits): string[] {
  return [...layout.rateLimit(hit.key), ...layout.rateLimit((sessionHit ?? hit).key)];
}

const hitArguments = (hit: RateLimitHit): number[] => [hit.ttlMs, hit.limit, hit.blockMs];

/** The six arguments `count_hop` takes. */
export function hopCountArgs({ hit, sessionHit }: HopHits): number[] {
  return [...hitArguments(hit), ...(sessionHit ? hitArguments(sessionHit) : [0, 0, 0])];
}

/** What `count_hop` returned. */
export function hopCountsOf(reply: number[], { sessionHit }: HopHits): HopCounts {
  const [hits, ttlMs, blockedMs, sessionHits, sessionTtlMs, sessionBlockedMs] = reply as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return {
    count: countOf(hits, ttlMs, blockedMs),
    sessionCount: sessionHit ? countOf(sessionHits, sessionTtlMs, sessionBlockedMs) : undefined,
  };
}

/** Counts a hop's hits one command each, where no script can hold them (process memory; a cluster's other slots). */
export async function countHop(
  counter: Pick<ThrottlerStorage, 'increment'>,
  { hit, sessionHit }: HopHits,
): Promise<HopCounts> {
  const increment = (counted: RateLimitHit): Promise<RateLimitCount> =>
    counter.increment(counted.key, counted.ttlMs, counted.limit, counted.blockMs, counted.name);
  const [count, sessionCount] = await Promise.all([
    increment(hit),
    sessionHit ? increment(sessionHit) : undefined,
  ]);
  return { count, sessionCount };
}
