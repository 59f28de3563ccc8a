import type { AbortLike } from '@dmrv/deadline';

/**
 * What a session has consumed of the cumulative `text`, without keeping it: `text` carries PINs, so the record holds
 * only its length and a keyed digest, enough to recognise the same prefix again.
 */
export interface ConsumedMark {
  length: number;
  digest: string;
}

/**
 * Everything a session is, as plain JSON: any instance can serve its next hop, and a restart loses nothing. `S` is
 * the state of whatever runs the session (the menu machine's state); this room stores it and never reads it.
 */
export interface SessionRecord<S = unknown> {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  state: S;
  /** The `text` of the last hop that was applied; the next hop's new inputs are what follows it. */
  consumed: ConsumedMark;
  status: 'active' | 'ended';
  /** The answers to the last few `text` values (by digest), so a retried request gets the same answer and changes nothing. */
  replies: Array<{ textDigest: string; reply: string }>;
  createdAt: string;
  updatedAt: string;
}

export interface LockOptions {
  waitMs: number;
  /**
   * Aborted when the hop's budget is spent and it has answered "unavailable": nothing more may be saved. An
   * `AbortSignal`, or the hop's own deadline (which makes none unless its work needs one).
   */
  signal?: AbortLike;
}

/**
 * Where sessions live: Redis (shared by every instance) or process memory (zero-config). An abstract class, so it is
 * its own injection token.
 */
export abstract class SessionStore<S = unknown> {
  abstract get(sessionId: string): Promise<SessionRecord<S> | null>;
  /** Writes the record with a fresh time-to-live; an ended session leaves the active list at once. */
  abstract save(record: SessionRecord<S>, ttlSeconds: number): Promise<void>;
  /** Identifiers of sessions that are active and not expired, oldest activity first, at most `limit`. */
  abstract listActive(limit: number): Promise<string[]>;
  /**
   * Locks the session and reads it. Rejects with SessionBusyError when the lock is not free within `waitMs`. When
   * `signal` aborts, the lock is given back at once and the lease writes nothing any more.
   */
  abstract open(sessionId: string, options: LockOptions): Promise<SessionLease<S>>;
}

/**
 * One hop's hold on its session. Concurrent hops of one session (an aggregator retry racing the original) hold it
 * one after the other.
 */
export interface SessionLease<S = unknown> {
  readonly record: SessionRecord<S> | null;
  /**
   * Writes `record` with a fresh TTL and unlocks, only while the lock is still this hop's (fencing:
   * SessionLockLostError otherwise) and never once the hop's signal has aborted.
   */
  commit(record: SessionRecord<S>, ttlSeconds: number): Promise<void>;
  /** Unlocks without writing; idempotent. */
  release(): Promise<void>;
}

/** Runs a hop's work on its lease: writes what the work returns in `save` (if anything), and nothing if it fails. */
export async function runOnLease<T, S = unknown>(
  lease: SessionLease<S>,
  ttlSeconds: number,
  work: (record: SessionRecord<S> | null) => Promise<{ value: T; save?: SessionRecord<S> }>,
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
