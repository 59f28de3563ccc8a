import { NotFoundError } from '@dmrv/errors';
import { RenderedJson, renderJson } from '../http/http-cache';

/** What an aggregate request answered: the rendered body, or a 404 that the same data would give again. */
export type CachedAnswer = { kind: 'ok'; rendered: RenderedJson } | { kind: 'not-found'; message: string };

export interface AggregateTicket {
  generation: number;
  startedAt: number;
}

/**
 * Aggregate answers by endpoint and normalised query, between rollup refreshes. An answer is dropped on `clear()`
 * (a refresh or a `projects` change was reported, or the listener came or went) and in any case `ttlMs` after the
 * computation that produced it started, which bounds staleness when no notification can arrive.
 */
export class AggregateCache {
  private readonly answers = new Map<string, { answer: CachedAnswer; expiresAt: number }>();
  // Bumped by every clear(): an answer computed from data read before it is not stored after it.
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.answers.size;
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.answers.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.answer;
    this.answers.delete(key);
    return undefined;
  }

  /** Taken before computing an answer, handed back to `remember` with it. */
  ticket(): AggregateTicket {
    return { generation: this.generation, startedAt: this.now() };
  }

  remember(key: string, answer: CachedAnswer, ticket: AggregateTicket): void {
    if (this.ttlMs === 0 || ticket.generation !== this.generation) return;
    if (!this.answers.has(key) && this.answers.size >= this.maxEntries) {
      const oldest = this.answers.keys().next();
      if (!oldest.done) this.answers.delete(oldest.value);
    }
    this.answers.set(key, { answer, expiresAt: ticket.startedAt + this.ttlMs });
  }

  clear(): void {
    this.generation += 1;
    this.answers.clear();
  }
}

/**
 * The cache key of an aggregate request: the endpoint and the validated query (what the service computes from),
 * parameters sorted and values JSON-quoted so no two different queries share a key.
 */
export function aggregateKey(endpoint: string, query: object): string {
  const parts = Object.entries(query)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return `${endpoint}?${parts.join('&')}`;
}

/**
 * Serves an aggregate from the cache or computes, renders and keeps it. Only for answers that depend on nothing but
 * the rollups and `projects` (whose changes are notified): the caller decides, per endpoint and query. A 404 from
 * the computation is kept too (its scope checks read the same data); any other error, a 400 included, never is.
 */
export class AggregateAnswers {
  constructor(
    private readonly cache: AggregateCache,
    /** Told whether each request was answered from the cache (the cache metrics). */
    private readonly onLookup: (endpoint: string, hit: boolean) => void = () => undefined,
  ) {}

  async answer(endpoint: string, query: object, compute: () => Promise<unknown>): Promise<RenderedJson> {
    const key = aggregateKey(endpoint, query);
    const cached = this.cache.get(key);
    this.onLookup(endpoint, cached !== undefined);
    if (cached?.kind === 'ok') return cached.rendered;
    if (cached?.kind === 'not-found') throw new NotFoundError(cached.message);
    const ticket = this.cache.ticket();
    let rendered: RenderedJson;
    try {
      rendered = renderJson(await compute());
    } catch (error) {
      if (error instanceof NotFoundError)
        this.cache.remember(key, { kind: 'not-found', message: error.message }, ticket);
      throw error;
    }
    this.cache.remember(key, { kind: 'ok', rendered }, ticket);
    return rendered;
  }
}
