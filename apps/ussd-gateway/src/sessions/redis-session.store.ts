import { randomBytes } from 'node:crypto';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import { COUNT_HIT_LUA, countOf, RateLimitCount, RedisRateLimitStorage } from '../rate-limit/rate-limit.storage';
import { keyLayoutFor, RedisKeyLayout } from '../redis/key-layout';
import type { RedisClient } from '../redis/redis-client';
import { redisScript } from '../redis/redis-script';
import {
  OpenedHop,
  OpenOptions,
  PhoneLanguageCopy,
  PhoneLanguageEntry,
  SessionBusyError,
  SessionLease,
  SessionLockLostError,
  SessionRecord,
  SessionStore,
} from './session-store';

// The phone-language copy is one hash: a field per phone that chose a language (E.164, so never a mark's name), the
// complete mark once a fill from PostgreSQL has finished (a phone absent from a complete copy never chose), and the
// fill's own mark while one runs ("token:time"). Losing the hash (expiry, eviction, FLUSHALL) loses the marks with
// it, so a lost copy is never taken for a complete one.
const COMPLETE_MARK = '!complete';
const FILLING_MARK = '!filling';
// The dial's read of the copy is part of the lock-and-read scripts below (no round trip of its own).
// On one node a hop costs two round trips to Redis, as few as a read and a write can: count-lock-and-read,
// write-and-unlock. On a cluster the count lives in another slot: it is sent beside the lock-and-read (two commands,
// one round trip's wait), then write-and-unlock.
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
// The rate-limit counter is charged before the lock: a refused request takes no lock, and a request waiting for
// the lock is counted once (retries use LOCK_AND_READ).
// The per-session limit is a second counter (KEYS[5], KEYS[6]); without one, ARGV[6] is '0' and those keys repeat
// the first counter's, so the script always declares the keys it may touch.
const COUNT_LOCK_AND_READ = `${COUNT_HIT_LUA}
local count = count_hit(KEYS[3], KEYS[4], ARGV[3], ARGV[4], ARGV[5])
local per_session = {0, 0, 0}
if ARGV[6] ~= '0' then per_session = count_hit(KEYS[5], KEYS[6], ARGV[6], ARGV[7], ARGV[8]) end
local counts = {count[1], count[2], count[3], per_session[1], per_session[2], per_session[3]}
if count[3] > 0 or per_session[3] > 0 or not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0, unpack(counts)} end
local record = redis.call('GET', KEYS[2])
if record then return {1, counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], record} end
if ARGV[9] == '' then return {1, unpack(counts)} end
local copy = redis.call('HMGET', KEYS[7], ARGV[9], '${COMPLETE_MARK}')
return {1, counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], false, copy[1], copy[2]}`;
const LOCK_AND_READ = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0} end
local record = redis.call('GET', KEYS[2])
if record then return {1, record} end
if ARGV[3] == '' then return {1} end
local copy = redis.call('HMGET', KEYS[3], ARGV[3], '${COMPLETE_MARK}')
return {1, false, copy[1], copy[2]}`;
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
const REMEMBER_PHONE_LANGUAGE = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1`;
const BEGIN_FILL = `
if redis.call('HEXISTS', KEYS[1], '${COMPLETE_MARK}') == 1 then return 0 end
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if filling then
  local at = tonumber(string.match(filling, ':(%d+)$'))
  if at and at > tonumber(ARGV[2]) - tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], '${FILLING_MARK}', ARGV[1] .. ':' .. ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return 1`;
