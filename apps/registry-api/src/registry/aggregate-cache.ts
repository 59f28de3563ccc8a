import { NotFoundError } from '@dmrv/errors';
import { RenderedJson, renderJson } from '../http/rendered-json';

/** What an aggregate request answered: the rendered body, or a 404 that the same data would give again. */
type CachedAnswer = { kind: 'ok'; rendered: RenderedJson } | { kind: 'not-found'; message: string };

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

export interface AggregateCacheOptions {
  /** How long an answer is kept, counted from when its computation started; 0 keeps nothing. */
  ttlMs: number;
  /** Most answers kept; the oldest goes first. */
  maxEntries: number;
  /** Told whether each request was answered from the cache (the cache metrics). */
  onLookup?: (endpoint: string, hit: boolean) => void;
  /**
   * Runs a computation whose answer will be kept, on data at least as new as every notification received: the
   * primary, when the service reads from replicas (see `SqlReader.onPrimary`).
   */
  readFresh?: <T>(work: () => Promise<T>) => Promise<T>;
  now?: () => number;
}

/**
 * Aggregate answers by endpoint and normalised query, rendered once and served until the data may have changed:
 * `clear()` (a refresh or a `projects` change was reported, or the listener came or went) drops them all, and each
 * expires `ttlMs` after the computation that produced it started, which bounds staleness when no notification can
 * arrive. Only for answers that depend on nothing but the rollups and `projects` (whose changes are notified): the
 * caller decides, per endpoint and query. A 404 from the computation is kept too (its scope checks read the same
 * data); any other error, a 400 included, never is.
 */
export class AggregateAnswerCache {
  private readonly answers = new Map<string, { answer: CachedAnswer; expiresAt: number }>();
  // Bumped by every clear(): an answer computed from data read before it is not stored after it.
  private generation = 0;
  private readonly now: () => number;
  private readonly onLookup: (endpoint: string, hit: boolean) => void;

  constructor(private readonly options: AggregateCacheOptions) {
    this.now = options.now ?? Date.now;
    this.onLookup = options.onLookup ?? (() => undefined);
  }

  get size(): number {
    return this.answers.size;
  }

  async getOrCompute<T>(
    endpoint: string,
    query: object,
    compute: () => Promise<T>,
  ): Promise<RenderedJson<T>> {
    const key = aggregateKey(endpoint, query);
    const cached = this.get(key);
    this.onLookup(endpoint, cached !== undefined);
    if (cached?.kind === 'ok') return cached.rendered as RenderedJson<T>;
    if (cached?.kind === 'not-found') throw new NotFoundError(cached.message);
    const generation = this.generation;
    const startedAt = this.now();
    let rendered: RenderedJson<T>;
    try {
      const { ttlMs, readFresh } = this.options;
      rendered = renderJson(await (ttlMs > 0 && readFresh ? readFresh(compute) : compute()));
    } catch (error) {
      if (error instanceof NotFoundError)
        this.remember(key, { kind: 'not-found', message: error.message }, generation, startedAt);
      throw error;
    }
    this.remember(key, { kind: 'ok', rendered }, generation, startedAt);
    return rendered;
  }

  clear(): void {
    this.generation += 1;
    this.answers.clear();
  }

  private get(key: string): CachedAnswer | undefined {
    const entry = this.answers.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > this.now()) return entry.answer;
    this.answers.delete(key);
    return undefined;
  }

  private remember(key: string, answer: CachedAnswer, generation: number, startedAt: number): void {
    if (this.options.ttlMs === 0 || generation !== this.generation) return;
    if (!this.answers.has(key) && this.answers.size >= this.options.maxEntries) {
      const oldest = this.answers.keys().next();
      if (!oldest.done) this.answers.delete(oldest.value);
    }
    this.answers.set(key, { answer, expiresAt: startedAt + this.options.ttlMs });
  }
}
