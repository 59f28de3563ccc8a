import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

interface Window {
  hits: number;
  endsAt: number;
  blockedUntil: number;
}

/** Windows kept at most by default: with keys of a few hundred bytes (an address, a client id), tens of MiB. */
export const MEMORY_RATE_LIMIT_MAX_WINDOWS = 100_000;

/**
 * Fixed windows in this process: one counter and one expiry per key, expired windows swept as they are met.
 * @nestjs/throttler's default in-memory storage starts a timer per hit and, when each fires, filters an array of
 * every live hit: at a few thousand requests a second that is O(n²) work on the event loop and the service stalls
 * a minute into sustained load. This storage does constant work per hit.
 *
 * Keys come from clients (their addresses), so at most `maxWindows` are kept: a spray from more sources than that
 * within one window (an IPv6 prefix) has the oldest windows forgotten first, which only errs towards letting their
 * requests through. Callers keep their keys short (an address, an id of bounded length).
 */
export class MemoryRateLimitStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private calls = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxWindows = MEMORY_RATE_LIMIT_MAX_WINDOWS,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    if (++this.calls % 1000 === 0) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || (window.endsAt <= now && window.blockedUntil <= now)) {
      if (!window && this.windows.size >= this.maxWindows) this.makeRoom(now);
      window = { hits: 0, endsAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
    } else if (window.endsAt <= now) {
      window.hits = 0;
      window.endsAt = now + ttl;
    }
    window.hits += 1;
    if (window.blockedUntil <= now && window.hits > limit) window.blockedUntil = now + blockDuration;
    const blocked = window.blockedUntil > now;
    return {
      totalHits: window.hits,
      timeToExpire: seconds(window.endsAt - now),
      isBlocked: blocked,
      timeToBlockExpire: blocked ? seconds(window.blockedUntil - now) : 0,
    };
  }

  /** Expired windows first; still full, the oldest (the Map's insertion order) goes. */
  private makeRoom(now: number): void {
    this.sweep(now);
    if (this.windows.size < this.maxWindows) return;
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows)
      if (window.endsAt <= now && window.blockedUntil <= now) this.windows.delete(key);
  }
}
