import { Cluster } from 'ioredis';
import type { RedisClient } from './redis-client';

/**
 * Session buckets on a cluster: a session's keys and its entry in the active-session index share the hash tag of its
 * bucket, so every session script touches one slot. 256 spread evenly over any number of masters a gateway needs;
 * listing reads one index per bucket.
 */
export const SESSION_BUCKETS = 256;

/**
 * Where each key lives. On one node (or behind Sentinel) any script may touch any key: the hop's rate-limit count,
 * lock and read are one script. On a cluster a script may only touch keys of one slot, so keys that scripts use
 * together carry one hash tag (`{…}`): a session's record, lock and bucket index; a counter and its block.
 */
export interface RedisKeyLayout {
  /** True on a cluster: the rate-limit counter (per address or phone) lives in another slot than the session. */
  readonly clustered: boolean;
  session(sessionId: string): string;
  lock(sessionId: string): string;
  /** The active-session index the session's entry is in. */
  index(sessionId: string): string;
  /** Every active-session index, for listing. */
  indexes(): string[];
  /** The counter and block keys of a rate-limit key. */
  rateLimit(key: string): [counter: string, block: string];
  /** The hash of phones' remembered languages (one key, so that one mark inside it can say it is complete). */
  phoneLanguages(): string;
}

/** FNV-1a: cheap, and the same bucket on every instance. */
function bucketOf(sessionId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < sessionId.length; index += 1) {
    hash ^= sessionId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SESSION_BUCKETS;
}

/** The keys of one node: the names of the first version, so an upgrade keeps the sessions in flight. */
export function singleNodeLayout(prefix: string): RedisKeyLayout {
  return {
    clustered: false,
    session: (sessionId) => `${prefix}session:${sessionId}`,
    lock: (sessionId) => `${prefix}lock:${sessionId}`,
    index: () => `${prefix}sessions:active`,
    indexes: () => [`${prefix}sessions:active`],
    rateLimit: (key) => [`${prefix}rl:${key}`, `${prefix}rl:${key}:block`],
    phoneLanguages: () => `${prefix}phone-languages`,
  };
}

export function clusterLayout(prefix: string): RedisKeyLayout {
  const tag = (sessionId: string): string => `{s${bucketOf(sessionId)}}`;
  const indexes = Array.from(
    { length: SESSION_BUCKETS },
    (_, bucket) => `${prefix}{s${bucket}}sessions:active`,
  );
  return {
    clustered: true,
    session: (sessionId) => `${prefix}${tag(sessionId)}session:${sessionId}`,
    lock: (sessionId) => `${prefix}${tag(sessionId)}lock:${sessionId}`,
    index: (sessionId) => `${prefix}${tag(sessionId)}sessions:active`,
    indexes: () => indexes,
    // Both from the same string, so both hash alike whatever the key holds (a phone field may hold braces).
    rateLimit: (key) => [`${prefix}rl:{${key}}`, `${prefix}rl:{${key}}:block`],
    phoneLanguages: () => `${prefix}{phone-languages}`,
  };
}

export function keyLayoutFor(redis: RedisClient, prefix: string): RedisKeyLayout {
  return redis instanceof Cluster ? clusterLayout(prefix) : singleNodeLayout(prefix);
}
