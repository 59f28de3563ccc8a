import { AsyncLocalStorage } from 'node:async_hooks';
import type { DependencyProbe } from '@dmrv/health';
import { PoolReader } from './pool-reader';
import { ReplicaRouter } from './replica-router';

/**
 * Every read of the service. Reads go to the read replicas (least busy first, the primary when none answers); what
 * must see a commit as soon as its notification arrives reads the primary: `queryPrimary`, and everything run inside
 * `onPrimary` (the registry README, "Read replicas"). Without replicas every read is on the primary, and the
 * AsyncLocalStorage behind `onPrimary` is never enabled (it costs every async operation a little once it is).
 */
export class SqlReader {
  private readonly primaryScope = new AsyncLocalStorage<true>();

  constructor(
    readonly primary: PoolReader,
    private readonly router: ReplicaRouter,
    readonly replicas: readonly PoolReader[] = [],
  ) {}

  query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    if (!this.router.hasReplicas || this.primaryScope.getStore()) return this.primary.query<R>(sql, params);
    return this.router.read<R>(sql, params);
  }

  queryPrimary<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.primary.query<R>(sql, params);
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

  /** One readiness check per replica: reported, but never failing readiness while the primary answers. */
  replicaProbes(): DependencyProbe[] {
    return this.replicas.map((replica) => ({
      name: `database-${replica.name}`,
      required: false,
      check: () => this.router.check(replica.name),
    }));
  }

  async close(): Promise<void> {
    this.router.stop();
    await Promise.all(this.replicas.map((replica) => replica.pool.end()));
  }
}
