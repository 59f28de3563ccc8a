import { DataSource, type DataSourceOptions, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@dmrv/testing';
import { MigrationLockTimeoutError, runMigrationsLocked } from './run-migrations';

jest.setTimeout(20_000);

const LOCK_KEY = 7_032_032_032n;
/** What `lock_timeout` read inside the migration: the database's own setting, not the migrator's wait. */
const seenLockTimeouts: string[] = [];

class CreateMarker1700000000000 implements MigrationInterface {
  name = 'CreateMarker1700000000000';

  async up(runner: QueryRunner): Promise<void> {
    const [row] = (await runner.query('SHOW lock_timeout')) as Array<{ lock_timeout: string }>;
    seenLockTimeouts.push(row!.lock_timeout);
    await runner.query('CREATE TABLE marker (id integer)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE marker');
  }
}

describe('runMigrationsLocked: a migrator behind another one (issue 32)', () => {
  let database: TestDatabase;
  let options: DataSourceOptions;

  beforeAll(async () => {
    database = await createTestDatabase('migration-lock');
    options = {
      type: 'postgres',
      url: database.url,
      migrations: [CreateMarker1700000000000],
      migrationsTableName: 'marker_migrations',
    };
  });

  afterAll(async () => {
    await database?.drop();
  });

  /** Another session in a transaction that holds the migration lock until `release`. */
  async function lockHolder(): Promise<{ release(): Promise<void> }> {
    const dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    await runner.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY.toString()]);
    return {
      release: async () => {
        await runner.rollbackTransaction();
        await runner.release();
        await dataSource.destroy();
      },
    };
  }

  const markerExists = async (): Promise<boolean> => {
    const dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
    try {
      const [row] = (await dataSource.query("SELECT to_regclass('marker') IS NOT NULL AS exists")) as Array<{
        exists: boolean;
      }>;
      return row!.exists;
    } finally {
      await dataSource.destroy();
    }
  };

  it('gives up after the lock timeout with a message saying what to do, and applies nothing', async () => {
    const holder = await lockHolder();
    try {
      const refused = await runMigrationsLocked(options, LOCK_KEY, { lockTimeoutMs: 300 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(MigrationLockTimeoutError);
      expect((refused as Error).message).toBe(
        'another migration has held the migration lock (advisory lock 7032032032) for more than 0.3 s: nothing was ' +
          'applied. Run migrate again once it has finished; if none is running, find the session that holds it: ' +
          "SELECT pid, state, query FROM pg_locks JOIN pg_stat_activity USING (pid) WHERE locktype = 'advisory'",
      );
      expect(await markerExists()).toBe(false);
    } finally {
      await holder.release();
    }
  });

  it("once the lock is free, applies the migrations with the database's own lock_timeout for their statements", async () => {
    await expect(runMigrationsLocked(options, LOCK_KEY, { lockTimeoutMs: 300 })).resolves.toEqual([
      'CreateMarker1700000000000',
    ]);
    expect(await markerExists()).toBe(true);
    expect(seenLockTimeouts).toEqual(['0']);
    await expect(runMigrationsLocked(options, LOCK_KEY)).resolves.toEqual([]);
  });
});
