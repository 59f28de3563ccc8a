import { createHash } from 'node:crypto';
import type { Metadata } from '@grpc/grpc-js';

/** A successful answer as the gateway sends it, shared by every request that asked the same question. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface StoredAnswer extends Answer {
  /** Strong validator of the body (a client revalidates with If-None-Match). */
  etag: string;
}

/** How a request got its answer: from the store, by joining an identical call in flight, or by its own call. */
export type AnswerSource = 'hit' | 'coalesced' | 'miss';

export interface CachedLookup {
  answer: StoredAnswer;
  source: AnswerSource;
  /** Milliseconds the answer stays fresh from now: Infinity for a height-pinned answer, 0 when not kept. */
  freshForMs: number;
}

export interface AnswerCacheOptions {
  /** How long a latest-height answer is kept; 0 keeps none (identical calls in flight are still joined). */
  latestTtlMs: number;
  /** Bytes of answer bodies kept at most, least recently used out first; 0 keeps nothing. */
  maxBytes: number;
  now?: () => number;
  observe?: (source: AnswerSource) => void;
}

interface Entry {
  answer: StoredAnswer;
  expiresAt: number;
  bytes: number;
}

export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Identical questions (same gRPC method, same request bytes, same forwarded metadata) get one upstream call: a
 * question asked while the same one is in flight waits for that call (its answer or its error), and a successful
 * answer is kept: an answer at a pinned height never changes (the chain's state at a height is final), so it is kept
 * until the byte budget pushes it out; a latest-height answer for `latestTtlMs`. Errors are shared but never kept.
 */
export class AnswerCache {
  private readonly inFlight = new Map<string, Promise<StoredAnswer>>();
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: AnswerCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get bytesKept(): number {
    return this.bytes;
  }

  async lookup(key: string, pinned: boolean, call: () => Promise<Answer>): Promise<CachedLookup> {
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.expiresAt > now) {
        // Map order is the recency order: a hit moves the entry to the young end.
        this.entries.delete(key);
        this.entries.set(key, entry);
        this.options.observe?.('hit');
        return { answer: entry.answer, source: 'hit', freshForMs: entry.expiresAt - now };
      }
      this.remove(key, entry);
    }
    const pending = this.inFlight.get(key);
    if (pending !== undefined) {
      this.options.observe?.('coalesced');
      const answer = await pending;
      return { answer, source: 'coalesced', freshForMs: this.freshFor(key) };
    }
    this.options.observe?.('miss');
    const started = (async (): Promise<StoredAnswer> => {
      try {
        const answer = await call();
        const stored: StoredAnswer = { ...answer, etag: etagOf(answer.body) };
        this.store(key, stored, pinned);
        return stored;
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, started);
    const answer = await started;
    return { answer, source: 'miss', freshForMs: this.freshFor(key) };
  }

  private freshFor(key: string): number {
    const entry = this.entries.get(key);
    return entry === undefined ? 0 : Math.max(0, entry.expiresAt - this.now());
  }

  private store(key: string, answer: StoredAnswer, pinned: boolean): void {
    const ttl = pinned ? Infinity : this.options.latestTtlMs;
    // Bodies are mostly ASCII JSON: their length is close enough to their size in bytes for a budget.
    const bytes = answer.body.length;
    if (ttl <= 0 || bytes > this.options.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.remove(key, previous);
    this.entries.set(key, { answer, expiresAt: this.now() + ttl, bytes });
    this.bytes += bytes;
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) break;
      this.remove(oldKey, oldEntry);
    }
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** Metadata that differs on every request without changing the answer. */
const NOT_IN_KEY = new Set(['x-request-id', 'traceparent', 'tracestate']);

/** What makes two questions identical: the method, the request bytes and every forwarded metadata entry. */
export function answerKey(grpcPath: string, payload: Buffer, metadata: Metadata): string {
  const entries = Object.entries(metadata.getMap())
    .filter(([name]) => !NOT_IN_KEY.has(name))
    .map(([name, value]) => `${name}=${String(value)}`)
    .sort();
  return `${grpcPath}\n${payload.toString('base64')}\n${entries.join('\n')}`;
}

/** A year: what "never changes" is written as (RFC 9111 recommends no more). */
const IMMUTABLE_MAX_AGE_S = 31_536_000;

/**
 * The validator and freshness headers of an answer. `shared`: whether a shared cache (a CDN, a proxy) may keep it,
 * false when access is by API key or the request carried credentials for the node.
 */
export function cacheHeaders(lookup: CachedLookup, pinned: boolean, shared: boolean): Record<string, string> {
  const scope = shared ? 'public' : 'private';
  const seconds = Math.floor(lookup.freshForMs / 1000);
  const control = pinned
    ? `${scope}, max-age=${IMMUTABLE_MAX_AGE_S}, immutable`
    : seconds > 0
      ? `${scope}, max-age=${seconds}`
      : `${scope}, no-cache`;
  return { etag: lookup.answer.etag, 'cache-control': control, vary: 'x-cosmos-block-height' };
}

/** If-None-Match (RFC 9110 §13.1.2): weak comparison, a list, or `*`. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