// HSETNX: a phone whose change was written since its batch was read keeps the change.
const FILL_BATCH = `
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if not filling or string.sub(filling, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
for at = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[at], ARGV[at + 1]) end
redis.call('HSET', KEYS[1], '${FILLING_MARK}', ARGV[1] .. ':' .. ARGV[2])
return 1`;
const COMPLETE_FILL = `
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if not filling or string.sub(filling, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
redis.call('HDEL', KEYS[1], '${FILLING_MARK}')
redis.call('HSET', KEYS[1], '${COMPLETE_MARK}', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;
const LOCK_RETRY_MS = 20;
/** Bounds the memory kept for locks to give back after an outage (each expires on its own anyway). */
const MAX_UNRELEASED = 10_000;

/**
 * One key per session (JSON, expiring), plus sorted sets of active sessions scored by expiry time: listing reads
 * those indexes instead of walking the keyspace. Where each key lives (one node, or hash-tagged slots of a cluster):
 * `RedisKeyLayout`.
 */
export class RedisSessionStore extends SessionStore {
  private readonly releaseLock;
  private readonly countLockAndRead;
  private readonly lockAndRead;
  private readonly writeAndUnlock;
  private readonly listIndex;
  private readonly rememberLanguage;
  private readonly beginFill;
  private readonly fillBatch;
  private readonly completeFill;
  private readonly layout: RedisKeyLayout;
  /** The phone-language copy's key, named once (every hop passes it to the lock-and-read script). */
  private readonly copyKeyName: string;
  /** On a cluster, the hop's rate-limit count, in its own slot. */
  private readonly counter: RedisRateLimitStorage;
  /**
   * Lock tokens need only be unique (a holder releases its own lock and no other): an id drawn once per store and a
   * counter, instead of random bytes on every hop.
   */
  private readonly tokenPrefix = randomBytes(12).toString('base64url');
  private tokens = 0;
  /**
   * Locks of failed hops that could not be given back (Redis was unreachable): given back as soon as it answers
   * again, so the aggregator's retry does not find its session busy until the lock expires. Token-checked, so a
   * lock taken since by another hop is left alone.
   */
  private readonly unreleased = new Map<string, { token: string; expiresAt: number }>();
  /** Language changes committed in PostgreSQL whose copy could not be written (Redis unreachable): written on 'ready'. */
  private readonly unwrittenLanguages = new Map<string, { language: string; ttlSeconds: number }>();

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.layout = keyLayoutFor(redis, prefix);
    this.copyKeyName = this.layout.phoneLanguages();
    this.counter = new RedisRateLimitStorage(redis, prefix);
    this.listIndex = redisScript(redis, 'ussdListActive', LIST_INDEX, 1);
    this.releaseLock = redisScript(redis, 'ussdReleaseLock', RELEASE_LOCK, 1);
    this.countLockAndRead = redisScript(redis, 'ussdCountLockAndRead', COUNT_LOCK_AND_READ, 7);
    this.lockAndRead = redisScript(redis, 'ussdLockAndRead', LOCK_AND_READ, 3);
    this.rememberLanguage = redisScript(redis, 'ussdRememberPhoneLanguage', REMEMBER_PHONE_LANGUAGE, 1);
    this.beginFill = redisScript(redis, 'ussdBeginPhoneLanguageFill', BEGIN_FILL, 1);
    this.fillBatch = redisScript(redis, 'ussdFillPhoneLanguages', FILL_BATCH, 1);
    this.completeFill = redisScript(redis, 'ussdCompletePhoneLanguageFill', COMPLETE_FILL, 1);
    this.writeAndUnlock = redisScript(redis, 'ussdWriteAndUnlock', WRITE_AND_UNLOCK, 3);
    redis.on('ready', () => void this.releaseLeftovers());
  }

  private async releaseLeftovers(): Promise<void> {
    const now = this.now();
    for (const [lockKey, { token, expiresAt }] of [...this.unreleased]) {
      this.unreleased.delete(lockKey);
      if (expiresAt > now) await this.releaseLock(lockKey, token).catch(() => undefined);
    }
    for (const [phoneNumber, { language, ttlSeconds }] of [...this.unwrittenLanguages]) {
      this.unwrittenLanguages.delete(phoneNumber);
      await this.rememberPhoneLanguage(phoneNumber, language, ttlSeconds).catch(() => undefined);
    }
  }

  async rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void> {
    try {
      await this.rememberLanguage(this.copyKeyName, phoneNumber, language, ttlSeconds);
      this.unwrittenLanguages.delete(phoneNumber);
    } catch (error) {
      // PostgreSQL has the change already; the copy catches up as soon as Redis answers again (or with its expiry).
      if (this.unwrittenLanguages.size < MAX_UNRELEASED) this.unwrittenLanguages.set(phoneNumber, { language, ttlSeconds });
      throw error;
    }
  }

  async readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy> {
    const [language, complete] = await this.redis.hmget(this.copyKeyName, phoneNumber, COMPLETE_MARK);
    return copyOf(language ?? undefined, complete ?? undefined);
  }

  async beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null> {
    const token = `${this.tokenPrefix}.${(this.tokens += 1)}`;
    const begun = await this.beginFill(this.copyKeyName, token, this.now(), staleAfterMs, ttlSeconds);
    return begun === 1 ? token : null;
  }

  async fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean> {
    const pairs = entries.flatMap((entry) => [entry.phoneNumber, entry.language]);
    return (await this.fillBatch(this.copyKeyName, token, this.now(), ...pairs)) === 1;
  }

  async completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean> {
    return (await this.completeFill(this.copyKeyName, token, this.now(), ttlSeconds)) === 1;
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    const json = await this.redis.get(this.layout.session(sessionId));
    return json === null ? null : (JSON.parse(json) as SessionRecord);
  }

  async save(record: SessionRecord, ttlSeconds: number): Promise<void> {
    await this.write(record, ttlSeconds, '');
  }

  /** Writes the record; with a lock token, only while that lock holds (and then unlocks). False: not written. */
  private async write(record: SessionRecord, ttlSeconds: number, lockToken: string): Promise<boolean> {
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
    const indexes = await Promise.all(this.layout.indexes().map((index) => this.listIndex(index, now, limit) as Promise<string[]>));
    const entries: Array<{ id: string; expiresAt: number }> = [];
    for (const flat of indexes) for (let at = 0; at < flat.length; at += 2) entries.push({ id: flat[at]!, expiresAt: Number(flat[at + 1]) });
    return entries
      .sort((a, b) => a.expiresAt - b.expiresAt)
      .slice(0, limit)
      .map((entry) => entry.id);
  }

  async open(sessionId: string, options: OpenOptions): Promise<OpenedHop> {
    const { signal } = options;
    const lockKey = this.layout.lock(sessionId);
    const token = `${this.tokenPrefix}.${(this.tokens += 1)}`;
    let released = false;
    // Idempotent; if Redis cannot be reached, retried when it answers again (the lock also expires on its own).
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      signal?.removeEventListener('abort', onAbort);
      await this.releaseLock(lockKey, token).catch(() => {
        if (this.unreleased.size < MAX_UNRELEASED) this.unreleased.set(lockKey, { token, expiresAt: this.now() + options.waitMs * 2 });
      });
    };
    // The hop has answered "unavailable": the session is free for the aggregator's retry right away.
    const onAbort = (): void => void release();
    let locked: Locked;
    try {
      locked = await this.lock(sessionId, token, options);
    } catch (error) {
      // A lock command that got no answer may still run later (a slow link): this release follows it on the same
      // connection, so such a lock never outlives the hop that asked for it.
      await release();
      throw error;
    }
    if (locked.record === undefined) return { count: locked.count, sessionCount: locked.sessionCount };
    signal?.addEventListener('abort', onAbort, { once: true });
    const lease: SessionLease = {
      record: locked.record,
      phoneLanguage: locked.phoneLanguage,
      release,
      commit: async (record, ttlSeconds) => {
        signal?.throwIfAborted();
        const written = await this.write(record, ttlSeconds, token);
        // Either the write unlocked, or the lock was no longer this hop's to give back. A write that failed leaves
        // the lock to `release`.
        released = true;
        signal?.removeEventListener('abort', onAbort);
        if (!written) throw new SessionLockLostError(sessionId);
      },
    };
    return { count: locked.count, sessionCount: locked.sessionCount, lease };
  }

  /**
   * Counts the hop's rate-limit hit (on the first try only) and takes the session's lock, reading the record: no
   * `record` when the count is past its limit (no lock taken), `null` when the session does not exist yet.
   */
  private async lock(sessionId: string, token: string, options: OpenOptions): Promise<Locked> {
    const lockKey = this.layout.lock(sessionId);
    const sessionKey = this.layout.session(sessionId);
    const deadline = this.now() + options.waitMs;
    // The lock expires on its own, so a crashed instance cannot wedge a session for longer than one hop budget.
    const lockMs = options.waitMs * 2;
    options.signal?.throwIfAborted();
    const first = await this.countAndLock(lockKey, sessionKey, token, lockMs, options);
    const { count, sessionCount } = first;
    let { acquired, json, copy } = first;
    if (count.isBlocked || sessionCount?.isBlocked) {
      // Only on a cluster, where the lock was asked for beside the counts: given back at once.
      if (acquired) await this.releaseLock(lockKey, token);
      return { count, sessionCount };
    }
    while (!acquired) {
      if (this.now() >= deadline) throw new SessionBusyError(sessionId);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      options.signal?.throwIfAborted();
      let result: number;
      [result, json, ...copy] = (await this.lockAndRead(
        lockKey,
        sessionKey,
        this.copyKey(sessionKey),
        token,
        lockMs,
        this.copyPhone(options),
      )) as LockAndReadReply;
      acquired = result === 1;
    }
    if (json) return { count, sessionCount, record: JSON.parse(json) as SessionRecord };
    if (options.phoneNumber === undefined) return { count, sessionCount, record: null };
    // On a cluster the copy lives in a slot of its own: read after the lock, on dials only.
    const phoneLanguage = this.layout.clustered ? await this.readPhoneLanguage(options.phoneNumber) : copyOf(copy[0], copy[1]);
    return { count, sessionCount, record: null, phoneLanguage };
  }

  /**
   * The first try: on one node the counts and the lock in one script (a count past its limit takes no lock); on a
   * cluster each counter lives in a slot of its own, so the counts are sent beside the lock-and-read, all at once, and
   * a lock taken by a refused hop is given back.
   */
  private async countAndLock(
    lockKey: string,
    sessionKey: string,
    token: string,
    lockMs: number,
    options: OpenOptions,
  ): Promise<{ count: RateLimitCount; sessionCount?: RateLimitCount; acquired: boolean; json?: string | null; copy: CopyReply }> {
    const { hit, sessionHit } = options;
    if (!this.layout.clustered) {
      const [acquired, hits, ttlMs, blockedMs, sessionHits, sessionTtlMs, sessionBlockedMs, json, ...copy] = (await this.countLockAndRead(
        lockKey,
        sessionKey,
        ...this.layout.rateLimit(hit.key),
        ...this.layout.rateLimit((sessionHit ?? hit).key),
        this.copyKeyName,
        token,
        lockMs,
        ...hitArguments(hit),
        ...(sessionHit ? hitArguments(sessionHit) : [0, 0, 0]),
        this.copyPhone(options),
      )) as [number, number, number, number, number, number, number, string | null | undefined, ...CopyReply];
      return {
        count: countOf(hits, ttlMs, blockedMs),
        sessionCount: sessionHit ? countOf(sessionHits, sessionTtlMs, sessionBlockedMs) : undefined,
        acquired: acquired === 1,
        json,
        copy,
      };
    }
    const increment = (counted: RateLimitHit): Promise<RateLimitCount> =>
      this.counter.increment(counted.key, counted.ttlMs, counted.limit, counted.blockMs);
    const [counted, sessionCounted, locked] = await Promise.allSettled([
      increment(hit),
      sessionHit ? increment(sessionHit) : Promise.resolve(undefined),
      this.lockAndRead(lockKey, sessionKey, sessionKey, token, lockMs, '') as Promise<LockAndReadReply>,
    ]);
    for (const settled of [counted, sessionCounted, locked]) if (settled.status === 'rejected') throw settled.reason;
    const value = <T>(settled: PromiseSettledResult<T>): T => (settled as PromiseFulfilledResult<T>).value;
    const [acquired, json] = value(locked);
    return { count: value(counted), sessionCount: value(sessionCounted), acquired: acquired === 1, json, copy: [] };
  }

  /** The copy's key beside a session's in one script: on a cluster (another slot) the session's key stands in, unread. */
  private copyKey(sessionKey: string): string {
    return this.layout.clustered ? sessionKey : this.copyKeyName;
  }

  /** The phone whose copy the lock-and-read scripts read when there is no record ('' = none; a cluster reads it apart). */
  private copyPhone(options: OpenOptions): string {
    return this.layout.clustered ? '' : (options.phoneNumber ?? '');
  }
}

interface Locked {
  count: OpenedHop['count'];
  sessionCount: OpenedHop['sessionCount'];
  /** Absent when the count is past its limit (no lock taken); null when the session does not exist yet. */
  record?: SessionRecord | null;
  phoneLanguage?: PhoneLanguageCopy;
}

/** The phone's field and the complete mark, as the lock-and-read scripts return them after a missing record. */
type CopyReply = Array<string | null | undefined>;
type LockAndReadReply = [number, string | null | undefined, ...CopyReply];

function copyOf(language: string | null | undefined, complete: string | null | undefined): PhoneLanguageCopy {
  if (language) return { kind: 'chosen', language };
  return complete ? { kind: 'none' } : { kind: 'unknown' };
}

const hitArguments = (hit: RateLimitHit): number[] => [hit.ttlMs, hit.limit, hit.blockMs];
