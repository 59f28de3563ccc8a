import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { COUNT_HIT_LUA, countOf, rateLimitKeys } from '../rate-limit/rate-limit.storage';
import { redisScript } from '../redis/redis-script';
import { HopOptions, SessionBusyError, SessionRecord, SessionStore, SessionWork } from './session-store';

// A hop costs two round trips to Redis, as few as a read and a write can: count-lock-and-read, write-and-unlock.
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
// The rate-limit counter is charged before the lock: a refused request takes no lock, and a request waiting for
// the lock is counted once (retries use LOCK_AND_READ).
const COUNT_LOCK_AND_READ = `${COUNT_HIT_LUA}
local count = count_hit(KEYS[3], KEYS[4], ARGV[3], ARGV[4], ARGV[5])
if count[3] > 0 or not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0, count[1], count[2], count[3]} end
local record = redis.call('GET', KEYS[2])
if not record then return {1, count[1], count[2], count[3]} end
return {1, count[1], count[2], count[3], record}`;
const LOCK_AND_READ = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {0} end
local record = redis.call('GET', KEYS[2])
if not record then return {1} end
return {1, record}`;
// Sessions that expired without an END would stay in the index forever: every write trims what has expired
// since the last one (only those entries are touched).
const WRITE_AND_UNLOCK = `
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if ARGV[3] == 'active' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) else redis.call('ZREM', KEYS[2], ARGV[5]) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[6])
if ARGV[7] ~= '' and redis.call('GET', KEYS[3]) == ARGV[7] then redis.call('DEL', KEYS[3]) end
return 1`;
const LOCK_RETRY_MS = 20;

/**
 * One key per session (`<prefix>session:<id>`, JSON, expiring), plus a sorted set of active sessions scored by
 * expiry time: listing reads that index instead of walking the keyspace.
 */
export class RedisSessionStore implements SessionStore {
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

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    this.releaseLock = redisScript(redis, 'ussdReleaseLock', RELEASE_LOCK, 1);
    this.countLockAndRead = redisScript(redis, 'ussdCountLockAndRead', COUNT_LOCK_AND_READ, 4);
    this.lockAndRead = redisScript(redis, 'ussdLockAndRead', LOCK_AND_READ, 2);
    this.writeAndUnlock = redisScript(redis, 'ussdWriteAndUnlock', WRITE_AND_UNLOCK, 3);
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

  private async write(record: SessionRecord, ttlSeconds: number, lockToken: string): Promise<void> {
    const now = this.now();
    await this.writeAndUnlock(
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

  async withSession<T>(sessionId: string, options: HopOptions, work: SessionWork<T>): Promise<T> {
    const lockKey = this.lockKey(sessionId);
    const sessionKey = this.key(sessionId);
    const token = `${this.tokenPrefix}.${(this.tokens += 1)}`;
    const deadline = this.now() + options.waitMs;
    // The lock expires on its own, so a crashed instance cannot wedge a session for longer than one hop budget.
    const lockMs = options.waitMs * 2;
    let uncounted = options.rateLimit;
    let record: SessionRecord | null;
    for (;;) {
      let acquired: number;
      let json: string | undefined;
      if (uncounted) {
        const { hit, admit } = uncounted;
        uncounted = undefined;
        let hits: number, ttlMs: number, blockedMs: number;
        [acquired, hits, ttlMs, blockedMs, json] = (await this.countLockAndRead(
          lockKey,
          sessionKey,
          ...rateLimitKeys(this.prefix, hit.key),
          token,
          lockMs,
          hit.ttlMs,
          hit.limit,
          hit.blockMs,
        )) as [number, number, number, number, string | undefined];
        try {
          admit(countOf(hits, ttlMs, blockedMs));
        } catch (refusal) {
          if (acquired === 1) await this.releaseLock(lockKey, token).catch(() => undefined);
          throw refusal;
        }
      } else {
        [acquired, json] = (await this.lockAndRead(lockKey, sessionKey, token, lockMs)) as [number, string | undefined];
      }
      if (acquired === 1) {
        record = json === undefined ? null : (JSON.parse(json) as SessionRecord);
        break;
      }
      if (this.now() >= deadline) throw new SessionBusyError(sessionId);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    let outcome: Awaited<ReturnType<SessionWork<T>>>;
    try {
      outcome = await work(record);
    } catch (error) {
      await this.releaseLock(lockKey, token).catch(() => undefined);
      throw error;
    }
    if (outcome.save) await this.write(outcome.save, options.ttlSeconds, token);
    else await this.releaseLock(lockKey, token);
    return outcome.value;
  }
}
