import type { AbortLike } from '@dmrv/deadline';
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

  /**
   * The copy of phones' remembered languages (`ussd_phones.language`) that a dial reads in the round trip of its
   * lock-and-read (`OpenOptions.phoneNumber`), so that it needs no PostgreSQL query. Write-through: called after
   * PostgreSQL has committed the phone's new language. Expires with the whole copy (`ttlSeconds`, set when the copy is
   * created), which bounds the life of a copy that missed a write.
   */
  abstract rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void>;
  /** The copy's answer for one phone, outside a hop. */
  abstract readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy>;
  /**
   * Starts filling the copy from PostgreSQL: a fill token, or null when the copy is complete or another fill (of any
   * instance) has written within `staleAfterMs`.
   */
  abstract beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null>;
  /**
   * Adds the phones of one batch read from PostgreSQL, except those the copy already holds (a change written since
   * the batch was read wins). False: the fill was overtaken (the copy was lost, or another fill took over) and must
   * stop; it will never be marked complete.
   */
  abstract fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean>;
  /** Marks the copy complete (a phone it does not hold never chose), for `ttlSeconds`; false when overtaken. */
  abstract completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean>;
}

export interface PhoneLanguageEntry {
  phoneNumber: string;
  language: string;
}

/**
 * What the copy says of a phone: the language it chose; `none` when the copy is complete and does not hold the phone
 * (it never chose); `unknown` when there is no complete copy (never filled, expired, evicted, flushed): ask PostgreSQL.
 */
export type PhoneLanguageCopy = { kind: 'chosen'; language: string } | { kind: 'none' } | { kind: 'unknown' };

export interface OpenOptions {
  waitMs: number;
  /** The caller's limit (per IP, or per phone for exempt aggregator addresses). */
  hit: RateLimitHit;
  /** The session's own limit, counted in the same round trip; past either limit, no lock is taken. */
  sessionHit?: RateLimitHit;
  /**
   * Aborted when the hop's budget is spent and it has answered "unavailable": nothing more may be saved. An
   * `AbortSignal`, or the hop's own deadline (which makes none unless its work needs one).
   */
  signal?: AbortLike;
  /** When the session does not exist yet (a dial), the lease also carries this phone's language copy. */
  phoneNumber?: string;
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
  /** With `OpenOptions.phoneNumber` and no record yet: what the language copy says of that phone. */
  readonly phoneLanguage?: PhoneLanguageCopy;
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
