import { READING_KEYS } from './reading-keys';
import { refreshRollups, SqlRunner } from './rollups';
import { EF_CO2, EF_NON_CO2, NCV, SEED_PROJECTS } from './seed-data';
import { creditBlocksSql, creditEventsSql, householdBatchSql } from './seed-sql';

export interface SeedOptions {
  households: number;
  seed: number;
  /** Households per INSERT statement. */
  batchSize?: number;
  onProgress?: (done: number, total: number, stage: string) => void;
}

export interface SeedSummary {
  households: number;
  projects: number;
  creditBlocks: number;
}

/**
 * Generates a realistic, consistent registry of any size inside PostgreSQL (INSERT … SELECT over generate_series,
 * one statement per batch of households), then the rollups, the quarterly claims and the credit ledger that
 * follows from them. Same seed and size, same data.
 */
export async function seedRegistry(run: SqlRunner, options: SeedOptions): Promise<SeedSummary> {
  const batchSize = options.batchSize ?? 10_000;
  const progress = options.onProgress ?? (() => undefined);
  const existing = (await run('SELECT count(*)::bigint AS n FROM households')) as Array<{ n: string }>;
  if (Number(existing[0]!.n) > 0)
    throw new Error('the database already holds households: seed an empty database');

  for (const project of SEED_PROJECTS) {
    await run(
      `INSERT INTO projects (id, name, country, ncv_tj_per_t, fnrb, ef_co2_t_per_tj, ef_non_co2_t_per_tj, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, '2023-01-01T00:00:00Z', '2023-01-01T00:00:00Z')`,
      [project.id, project.name, project.country, NCV, project.fnrb, EF_CO2, EF_NON_CO2],
    );
  }
  const batch = householdBatchSql(options.seed);
  // Fuel readings are most of the rows, and checking their two foreign keys row by row costs a third of the load.
  // As PostgreSQL's "Populating a Database" advises, the keys are dropped for the bulk load and added back after it,
  // which validates every row in one join; they are restored even if the load fails.
  await run(
    `ALTER TABLE fuel_consumption DROP CONSTRAINT ${READING_KEYS.map(([name]) => name).join(', DROP CONSTRAINT ')}`,
  );
  try {
    for (let first = 1; first <= options.households; first += batchSize) {
      const last = Math.min(options.households, first + batchSize - 1);
      await run(batch, [first, last]);
      progress(last, options.households, 'households');
    }
  } finally {
    await run(
      `ALTER TABLE fuel_consumption ${READING_KEYS.map(([name, definition]) => `ADD CONSTRAINT ${name} ${definition}`).join(', ')}`,
    );
  }
  progress(options.households, options.households, 'rollups');
  await refreshRollups(run);
  await run(creditBlocksSql());
  await run(creditEventsSql(options.seed));
  await run('REFRESH MATERIALIZED VIEW CONCURRENTLY credits_issued_daily');
  // Sets the visibility map too, so counts and index-only scans need not visit the freshly written heap.
  await run('VACUUM (ANALYZE)');
  const blocks = (await run('SELECT count(*)::bigint AS n FROM credit_blocks')) as Array<{ n: string }>;
  progress(options.households, options.households, 'done');
  return {
    households: options.households,
    projects: SEED_PROJECTS.length,
    creditBlocks: Number(blocks[0]!.n),
  };
}
