import { DataSource, type DataSourceOptions, MigrationExecutor, QueryFailedError } from 'typeorm';

/**
 * How long a migrator waits for another one's migration lock before it gives up (and its pod's init container fails,
 * to be retried by Kubernetes): long enough for the migrations of a release to run, short enough that a migrator
 * stuck behind a lost session says so instead of hanging the rollout.
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 120_000;

/** SQLSTATE lock_not_available: a lock wait ran into `lock_timeout`. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Another migrator held the lock past the timeout: nothing was applied. */
export class MigrationLockTimeoutError extends Error {
  constructor(lockKey: bigint, timeoutMs: number) {
    super(
      `another migration has held the migration lock (advisory lock ${lockKey}) for more than ${timeoutMs / 1000} s: ` +
        'nothing was applied. Run migrate again once it has finished; if none is running, find the session that holds ' +
        "it: SELECT pid, state, query FROM pg_locks JOIN pg_stat_activity USING (pid) WHERE locktype = 'advisory'",
    );
    this.name = 'MigrationLockTimeoutError';
  }
}

export interface MigrationLockOptions {
  /** Default MIGRATION_LOCK_TIMEOUT_MS. */
  lockTimeoutMs?: number;
}

const lockTimedOut = (error: unknown): boolean =>
  error instanceof QueryFailedError &&
  (error.driverError as { code?: unknown } | undefined)?.code === LOCK_NOT_AVAILABLE;

/**
 * Applies the pending migrations of `options` in one transaction that first takes the advisory lock `lockKey`, and
 * returns the names applied. Pods that start together (each runs the migrations in an init container) then apply
 * them one after the other, and the later ones find nothing pending: TypeORM's migration runner takes no lock of its
 * own, and without one two runners both see a migration pending and the second fails on the table the first created.
 *
 * A transaction-scoped lock rather than a session one: it is released by the commit, the rollback, or the connection
 * dropping (a killed pod), and it holds behind a transaction-mode pooler, where a session lock would stay with a
 * pooled server connection. All or nothing: a failing migration leaves the schema as it was.
 *
 * The wait for the lock is bounded by PostgreSQL's `lock_timeout` (`lockTimeoutMs`), set for that statement only: a
 * migrator behind another that never finishes fails with MigrationLockTimeoutError instead of waiting for ever.
 */
export async function runMigrationsLocked(
  options: DataSourceOptions,
  lockKey: bigint,
  lock: MigrationLockOptions = {},
): Promise<string[]> {
  const timeoutMs = lock.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS;
  const dataSource = await new DataSource(options).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    try {
      await runner.query(`SET LOCAL lock_timeout = '${Math.max(1, Math.floor(timeoutMs))}ms'`);
      try {
        await runner.query('SELECT pg_advisory_xact_lock($1)', [lockKey.toString()]);
      } catch (error) {
        throw lockTimedOut(error) ? new MigrationLockTimeoutError(lockKey, timeoutMs) : error;
      }
      // The migrations' own statements wait as the database is configured to.
      await runner.query('SET LOCAL lock_timeout TO DEFAULT');
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'all';
      const applied = await executor.executePendingMigrations();
      await runner.commitTransaction();
      return applied.map((migration) => migration.name);
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    }
  } finally {
    await runner.release();
    await dataSource.destroy();
  }
}
