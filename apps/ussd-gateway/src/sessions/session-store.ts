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

/**
 * Where sessions live: Redis (shared by every instance) or process memory (zero-config). An abstract class, so it is
 * its own injection token.
 */
export abstract class SessionStore {
  abstract get(sessionId: string): Promise<SessionRecord | null>;
  /** Writes the record with a fresh time-to-live; an ended session leaves the active list at once. */
  abstract save(record: SessionRecord, ttlSeconds: number): Promise<void>;
  /** Identifiers of sessions that are active and not expired, oldest activity first, at most `limit`. */
  abstract listActive(limit: number): Promise<string[]>;
  /**
   * Starts one hop: counts `hit` (and `sessionHit`) against its rate limit and, unless a count is past its limit, locks the session
   * and reads it (on Redis, one round trip). A hop waiting for the lock is counted once; a count past the limit takes
   * no lock (no `lease`). Rejects with SessionBusyError when the lock is not free within `waitMs`. When `signal`
   * aborts, the lock is given back at once and the lease writes nothing any more.
   */
  abstract open(sessionId: string, options: OpenOptions): Promise<OpenedHop>;
}

export interface OpenOptions {
  waitMs: number;
  /** The caller's limit (per IP, or per phone for exempt aggregator addresses). */
  hit: RateLimitHit;
  /** The session's own limit, counted in the same round trip; past either limit, no lock is taken. */
  sessionHit?: RateLimitHit;
  /** Aborted when the hop's budget is spent and it has answered "unavailable": nothing more may be saved. */
  signal?: AbortSignal;
}

export interface OpenedHop {
  /** What `hit` counted: the caller decides whether the hop goes on. */
  count: RateLimitCount;
  /** What `sessionHit` counted, when there was one. */
  sessionCount?: RateLimitCount;
  /** The locked session; absent when the count is past its limit. */
  lease?: SessionLease;
}

/**
 * One hop's hold on its session. Concurrent hops of one session (an aggregator retry racing the original) hold it
 * one after the other.
 */
export interface SessionLease {
  readonly record: SessionRecord | null;
  /**
   * Writes `record` with a fresh TTL and unlocks, only while the lock is still this hop's (fencing:
   * SessionLockLostError otherwise) and never once the hop's signal has aborted.
   */
  commit(record: SessionRecord, ttlSeconds: number): Promise<void>;
  /** Unlocks without writing; idempotent. */
  release(): Promise<void>;
}

/** Runs a hop's work on its lease: writes what the work returns in `save` (if anything), and nothing if it fails. */
export async function runOnLease<T>(
  lease: SessionLease,
  ttlSeconds: number,
  work: (record: SessionRecord | null) => Promise<{ value: T; save?: SessionRecord }>,
): Promise<T> {
  try {
    const { value, save } = await work(lease.record);
    if (save) await lease.commit(save, ttlSeconds);
    else await lease.release();
    return value;
  } catch (error) {
    await lease.release();
    throw error;
  }
}

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
