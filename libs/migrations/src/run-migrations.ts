import { DataSource, type DataSourceOptions, MigrationExecutor } from 'typeorm';

/**
 * Applies the pending migrations of `options` in one transaction that first takes the advisory lock `lockKey`, and
 * returns the names applied. Pods that start together (each runs the migrations in an init container) then apply
 * them one after the other, and the later ones find nothing pending: TypeORM's migration runner takes no lock of its
 * own, and without one two runners both see a migration pending and the second fails on the table the first created.
 *
 * A transaction-scoped lock rather than a session one: it is released by the commit, the rollback, or the connection
 * dropping (a killed pod), and it holds behind a transaction-mode pooler, where a session lock would stay with a
 * pooled server connection. All or nothing: a failing migration leaves the schema as it was.
 */
export async function runMigrationsLocked(options: DataSourceOptions, lockKey: bigint): Promise<string[]> {
  const dataSource = await new DataSource(options).initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    try {
      await runner.query('SELECT pg_advisory_xact_lock($1)', [lockKey.toString()]);
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
