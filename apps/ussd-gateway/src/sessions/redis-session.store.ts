import { uniqueTokens } from '../redis/unique-tokens';
import { keyLayoutFor, RedisKeyLayout } from '../redis/key-layout';
import type { RedisClient } from '../redis/redis-client';
import { redisScript } from '../redis/redis-script';
import { ReplayWhenReady } from '../redis/replay-when-ready';
import {
  LockOptions,
  SessionBusyError,
  SessionLease,
  SessionLockLostError,
  SessionRecord,
  SessionStore,
} from './session-store';

/**
 * Takes a session's lock (expiring: a crashed instance cannot wedge a session for longer than one hop budget) and
 * reads its record with it: `0, false` when another hop holds the lock, else `1` and the record (false: none yet). A
 * Lua function, so that a script of the layer above may take the lock in the round trip of its own work (the hop's
 * rate-limit count, the dial's language copy).
 */
export const LOCK_AND_READ_LUA = `
local function lock_and_read(lock_key, session_key, token, lock_ms)
  if not redis.call('SET', lock_key, token, 'NX', 'PX', lock_ms) then return 0, false end
  return 1, redis.call('GET', session_key)
end`;
const LOCK_AND_READ = `${LOCK_AND_READ_LUA}
local acquired, record = lock_and_read(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
return {acquired, record}`;
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
// Fenced: a hop writes only while the lock is still its own (it may have expired, or been given back when the
// hop ran out of budget, and another hop may hold it now); 0 = nothing written. Sessions that expired without an
// END would stay in the index forever: a write that adds an entry (a new session) trims what has expired since
// (only those entries are touched), so the index never holds more than the sessions of one TTL plus those expired
// since the last new one; the hops of a session already in it move its entry and trim nothing.
const WRITE_AND_UNLOCK = `
if ARGV[7] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[7] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if ARGV[3] ~= 'active' then redis.call('ZREM', KEYS[2], ARGV[5])
elseif redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) == 1 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('DEL', KEYS[3]) end
return 1`;
const LIST_INDEX = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
return redis.call('ZRANGE', KEYS[1], 0, ARGV[2] - 1, 'WITHSCORES')`;
const LOCK_RETRY_MS = 20;
/** Bounds the memory kept for locks to give back after an outage (each expires on its own anyway). */
const MAX_UNRELEASED = 10_000;

/** A session's keys that a lock try touches. */
export interface LockKeys {
  lock: string;
  session: string;
}

/** What one try at the lock found. */
export interface LockTry<T> {
  acquired: boolean;
  /** The record as stored, read with the lock: null or absent when the session does not exist yet. */
  json?: string | null;
  /** The caller may not go on: the hop gets no lease, and a lock taken by this try is given back. */
  refused?: boolean;
  /** Whatever else the caller's script read in the same round trip. */
  read: T;
}

/**
 * One try at the lock: `first` is the hop's first try (the one that may carry other work), later ones are retries
 * while another hop holds the session. The default is this store's own lock-and-read script.
 */
export type TryLock<T> = (
  keys: LockKeys,
  token: string,
  lockMs: number,
  first: boolean,
) => Promise<LockTry<T>>;

/** What `openWith` gives: what the first and last tries read besides the lock, and the lease (none when refused). */
export interface LockedWith<S, T> {
  first: T;
  last: T;
  lease?: SessionLease<S>;
}

/**
 * One key per session (JSON, expiring), plus sorted sets of active sessions scored by expiry time: listing reads
 * those indexes instead of walking the keyspace. Where each key lives (one node, or hash-tagged slots of a cluster):
 * `RedisKeyLayout`.
 */
export class RedisSessionStore<S = unknown> extends SessionStore<S> {
  private readonly releaseLock;
  private readonly lockAndReadScript;
  private readonly writeAndUnlock;
  private readonly listIndex;
  readonly layout: RedisKeyLayout;
  private readonly nextToken = uniqueTokens();
  /**
   * Locks of failed hops that could not be given back (Redis was unreachable): given back as soon as it answers
   * again, so the aggregator's retry does not find its session busy until the lock expires. Token-checked, so a
   * lock taken since by another hop is left alone.
   */
  private readonly unreleased: ReplayWhenReady<{ token: string; expiresAt: number }>;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.layout = keyLayoutFor(redis, prefix);
    this.listIndex = redisScript(redis, 'ussdListActive', LIST_INDEX, 1);
    this.releaseLock = redisScript(redis, 'ussdReleaseLock', RELEASE_LOCK, 1);
    this.lockAndReadScript = redisScript(redis, 'ussdLockAndRead', LOCK_AND_READ, 2);
    this.writeAndUnlock = redisScript(redis, 'ussdWriteAndUnlock', WRITE_AND_UNLOCK, 3);
    this.unreleased = new ReplayWhenReady(redis, MAX_UNRELEASED, async (lockKey, { token, expiresAt }) => {
      if (expiresAt > this.now()) await this.releaseLock(lockKey, token);
    });
  }

  async get(sessionId: string): Promise<SessionRecord<S> | null> {
    const json = await this.redis.get(this.layout.session(sessionId));
    return json === null ? null : (JSON.parse(json) as SessionRecord<S>);
  }

  async save(record: SessionRecord<S>, ttlSeconds: number): Promise<void> {
    await this.write(record, ttlSeconds, '');
  }

  /** Writes the record; with a lock token, only while that lock holds (and then unlocks). False: not written. */
  private async write(record: SessionRecord<S>, ttlSeconds: number, lockToken: string): Promise<boolean> {
    const now = this.now();
    const written = await this.writeAndUnlock(
      this.layout.session(record.sessionId),
      this.layout.index(record.sessionId),
      this.layout.lock(record.sessionId),
      JSON.stringify(record),
      ttlSeconds,
      record.status,
      now + ttlSeconds * 1000,
      record.sessionId,
      now,
      lockToken,
    );
    return written === 1;
  }

  /** Every index (one per node, one per bucket on a cluster, spread over its masters), merged by expiry. */
  async listActive(limit: number): Promise<string[]> {
    const now = this.now();
    const indexes = await Promise.all(
      this.layout.indexes().map((index) => this.listIndex(index, now, limit) as Promise<string[]>),
    );
    const entries: Array<{ id: string; expiresAt: number }> = [];
    for (const flat of indexes)
      for (let at = 0; at < flat.length; at += 2)
        entries.push({ id: flat[at]!, expiresAt: Number(flat[at + 1]) });
    return entries
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .slice(0, limit)
      .map((entry) => entry.id);
  }

  /** This store's own try at the lock: the lock and the record, in one script. */
  async lockAndRead(keys: LockKeys, token: string, lockMs: number): Promise<LockTry<undefined>> {
    const [acquired, json] = (await this.lockAndReadScript(keys.lock, keys.session, token, lockMs)) as [
      number,
      string | null | undefined,
    ];
    return { acquired: acquired === 1, json, read: undefined };
  }

  async open(sessionId: string, options: LockOptions): Promise<SessionLease<S>> {
    const { lease } = await this.openWith(sessionId, {
      ...options,
      tryLock: (keys, token, lockMs) => this.lockAndRead(keys, token, lockMs),
    });
    // The store's own try never refuses.
    return lease!;
  }

  /**
   * Opens the session with the caller's try at the lock, so that the caller's work shares its round trip: the lock
   * (token, expiry, give-back on abort or after an outage, fenced write) stays this store's.
   */
  async openWith<T>(
    sessionId: string,
    options: LockOptions & { tryLock: TryLock<T> },
  ): Promise<LockedWith<S, T>> {
    const { signal } = options;
    const lockKey = this.layout.lock(sessionId);
    const token = this.nextToken();
    let released = false;
    // Idempotent; if Redis cannot be reached, retried when it answers again (the lock also expires on its own).
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      signal?.removeEventListener('abort', onAbort);
      await this.releaseLock(lockKey, token).catch(() => {
        this.unreleased.keep(lockKey, { token, expiresAt: this.now() + options.waitMs * 2 });
      });
    };
    // The hop has answered "unavailable": the session is free for the aggregator's retry right away.
    const onAbort = (): void => void release();
    let locked: { first: T; last: T; record?: SessionRecord<S> | null };
    try {
      locked = await this.lock(sessionId, token, options);
    } catch (error) {
      // A lock command that got no answer may still run later (a slow link): this release follows it on the same
      // connection, so such a lock never outlives the hop that asked for it.
      await release();
      throw error;
    }
    const { first, last, record } = locked;
    if (record === undefined) return { first, last };
    signal?.addEventListener('abort', onAbort, { once: true });
    const lease: SessionLease<S> = {
      record,
      release,
      commit: async (save, ttlSeconds) => {
        signal?.throwIfAborted();
        const written = await this.write(save, ttlSeconds, token);
        // Either the write unlocked, or the lock was no longer this hop's to give back. A write that failed leaves
        // the lock to `release`.
        released = true;
        signal?.removeEventListener('abort', onAbort);
        if (!written) throw new SessionLockLostError(sessionId);
      },
    };
    return { first, last, lease };
  }

  /** Tries until the lock is taken: no `record` when the first try is refused, `null` when the session does not exist yet. */
  private async lock<T>(
    sessionId: string,
    token: string,
    { waitMs, signal, tryLock }: LockOptions & { tryLock: TryLock<T> },
  ): Promise<{ first: T; last: T; record?: SessionRecord<S> | null }> {
    const keys = { lock: this.layout.lock(sessionId), session: this.layout.session(sessionId) };
    const deadline = this.now() + waitMs;
    const lockMs = waitMs * 2;
    signal?.throwIfAborted();
    const first = await tryLock(keys, token, lockMs, true);
    if (first.refused) {
      // A try that asked for the lock beside its other work (on a cluster): given back at once.
      if (first.acquired) await this.releaseLock(keys.lock, token);
      return { first: first.read, last: first.read };
    }
    let tried = first;
    while (!tried.acquired) {
      if (this.now() >= deadline) throw new SessionBusyError(sessionId);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      signal?.throwIfAborted();
      tried = await tryLock(keys, token, lockMs, false);
    }
    const record = tried.json ? (JSON.parse(tried.json) as SessionRecord<S>) : null;
    return { first: first.read, last: tried.read, record };
  }
}
