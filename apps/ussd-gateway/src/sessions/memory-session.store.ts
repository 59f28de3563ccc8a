import { AbortLike, withDeadline } from '@dmrv/deadline';
import { LockOptions, SessionBusyError, SessionLease, SessionRecord, SessionStore } from './session-store';

interface Entry {
  json: string;
  expiresAt: number;
  active: boolean;
}

/**
 * The zero-config store (no REDIS_URL): one process only, gone on restart. Records are kept serialised so this
 * store behaves like Redis (no shared mutable objects between hops).
 */
export class MemorySessionStore<S = unknown> extends SessionStore<S> {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new Map<string, Promise<void>>();
  private writes = 0;

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async get(sessionId: string): Promise<SessionRecord<S> | null> {
    const entry = this.entries.get(sessionId);
    if (!entry) return null;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(sessionId);
      return null;
    }
    return JSON.parse(entry.json) as SessionRecord<S>;
  }

  async save(record: SessionRecord<S>, ttlSeconds: number): Promise<void> {
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

  async open(sessionId: string, { waitMs, signal }: LockOptions): Promise<SessionLease<S>> {
    signal?.throwIfAborted();
    const unlock = await this.lock(sessionId, waitMs, signal);
    // The hop has answered "unavailable": the session is free for the aggregator's retry right away.
    const release = async (): Promise<void> => {
      signal?.removeEventListener('abort', unlock);
      unlock();
    };
    signal?.addEventListener('abort', unlock, { once: true });
    return {
      record: await this.get(sessionId),
      release,
      commit: async (save, ttlSeconds) => {
        // Checked and written without a pause in between: nothing is saved once the hop has answered.
        signal?.throwIfAborted();
        await this.save(save, ttlSeconds);
        await release();
      },
    };
  }

  /**
   * Serialises hops per session within this process (a promise chain per session id); resolves with the function
   * that gives the lock back. Waiting stops at `waitMs` (SessionBusyError) or when `signal` aborts.
   */
  private async lock(sessionId: string, waitMs: number, signal?: AbortLike): Promise<() => void> {
    const previous = this.locks.get(sessionId) ?? Promise.resolve();
    let unlock!: () => void;
    const mine = new Promise<void>((resolve) => (unlock = resolve));
    const tail = previous.then(() => mine);
    this.locks.set(sessionId, tail);
    void tail.then(() => {
      if (this.locks.get(sessionId) === tail) this.locks.delete(sessionId);
    });
    try {
      await withDeadline(() => previous, {
        ms: waitMs,
        what: 'session lock',
        signal,
        error: () => new SessionBusyError(sessionId),
      });
    } catch (error) {
      unlock();
      throw error;
    }
    return unlock;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(id);
  }
}
