import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { COUNT_HIT_LUA, countOf, rateLimitKeys } from '../rate-limit/rate-limit.storage';
import { redisScript } from '../redis/redis-script';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import { OpenedHop, OpenOptions, SessionBusyError, SessionLease, SessionLockLostError, SessionRecord, SessionStore } from './session-store';

// A hop costs two round trips to Redis, as few as a read and a write can: count-lock-and-read, write-and-unlock.
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
if not record then return {1, unpack(counts)} end
return {1, counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], record}`;
const LOCK_AND_READ = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0} end
local record = redis.call('GET', KEYS[2])
if not record then return {1} end
return {1, record}`;
// Fenced: a hop writes only while the lock is still its own (it may have expired, or been given back when the
// hop ran out of budget, and another hop may hold it now); 0 = nothing written. Sessions that expired without an
// END would stay in the index forever: every write trims what has expired since the last one (only those entries
// are touched).
const WRITE_AND_UNLOCK = `
if ARGV[7] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[7] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if ARGV[3] == 'active' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) else redis.call('ZREM', KEYS[2], ARGV[5]) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
if ARGV[7] ~= '' then redis.call('DEL', KEYS[3]) end
return 1`;
const LOCK_RETRY_MS = 20;
/** Bounds the memory kept for locks to give back after an outage (each expires on its own anyway). */
const MAX_UNRELEASED = 10_000;

/**
 * One key per session (`<prefix>session:<id>`, JSON, expiring), plus a sorted set of active sessions scored by
 * expiry time: listing reads that index instead of walking the keyspace.
 */
export class RedisSessionStore extends SessionStore {
  private readonly releaseLock;
  private readonly countLockAndRead;
  private readonly lockAndRead;
  private readonly writeAndUnlock;
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

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.releaseLock = redisScript(redis, 'ussdReleaseLock', RELEASE_LOCK, 1);
    this.countLockAndRead = redisScript(redis, 'ussdCountLockAndRead', COUNT_LOCK_AND_READ, 6);
    this.lockAndRead = redisScript(redis, 'ussdLockAndRead', LOCK_AND_READ, 2);
    this.writeAndUnlock = redisScript(redis, 'ussdWriteAndUnlock', WRITE_AND_UNLOCK, 3);
    redis.on('ready', () => void this.releaseLeftovers());
  }

  private async releaseLeftovers(): Promise<void> {
    const now = this.now();
    for (const [lockKey, { token, expiresAt }] of [...this.unreleased]) {
      this.unreleased.delete(lockKey);
      if (expiresAt > now) await this.releaseLock(lockKey, token).catch(() => undefined);
    }
  }

  private key(sessionId: string): string {
    return `${this.prefix}session:${sessionId}`;
  }

  private get indexKey(): string {
    return `${this.prefix}sessions:active`;
  }

  async get(sessionId: string): Promise<SessionRecord | null> {
    const json = await this.redis.get(this.key(sessionId));
    return json === null ? null : (JSON.parse(json) as SessionRecord);
  }

  async save(record: SessionRecord, ttlSeconds: number): Promise<void> {
    await this.write(record, ttlSeconds, '');
  }

  /** Writes the record; with a lock token, only while that lock holds (and then unlocks). False: not written. */
  private async write(record: SessionRecord, ttlSeconds: number, lockToken: string): Promise<boolean> {
    const now = this.now();
    const written = await this.writeAndUnlock(
      this.key(record.sessionId),
      this.indexKey,
      this.lockKey(record.sessionId),
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

  private lockKey(sessionId: string): string {
    return `${this.prefix}lock:${sessionId}`;
  }

  async listActive(limit: number): Promise<string[]> {
    const results = await this.redis
      .multi()
      .zremrangebyscore(this.indexKey, '-inf', this.now())
      .zrange(this.indexKey, 0, limit - 1)
      .exec();
    const [error, ids] = results?.[1] ?? [new Error('Redis transaction was discarded'), null];
    if (error) throw error;
    return ids as string[];
  }

  async open(sessionId: string, options: OpenOptions): Promise<OpenedHop> {
    const { signal } = options;
    const lockKey = this.lockKey(sessionId);
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
    const lockKey = this.lockKey(sessionId);
    const sessionKey = this.key(sessionId);
    const deadline = this.now() + options.waitMs;
    // The lock expires on its own, so a crashed instance cannot wedge a session for longer than one hop budget.
    const lockMs = options.waitMs * 2;
    options.signal?.throwIfAborted();
    const { hit, sessionHit } = options;
    const [acquired, hits, ttlMs, blockedMs, sessionHits, sessionTtlMs, sessionBlockedMs, first] = (await this.countLockAndRead(
      lockKey,
      sessionKey,
      ...rateLimitKeys(this.prefix, hit.key),
      ...rateLimitKeys(this.prefix, (sessionHit ?? hit).key),
      token,
      lockMs,
      ...hitArguments(hit),
      ...(sessionHit ? hitArguments(sessionHit) : [0, 0, 0]),
    )) as [number, number, number, number, number, number, number, string | undefined];
    const count = countOf(hits, ttlMs, blockedMs);
    const sessionCount = sessionHit ? countOf(sessionHits, sessionTtlMs, sessionBlockedMs) : undefined;
    if (count.isBlocked || sessionCount?.isBlocked) return { count, sessionCount };
    let json = first;
    for (let taken = acquired === 1; !taken; ) {
      if (this.now() >= deadline) throw new SessionBusyError(sessionId);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      options.signal?.throwIfAborted();
      let result: number;
      [result, json] = (await this.lockAndRead(lockKey, sessionKey, token, lockMs)) as [number, string | undefined];
      taken = result === 1;
    }
    return { count, sessionCount, record: json === undefined ? null : (JSON.parse(json) as SessionRecord) };
  }
}

interface Locked {
  count: OpenedHop['count'];
  sessionCount: OpenedHop['sessionCount'];
  /** Absent when the count is past its limit (no lock taken); null when the session does not exist yet. */
  record?: SessionRecord | null;
}

const hitArguments = (hit: RateLimitHit): number[] => [hit.ttlMs, hit.limit, hit.blockMs];
