import { AsyncLocalStorage } from 'node:async_hooks';
import { DependencyUnavailableError } from '@dmrv/errors';
import type { DependencyProbe } from '@dmrv/health';
import { PoolReader } from './pool-reader';
import { ReplicaRouter } from './replica-router';

/**
 * Every read of the service. Reads go to the read replicas (least busy first, the primary when none answers); what
 * must see a commit as soon as its notification arrives reads the primary: `queryPrimary`, and everything run inside
 * `onPrimary` (the registry README, "Read replicas"). Without replicas every read is on the primary, and the
 * AsyncLocalStorage behind `onPrimary` is never enabled (it costs every async operation a little once it is).
 */
/** How long reads that prefer the primary go to a replica first after the primary failed to answer one. */
const PRIMARY_RECHECK_MS = 1_000;

export class SqlReader {
  private readonly primaryScope = new AsyncLocalStorage<true>();
  /** Until when the primary counts as down for reads (0: up); one read after that finds out again. */
  private primaryDownUntil = 0;
  private primaryAnswered = true;

  constructor(
    readonly primary: PoolReader,
    private readonly router: ReplicaRouter,
    readonly replicas: readonly PoolReader[] = [],
  ) {}

  query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    if (!this.router.hasReplicas) return this.primary.query<R>(sql, params);
    if (this.primaryScope.getStore()) return this.primaryFirst<R>(sql, params);
    return this.router.read<R>(sql, params);
  }

  queryPrimary<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    if (!this.router.hasReplicas) return this.primary.query<R>(sql, params);
    return this.primaryFirst<R>(sql, params);
  }

  /** Whether the primary answered the last read made on it. */
  get primaryUp(): boolean {
    return this.primaryAnswered;
  }

  /**
   * A read that should see the primary's latest commit. While the primary cannot answer (crashed, being failed over),
   * a replica's answer, possibly a commit behind, serves rather than none: the registry is read-only, nothing can be
   * committed on a primary that is down, and what is kept in memory is kept only while the change listener on the
   * primary is live, so nothing read this way outlives the outage in a cache.
   */
  private async primaryFirst<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
    if (Date.now() < this.primaryDownUntil) {
      const rows = await this.router.fromReplicas<R>(sql, params);
      if (rows) return rows;
    }
    try {
      const rows = await this.primary.query<R>(sql, params);
      this.primaryDownUntil = 0;
      this.primaryAnswered = true;
      return rows;
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      this.primaryDownUntil = Date.now() + PRIMARY_RECHECK_MS;
      this.primaryAnswered = false;
      const rows = await this.router.fromReplicas<R>(sql, params);
      if (rows) return rows;
      throw error;
    }
  }

  /**
   * Runs `work` with every `query` it makes on the primary. For reads whose result is kept in memory until a change
   * notification drops it: the notification comes from the primary at commit, and a replica may not have replayed
   * that commit yet when the re-read arrives, so a replica could hand back the old row, to be kept until the next
   * notification (for an API client, possibly for ever).
   */
  onPrimary<T>(work: () => Promise<T>): Promise<T> {
    if (!this.router.hasReplicas) return work();
    return this.primaryScope.run(true, work);
  }

  /**
   * Readiness. Without replicas: the primary answers. With them, each database is reported (`database` for the
   * primary, `database-replica-N`), and what decides is `database-reads`: the service can answer reads, from the
   * primary or a replica. A primary that is down then keeps the pods in service, reading from the replicas, and says
   * so in the body. Either way every check of the primary is what `dmrv_registry_database_up{database="primary"}`
   * reports (with replicas, reads that prefer the primary too): an outage shows there while the pods, unready, serve
   * nothing and so count no errors.
   */
  probes(primaryProbe: DependencyProbe): DependencyProbe[] {
    const primary: DependencyProbe = {
      ...primaryProbe,
      check: async () => {
        try {
          await primaryProbe.check();
          this.primaryAnswered = true;
        } catch (error) {
          this.primaryAnswered = false;
          throw error;
        }
      },
    };
    if (!this.router.hasReplicas) return [primary];
    return [
      { ...primary, required: false },
      ...this.replicas.map((replica) => ({
        name: `database-${replica.name}`,
        required: false,
        check: () => this.router.check(replica.name),
      })),
      { name: 'database-reads', check: async () => void (await this.queryPrimary('SELECT 1')) },
    ];
  }

  /** Each database's state for the metrics: the primary and every replica, answering (true) or not. */
  databaseStates(): { name: string; up: boolean }[] {
    return [
      { name: this.primary.name, up: this.primaryAnswered },
      ...this.router.states().map(({ name, up }) => ({ name, up })),
    ];
  }

  async close(): Promise<void> {
    this.router.stop();
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }
}
