import type { MenuState } from '../menus/menu-machine';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import type { ConsumedMark } from '../ussd/cumulative-text';

/** Everything a session is, as plain JSON: any instance can serve its next hop, and a restart loses nothing. */
export interface SessionRecord {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  state: MenuState;
  /**
   * The `text` of the last hop that was applied, as length and keyed digest (the text holds PINs); the next hop's
   * new inputs are what follows it.
   */
  consumed: ConsumedMark;
  status: 'active' | 'ended';
  /** The answers to the last few `text` values (by digest), so a retried request gets the same answer and changes nothing. */
  replies: Array<{ textDigest: string; reply: string }>;
  createdAt: string;
  updatedAt: string;
}

export const SESSION_STORE = Symbol('SESSION_STORE');

export interface SessionStore {
  get(sessionId: string): Promise<SessionRecord | null>;
  /** Writes the record with a fresh time-to-live; an ended session leaves the active list at once. */
  save(record: SessionRecord, ttlSeconds: number): Promise<void>;
  /** Identifiers of sessions that are active and not expired, oldest activity first, at most `limit`. */
  listActive(limit: number): Promise<string[]>;
  /**
   * One hop's read-modify-write: locks the session and reads it, runs `work` on the record, writes what `work`
   * returns in `save` (with a fresh TTL) and unlocks. Concurrent hops of one session (an aggregator retry racing
   * the original) apply one after the other. Rejects with SessionBusyError when the lock is not free within
   * `waitMs`; a failing `work` saves nothing. The write happens only while the lock is still this hop's (fencing:
   * SessionLockLostError otherwise), and never once `signal` has aborted: the lock is given back at the abort, and
   * whatever `work` still returns afterwards is dropped.
   */
  withSession<T>(sessionId: string, options: HopOptions, work: SessionWork<T>): Promise<T>;
}

export interface HopOptions {
  waitMs: number;
  ttlSeconds: number;
  /** Aborted when the hop's budget is spent and it has answered "unavailable": nothing more may be saved. */
  signal?: AbortSignal;
  /**
   * The request's rate-limit hit, counted once, in the same round trip that takes the lock. `admit` sees the count
   * before anything else happens and refuses the hop by throwing; a count past the limit takes no lock.
   */
  rateLimit?: { hit: RateLimitHit; admit(count: RateLimitCount): void };
}

export type SessionWork<T> = (record: SessionRecord | null) => Promise<{ value: T; save?: SessionRecord }>;

export class SessionBusyError extends Error {
  constructor(sessionId: string) {
    super(`session ${sessionId.slice(0, 100)} is busy with another request`);
    this.name = 'SessionBusyError';
  }
}

/** The lock expired (or was given back at an abort) and another hop may hold it: this hop's write was refused. */
export class SessionLockLostError extends Error {
  constructor(sessionId: string) {
    super(`session ${sessionId.slice(0, 100)} is no longer locked by this hop: its result was not saved`);
    this.name = 'SessionLockLostError';
  }
}

export const MAX_REMEMBERED_REPLIES = 5;
