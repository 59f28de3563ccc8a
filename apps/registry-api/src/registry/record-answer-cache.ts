import { ChangeListener, RECORD_CHANNEL } from '../database/change-listener';
import type { RenderedJson } from '../http/rendered-json';

export interface RecordAnswerCacheOptions {
  /** Most answers kept over all tables; the oldest goes first. 0 keeps nothing. */
  maxEntries: number;
  /** Told whether each lookup made while the cache is trusted was answered from memory (the cache metrics). */
  onLookup?: (endpoint: string, hit: boolean) => void;
  /**
   * Runs a computation whose answer will be kept, on data at least as new as every notification received: the
   * primary, when the service reads from replicas (see `SqlReader.onPrimary`).
   */
  readFresh?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * Answers read from one record table (the most recent record of a selection, the total of a collection's filters),
 * kept until that table changes. Unlike the aggregate cache there is no TTL to fall back on: records change by
 * single writes, so an answer is served from memory only while the change listener is live (`trust(true)`), and a
 * table's answers go the moment its notification arrives (`tableChanged`). While not trusted every lookup computes.
 * An answer computed from data read before a change of its table (or before the listener came or went) is not
 * stored.
 */
export class RecordAnswerCache<V> {
  private readonly answers = new Map<string, { table: string; value: V }>();
  private readonly tableGenerations = new Map<string, number>();
  // Bumped when trust changes: a computation that straddles it is not stored.
  private epoch = 0;
  private trusted = false;
  private readonly onLookup: (endpoint: string, hit: boolean) => void;
  private readonly readFresh: <T>(work: () => Promise<T>) => Promise<T>;

  constructor(private readonly options: RecordAnswerCacheOptions) {
    this.onLookup = options.onLookup ?? (() => undefined);
    this.readFresh = options.readFresh ?? ((work) => work());
  }

  get size(): number {
    return this.answers.size;
  }

  async getOrCompute(table: string, endpoint: string, key: string, compute: () => Promise<V>): Promise<V> {
    if (!this.trusted || this.options.maxEntries === 0) return compute();
    const fullKey = `${table}\u0000${endpoint}\u0000${key}`;
    const cached = this.answers.get(fullKey);
    this.onLookup(endpoint, cached !== undefined);
    if (cached) return cached.value;
    const generation = this.generationOf(table);
    const value = await this.readFresh(compute);
    if (this.trusted && this.generationOf(table) === generation) this.remember(fullKey, table, value);
    return value;
  }

  /** The listener came (`true`) or went (`false`): notifications may have been missed, every answer goes. */
  trust(live: boolean): void {
    this.trusted = live;
    this.epoch += 1;
    this.answers.clear();
  }

  tableChanged(table: string): void {
    this.tableGenerations.set(table, (this.tableGenerations.get(table) ?? 0) + 1);
    for (const [key, entry] of this.answers) if (entry.table === table) this.answers.delete(key);
  }

  private generationOf(table: string): string {
    return `${this.epoch}:${this.tableGenerations.get(table) ?? 0}`;
  }

  private remember(key: string, table: string, value: V): void {
    if (!this.answers.has(key) && this.answers.size >= this.options.maxEntries) {
      const oldest = this.answers.keys().next();
      if (!oldest.done) this.answers.delete(oldest.value);
    }
    this.answers.set(key, { table, value });
  }
}

/** What a most-recent-record request answered: the rendered record, or a 404 the same data would give again. */
export type LatestRecordAnswer =
  | { kind: 'ok'; rendered: RenderedJson }
  | { kind: 'not-found'; message: string };

/** The most recent record of each selection, rendered. */
export class LatestRecordAnswers extends RecordAnswerCache<LatestRecordAnswer> {}

/** The total of each collection's filters, what a first page counts. */
export class CollectionTotals extends RecordAnswerCache<number> {}

/**
 * Record answers are trusted only while the listener is live (they have no TTL to fall back on); a table's answers go
 * when its change is reported.
 */
export function followRecordChanges<C extends RecordAnswerCache<unknown>>(
  cache: C,
  listener: ChangeListener,
): C {
  if (listener.state === 'live') cache.trust(true);
  listener.on('live', () => cache.trust(true));
  listener.on('down', () => cache.trust(false));
  listener.on('unsupported', () => cache.trust(false));
  listener.on('notification', (channel, payload) => {
    if (channel === RECORD_CHANNEL) cache.tableChanged(payload);
  });
  return cache;
}
