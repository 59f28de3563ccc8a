import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { SessionBusyError, SessionRecord, SessionStore } from './session-store';

const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const LOCK_RETRY_MS = 20;

/**
 * One key per session (`<prefix>session:<id>`, JSON, expiring), plus a sorted set of active sessions scored by
 * expiry time: listing reads that index instead of walking the keyspace.
 */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly now: () => number = Date.now,
  ) {}

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
    const now = this.now();
    const multi = this.redis.multi().set(this.key(record.sessionId), JSON.stringify(record), 'EX', ttlSeconds);
    if (record.status === 'active') multi.zadd(this.indexKey, now + ttlSeconds * 1000, record.sessionId);
    else multi.zrem(this.indexKey, record.sessionId);
    // Sessions that expired without an END would stay in the index forever; every write trims what has expired
    // since the last one (cheap: only those entries are touched).
    multi.zremrangebyscore(this.indexKey, '-inf', now);
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('Redis transaction was discarded');
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

  async withLock<T>(sessionId: string, waitMs: number, work: () => Promise<T>): Promise<T> {
    const lockKey = `${this.prefix}lock:${sessionId}`;
    const token = randomBytes(12).toString('hex');
    const deadline = this.now() + waitMs;
    // The lock expires on its own, so a crashed instance cannot wedge a session for longer than one hop budget.
    while ((await this.redis.set(lockKey, token, 'PX', waitMs * 2, 'NX')) !== 'OK') {
      if (this.now() >= deadline) throw new SessionBusyError(sessionId);
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
    try {
      return await work();
    } finally {
      await this.redis.eval(RELEASE_LOCK, 1, lockKey, token).catch(() => undefined);
    }
  }
}
