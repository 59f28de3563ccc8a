import type { ThrottlerStorage } from '@nestjs/throttler';
import { AbortLike, withDeadline } from '@dmrv/deadline';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import {
  OpenedHop,
  OpenOptions,
  PhoneLanguageCopy,
  PhoneLanguageEntry,
  SessionBusyError,
  SessionRecord,
  SessionStore,
} from './session-store';

interface Entry {
  json: string;
  expiresAt: number;
  active: boolean;
}

/**
 * The zero-config store (no REDIS_URL): one process only, gone on restart. Records are kept serialised so this
 * store behaves like Redis (no shared mutable objects between hops).
 */
export class MemorySessionStore extends SessionStore {
  private readonly entries = new Map<string, Entry>();
  private readonly locks = new Map<string, Promise<void>>();
  private writes = 0;
  /** The phone-language copy, as the Redis store keeps it: phone → language, complete once a fill has finished. */
  private phoneLanguages = new Map<string, string>();
  private phoneLanguagesComplete = false;
  private phoneLanguagesExpireAt = Infinity;
  private filling: { token: string; at: number } | undefined;
  private fills = 0;

  /** `counter` counts hops against their rate limit: pass the storage the other endpoints count in. */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly counter: Pick<ThrottlerStorage, 'increment'> = new MemoryRateLimitStorage(now),
  ) {
    super();
  }

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

  async open(sessionId: string, { waitMs, hit, sessionHit, signal, phoneNumber }: OpenOptions): Promise<OpenedHop> {
    signal?.throwIfAborted();
    const count = await this.counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs, hit.name);
    const sessionCount = sessionHit
      ? await this.counter.increment(sessionHit.key, sessionHit.ttlMs, sessionHit.limit, sessionHit.blockMs, sessionHit.name)
      : undefined;
    if (count.isBlocked || sessionCount?.isBlocked) return { count, sessionCount };
    const unlock = await this.lock(sessionId, waitMs, signal);
    // The hop has answered "unavailable": the session is free for the aggregator's retry right away.
    const release = async (): Promise<void> => {
      signal?.removeEventListener('abort', unlock);
      unlock();
    };
    signal?.addEventListener('abort', unlock, { once: true });
    const record = await this.get(sessionId);
    const phoneLanguage = record === null && phoneNumber !== undefined ? await this.readPhoneLanguage(phoneNumber) : undefined;
    return {
      count,
      sessionCount,
      lease: {
        record,
        phoneLanguage,
        release,
        commit: async (save, ttlSeconds) => {
          // Checked and written without a pause in between: nothing is saved once the hop has answered.
          signal?.throwIfAborted();
          await this.save(save, ttlSeconds);
          await release();
        },
      },
    };
  }

  async rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void> {
    this.expirePhoneLanguages();
    // As Redis's EXPIRE only when the key has no TTL: a change never extends the copy's life.
    if (this.phoneLanguagesExpireAt === Infinity) this.phoneLanguagesExpireAt = this.now() + ttlSeconds * 1000;
    this.phoneLanguages.set(phoneNumber, language);
  }

  async readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy> {
    this.expirePhoneLanguages();
    const language = this.phoneLanguages.get(phoneNumber);
    if (language !== undefined) return { kind: 'chosen', language };
    return this.phoneLanguagesComplete ? { kind: 'none' } : { kind: 'unknown' };
  }

  async beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null> {
    this.expirePhoneLanguages();
    const now = this.now();
    if (this.phoneLanguagesComplete || (this.filling && this.filling.at > now - staleAfterMs)) return null;
    if (this.phoneLanguagesExpireAt === Infinity) this.phoneLanguagesExpireAt = now + ttlSeconds * 1000;
    this.filling = { token: `fill.${(this.fills += 1)}`, at: now };
    return this.filling.token;
  }

  async fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean> {
    this.expirePhoneLanguages();
    if (this.filling?.token !== token) return false;
    for (const { phoneNumber, language } of entries) if (!this.phoneLanguages.has(phoneNumber)) this.phoneLanguages.set(phoneNumber, language);
    this.filling.at = this.now();
    return true;
  }

  async completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean> {
    this.expirePhoneLanguages();
    if (this.filling?.token !== token) return false;
    this.filling = undefined;
    this.phoneLanguagesComplete = true;
    this.phoneLanguagesExpireAt = this.now() + ttlSeconds * 1000;
    return true;
  }

  /** The whole copy expires at once, marks included, as the Redis hash does. */
  private expirePhoneLanguages(): void {
    if (this.phoneLanguagesExpireAt > this.now()) return;
    this.phoneLanguages = new Map();
    this.phoneLanguagesComplete = false;
    this.phoneLanguagesExpireAt = Infinity;
    this.filling = undefined;
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
