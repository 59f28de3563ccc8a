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

/**
 * How long an answer may be kept by the gateway: `pinned` (a height's state is final) until the byte bound pushes it
 * out, `latest` for the latest-height TTL, `none` (only joined while in flight).
 */
export type Retention = 'pinned' | 'latest' | 'none';

export interface CachedLookup {
  answer: StoredAnswer;
  source: AnswerSource;
  /** Milliseconds the answer stays fresh from now: Infinity for a height-pinned answer, 0 when not kept. */
  freshForMs: number;
}

export interface AnswerCacheOptions {
  /** How long a latest-height answer is kept; 0 keeps none (identical calls in flight are still joined). */
  latestTtlMs: number;
  /** Bytes kept at most, everything an entry holds counted (see `entryBytes`); 0 keeps nothing. */
  maxBytes: number;
  now?: () => number;
  observe?: (source: AnswerSource) => void;
  /** A kept answer dropped to make room for a new one: the cache is at `maxBytes`. Expired ones are not counted. */
  evicted?: () => void;
}

interface Entry {
  answer: StoredAnswer;
  expiresAt: number;
  bytes: number;
}

// What V8 spends on a kept entry besides the characters of its strings: the slots in both maps, the entry, answer and
// headers objects (measured at about 480 bytes for an entry with eight strings), and each string's own header.
const ENTRY_OVERHEAD_BYTES = 256;
const STRING_OVERHEAD_BYTES = 32;
// A string with any character above U+00FF is stored at two bytes per character, the others at one.
const TWO_BYTE_CHARACTER = /[\u0100-\uffff]/;

function stringBytes(text: string): number {
  return STRING_OVERHEAD_BYTES + (TWO_BYTE_CHARACTER.test(text) ? 2 : 1) * text.length;
}

/** The heap an entry holds: its key, the body, the ETag, every header name and value, and the objects around them. */
export function entryBytes(key: string, answer: StoredAnswer): number {
  let bytes = ENTRY_OVERHEAD_BYTES + stringBytes(key) + stringBytes(answer.body) + stringBytes(answer.etag);
  for (const name of Object.keys(answer.headers))
    bytes += stringBytes(name) + stringBytes(answer.headers[name]!);
  return bytes;
}

export function etagOf(body: string): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

/**
 * Identical questions (same gRPC method, same request bytes, same forwarded metadata) get one upstream call: a
 * question asked while the same one is in flight waits for that call (its answer or its error), and a successful
 * answer is kept as its retention says. Errors are shared but never kept.
 *
 * What is kept never exceeds `maxBytes`, counted as everything an entry holds: an attacker who makes every question
 * unique (a new height, a new query) only pushes older answers out. Expired latest-height answers are dropped on the
 * next lookup or scrape, least recently used ones when a new answer needs their room.
 */
export class AnswerCache {
  private readonly inFlight = new Map<string, Promise<StoredAnswer>>();
  /** Every kept entry; the Map's order is the recency order (a hit moves its entry to the young end). */
  private readonly entries = new Map<string, Entry>();
  /** The latest-height entries in the order they were stored, which is their expiry order: the TTL is one for all. */
  private readonly expiring = new Map<string, Entry>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly options: AnswerCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get bytesKept(): number {
    return this.bytes;
  }

  get entriesKept(): number {
    return this.entries.size;
  }

  async lookup(key: string, retention: Retention, call: () => Promise<Answer>): Promise<CachedLookup> {
    const now = this.now();
    this.evictExpired(now);
    const entry = this.entries.get(key);
    // The clock can step back, so an expired entry may still sit behind a fresher one in the expiry order.
    if (entry !== undefined && entry.expiresAt <= now) this.remove(key, entry);
    else if (entry !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.options.observe?.('hit');
      return { answer: entry.answer, source: 'hit', freshForMs: entry.expiresAt - now };
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
        this.store(key, stored, retention);
        return stored;
      } finally {
        this.inFlight.delete(key);
      }
    })();
    this.inFlight.set(key, started);
    const answer = await started;
    return { answer, source: 'miss', freshForMs: this.freshFor(key) };
  }

  /** Drops the latest-height answers whose time is up. */
  evictExpired(now: number = this.now()): void {
    for (const [key, entry] of this.expiring) {
      if (entry.expiresAt > now) break;
      this.remove(key, entry);
    }
  }

  private freshFor(key: string): number {
    const entry = this.entries.get(key);
    return entry === undefined ? 0 : Math.max(0, entry.expiresAt - this.now());
  }

  private store(key: string, answer: StoredAnswer, retention: Retention): void {
    const ttl = retention === 'pinned' ? Infinity : retention === 'latest' ? this.options.latestTtlMs : 0;
    if (ttl <= 0) return;
    const bytes = entryBytes(key, answer);
    if (bytes > this.options.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) this.remove(key, previous);
    const now = this.now();
    this.evictExpired(now);
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.bytes + bytes <= this.options.maxBytes) break;
      this.remove(oldKey, oldEntry);
      this.options.evicted?.();
    }
    const entry: Entry = { answer, expiresAt: now + ttl, bytes };
    this.entries.set(key, entry);
    if (retention === 'latest') this.expiring.set(key, entry);
    this.bytes += bytes;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.expiring.delete(key);
    this.bytes -= entry.bytes;
  }
}

/**
 * Metadata the gateway sets on every call itself, different on every request: its request id and its span's trace
 * context. Never taken from a caller's `Grpc-Metadata-*`, never part of the question, and never carried back in an
 * answer (see answerHeaders), so it cannot make one caller's answer another's.
 */
export const PER_REQUEST_METADATA: ReadonlySet<string> = new Set([
  'x-request-id',
  'traceparent',
  'tracestate',
]);

/** What makes two questions identical: the method, the request bytes and every forwarded metadata entry. */
export function answerKey(grpcPath: string, payload: Buffer, metadata: Metadata): string {
  const entries = Object.entries(metadata.getMap())
    .filter(([name]) => !PER_REQUEST_METADATA.has(name))
    .map(([name, value]) => `${name}=${String(value)}`)
    .sort();
  return `${grpcPath}\n${payload.toString('base64')}\n${entries.join('\n')}`;
}

/** If-None-Match (RFC 9110 §13.1.2): weak comparison, a list, or `*`. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
