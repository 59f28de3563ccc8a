import type { ThrottlerStorage } from '@nestjs/throttler';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { HopOptions, SessionBusyError, SessionRecord, SessionStore, SessionWork } from './session-store';

interface Entry {
  json: string;
  expiresAt: number;
  active: boolean;
}

/**
 * The zero-config store (no REDIS_URL): one process only, gone on restart. Records are kept serialised so this
 * store behaves like Redis (no shared mutable objects between hops).
 */
export class MemorySessionStore implements SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new Map<string, Promise<void>>();
  private writes = 0;

  /** `counter` counts hops against their rate limit: pass the storage the other endpoints count in. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly counter: ThrottlerStorage = new MemoryRateLimitStorage(now),
  ) {}

  async get(sessionId: string): Promise<SessionRecord | null> {
    const entry = this.entries.get(sessionId);
    if (!entry) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(sessionId);
      return null;
    }
    return JSON.parse(entry.json) as SessionRecord;
  }

  async save(record: SessionRecord, ttlSeconds: number): Promise<void> {
    this.entries.set(record.sessionId, {
      json: JSON.stringify(record),
      expiresAt: this.now() + ttlSeconds * 1000,
      active: record.status === 'active',
    });
    // Expired entries are dropped in passing, so memory stays bounded without a timer.
    this.writes += 1;
    if (this.writes % 1000 === 0) this.sweep();
  }

  async listActive(limit: number): Promise<string[]> {
    this.sweep();
    return [...this.entries.entries()]
      .filter(([, entry]) => entry.active)
      .sort(([, a], [, b]) => a.expiresAt - b.expiresAt)
      .slice(0, limit)
      .map(([id]) => id);
  }

  async withSession<T>(sessionId: string, options: HopOptions, work: SessionWork<T>): Promise<T> {
    if (options.rateLimit) {
      const { hit, admit } = options.rateLimit;
      admit(await this.counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs, hit.name));
    }
    const { signal } = options;
    return this.withLock(
      sessionId,
      options.waitMs,
      async (release) => {
        // The hop has answered "unavailable": the session is free for the aggregator's retry right away.
        signal?.addEventListener('abort', release, { once: true });
        try {
          const { value, save } = await work(await this.get(sessionId));
          // Checked and written without a pause in between: nothing is saved once the hop has answered.
          signal?.throwIfAborted();
          if (save) await this.save(save, options.ttlSeconds);
          return value;
        } finally {
          signal?.removeEventListener('abort', release);
        }
      },
      signal,
    );
  }

  /**
   * Serialises work per session within this process (a promise chain per session id). `work` may give the lock
   * back before it ends (`release`); waiting for it stops when `signal` aborts.
   */
  async withLock<T>(sessionId: string, waitMs: number, work: (release: () => void) => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    const previous = this.locks.get(sessionId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.locks.set(sessionId, tail);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), waitMs);
      onAbort = () => resolve('timeout');
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const winner = await Promise.race([previous.then(() => 'acquired' as const), gaveUp]);
      if (winner === 'timeout') throw signal?.aborted ? signal.reason : new SessionBusyError(sessionId);
      return await work(release);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      release();
      if (this.locks.get(sessionId) === tail) this.locks.delete(sessionId);
    }
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(id);
  }
}
