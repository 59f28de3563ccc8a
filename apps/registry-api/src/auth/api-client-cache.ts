import type { ApiClientCredentialRow } from './api-clients.repository';

/**
 * Active API clients (id → stored secret hash) kept in memory so authentication needs no SQL round trip. Correct only
 * while something reports every change to `api_clients`: the cache answers nothing until `trust()` (the change
 * listener is live) and starts over empty on every `trust()`/`distrust()`, since changes made while nobody listened
 * are unknown.
 *
 * Only active clients are kept. An id that is unknown or revoked is read from the database every time: it costs a
 * scrypt run anyway, a client created a moment later must work at once, and a spray of random ids cannot push real
 * clients out.
 */
export class ApiClientCache {
  private readonly clients = new Map<string, ApiClientCredentialRow>();
  private trusted = false;
  // Bumped by every invalidation: a row read from the database before one is not stored after it.
  private generation = 0;

  constructor(
    private readonly maxEntries = 10_000,
    /** Told whether each lookup was answered from memory (the cache metrics). */
    private readonly onLookup: (hit: boolean) => void = () => undefined,
  ) {}

  get isTrusted(): boolean {
    return this.trusted;
  }

  get size(): number {
    return this.clients.size;
  }

  get(id: string): ApiClientCredentialRow | undefined {
    const row = this.trusted ? this.clients.get(id) : undefined;
    this.onLookup(row !== undefined);
    return row;
  }

  /** Taken before reading a client from the database, handed back to `remember` with what was read. */
  ticket(): number {
    return this.generation;
  }

  /**
   * Keeps a row read from the database, unless a change was reported since its ticket was taken: the read may have
   * seen the row as it was before that change.
   */
  remember(row: ApiClientCredentialRow, ticket: number): void {
    if (!this.trusted || ticket !== this.generation) return;
    if (!this.clients.has(row.id) && this.clients.size >= this.maxEntries) {
      const oldest = this.clients.keys().next();
      if (!oldest.done) this.clients.delete(oldest.value);
    }
    this.clients.set(row.id, row);
  }

  /** A change to one client was reported; an empty id means any client may have changed. */
  forget(id: string): void {
    this.generation += 1;
    if (id === '') this.clients.clear();
    else this.clients.delete(id);
  }

  trust(): void {
    this.generation += 1;
    this.clients.clear();
    this.trusted = true;
  }

  distrust(): void {
    this.generation += 1;
    this.clients.clear();
    this.trusted = false;
  }
}
