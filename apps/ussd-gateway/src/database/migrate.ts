import { DataSource, MigrationExecutor } from 'typeorm';
import { dataSourceOptions } from './data-source';

/**
 * Key of the advisory lock every `migrate` holds while it runs: pods that start together (each runs the migrations in
 * an init container) apply them one after the other, and the later ones find nothing pending. TypeORM's migration
 * runner takes no lock of its own; without this, two runners both see a migration pending and the second fails on
 * the table the first created. Any 64-bit number no other tool takes in this database.
 */
export const MIGRATION_LOCK_KEY = 7_312_202_611_260_002n;

/**
 * Applies the pending migrations in one transaction that first takes MIGRATION_LOCK_KEY; returns the names applied.
 * A transaction-scoped lock rather than a session one: it is released by the commit, the rollback, or the connection
 * dropping (a killed pod), and it holds behind a transaction-mode pooler, where a session lock would stay with a
 * pooled server connection. All or nothing: a failing migration leaves the schema as it was.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource(dataSourceOptions(url, 1));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.startTransaction();
    try {
      await runner.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
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
