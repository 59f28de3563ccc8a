import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { READING_KEYS } from '../src/database/reading-keys';
import { seedRegistry } from '../src/database/seed';
import {
  CREDITS_CANCELLED,
  CREDITS_RETIRED,
  CREDITS_TRANSFERRED,
  DEVICE_STATUS,
  EMISSION_REDUCTION_CLAIMS,
  FUEL_DELIVERIES,
  FUEL_PURCHASES,
  HOUSEHOLD_ONBOARDING,
  RecordResource,
} from '../src/registry/record-resources';
import { RegistryRepository } from '../src/registry/registry.repository';
import { SqlReader } from '../src/database/sql-reader';

async function seeded(
  label: string,
  households: number,
  seed: number,
  batchSize: number,
): Promise<{ database: TestDatabase; dataSource: DataSource }> {
  const database = await createTestDatabase(label);
  await runMigrations(database.url);
  const dataSource = await createDataSource(database.url, 2).initialize();
  await seedRegistry((sql, params) => dataSource.query(sql, params), { households, seed, batchSize });
  return { database, dataSource };
}

const DIGEST_TABLES: Array<[string, string]> = [
  ['households', 'id'],
  ['household_fuels', 'household_id, fuel_type'],
  ['devices', 'id'],
  ['fuel_consumption', 'id'],
  ['fuel_purchases', 'id'],
  ['fuel_deliveries', 'id'],
  ['credit_blocks', 'id'],
  ['credit_events', 'id'],
];

/** md5 of every row of every generated table, in key order (claims carry now() and are compared by value). */
async function digest(dataSource: DataSource): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const [table, key] of DIGEST_TABLES) {
    const rows = await dataSource.query<Array<{ digest: string; n: string }>>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY ${key})) AS digest, count(*) AS n FROM ${table} t`,
    );
    result[table] = `${rows[0]!.n}:${rows[0]!.digest}`;
  }
  const claims = await dataSource.query<Array<{ digest: string }>>(
    "SELECT md5(string_agg(project_id || period || reductions, '|' ORDER BY id)) AS digest FROM emission_reduction_claims",
  );
  result.claims = claims[0]!.digest;
  return result;
}

describe('seed (real PostgreSQL)', () => {
  let a: { database: TestDatabase; dataSource: DataSource };
  let b: { database: TestDatabase; dataSource: DataSource };

  beforeAll(async () => {
    // Same seed, different batch sizes: the data must not depend on how it was batched.
    a = await seeded('registry_seed_a', 1500, 11, 1000);
    b = await seeded('registry_seed_b', 1500, 11, 256);
  }, 120_000);

  afterAll(async () => {
    for (const side of [a, b]) {
      await side?.dataSource.destroy();
      await side?.database.drop();
    }
  });

  const one = async <T>(sql: string): Promise<T> => ((await a.dataSource.query(sql)) as T[])[0]!;

  it('is deterministic for a seed, whatever the batch size', async () => {
    expect(await digest(a.dataSource)).toEqual(await digest(b.dataSource));
  });

  it('gives another data set for another seed', async () => {
    const other = await seeded('registry_seed_c', 200, 12, 1000);
    try {
      const first = await a.dataSource.query<Array<{ region: string }>>(
        "SELECT region FROM households WHERE id <= 'household-0000200' ORDER BY id",
      );
      const second = await other.dataSource.query<Array<{ region: string }>>(
        'SELECT region FROM households ORDER BY id',
      );
      expect(second.map((r) => r.region)).not.toEqual(first.map((r) => r.region));
    } finally {
      await other.dataSource.destroy();
      await other.database.drop();
    }
  }, 60_000);

  it('produces every kind of record, consistently', async () => {
    const counts = await one<Record<string, string>>(`SELECT
      (SELECT count(*) FROM households) AS households,
      (SELECT count(*) FROM devices) AS devices,
      (SELECT count(DISTINCT household_id) FROM household_fuels) AS with_fuels,
      (SELECT count(*) FROM fuel_consumption) AS consumption,
      (SELECT count(*) FROM fuel_purchases) AS purchases,
      (SELECT count(*) FROM fuel_deliveries) AS deliveries,
      (SELECT count(*) FROM credit_blocks) AS blocks,
      (SELECT count(*) FROM emission_reduction_claims) AS claims`);
    expect(Number(counts.households)).toBe(1500);
    expect(Number(counts.devices)).toBe(1500);
    expect(Number(counts.with_fuels)).toBe(1500);
    expect(Number(counts.consumption)).toBeGreaterThan(1500 * 6);
    expect(Number(counts.purchases)).toBeGreaterThanOrEqual(1500);
    expect(Number(counts.deliveries)).toBeGreaterThanOrEqual(1500);
    expect(Number(counts.blocks)).toBeGreaterThan(10);
    expect(Number(counts.claims)).toBe(5 * 8);
    for (const kind of ['issued', 'transferred', 'retired', 'cancelled']) {
      const row = await one<{ n: string }>(`SELECT count(*) AS n FROM credit_events WHERE kind = '${kind}'`);
      expect({ kind, some: Number(row.n) > 0 }).toEqual({ kind, some: true });
    }
    const violations = await one<Record<string, string>>(`SELECT
      (SELECT count(*) FROM fuel_consumption c JOIN households h ON h.id = c.household_id WHERE c.consumed_on < h.onboarding_date) AS early_consumption,
      (SELECT count(*) FROM fuel_purchases p JOIN households h ON h.id = p.household_id WHERE p.purchase_date < h.onboarding_date OR p.project_id <> h.project_id) AS bad_purchases,
      (SELECT count(*) FROM devices d JOIN households h ON h.id = d.household_id WHERE d.last_active < h.onboarding_date) AS early_devices,
      (SELECT count(*) FROM credit_events e JOIN credit_events i ON i.block_id = e.block_id AND i.kind = 'issued' WHERE e.event_date < i.event_date) AS events_before_issuance,
      (SELECT count(*) FROM credit_blocks x JOIN credit_blocks y ON x.project_id = y.project_id AND x.id < y.id
         AND x.serial_start <= y.serial_end AND y.serial_start <= x.serial_end) AS overlapping_serials,
      (SELECT count(*) FROM (
         SELECT c.project_id, c.period FROM emission_reduction_claims c
         JOIN credit_blocks b ON b.id LIKE 'credit-' || c.project_id || '-' || c.period || '-%'
         GROUP BY c.project_id, c.period, c.reductions HAVING sum(b.quantity) > c.reductions) over) AS over_issued`);
    expect(Object.values(violations).map(Number)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('leaves the foreign keys it lifted for the bulk load in place and enforced', async () => {
    const rows = await a.dataSource.query<Array<{ conname: string; convalidated: boolean }>>(
      "SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'fuel_consumption'::regclass AND contype = 'f' ORDER BY conname",
    );
    expect(rows).toEqual(
      READING_KEYS.map(([conname]) => ({ conname, convalidated: true })).sort((x, y) =>
        x.conname < y.conname ? -1 : 1,
      ),
    );
    await expect(
      a.dataSource.query(
        "INSERT INTO fuel_consumption (household_id, fuel_type, consumed_on, quantity_kg) VALUES ('household-none', 'LPG', '2024-01-01', 1)",
      ),
    ).rejects.toThrow(/fuel_consumption_household_id_fkey/);
  });

  it('refreshes rollups that equal the aggregates over the records', async () => {
    const check = await one<Record<string, string>>(`SELECT
      (SELECT sum(households) FROM household_counts) AS rolled_households,
      (SELECT count(*) FROM households) AS households,
      (SELECT sum(fuel_kg) FROM fuel_daily) AS rolled_fuel,
      (SELECT sum(quantity_kg) FROM fuel_consumption) AS fuel,
      (SELECT sum(credits) FROM credits_issued_daily) AS rolled_credits,
      (SELECT sum(quantity) FROM credit_events WHERE kind = 'issued') AS credits`);
    expect(check.rolled_households).toBe(check.households);
    expect(check.rolled_fuel).toBe(check.fuel);
    expect(check.rolled_credits).toBe(check.credits);
  });

  it('refuses to seed a database that already holds data', async () => {
    await expect(
      seedRegistry((sql, params) => a.dataSource.query(sql, params), { households: 10, seed: 1 }),
    ).rejects.toThrow(/already holds households/);
  });

  describe('query plans: what the endpoints read does not grow with the data', () => {
    interface PlanNode {
      'Node Type': string;
      'Relation Name'?: string;
      'Index Name'?: string;
      Plans?: PlanNode[];
    }
    let plans: PlanNode[];
    let repository: RegistryRepository;

    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    const relations = (): string[] =>
      [
        ...new Set(plans.flatMap(nodes).flatMap((n) => (n['Relation Name'] ? [n['Relation Name']] : []))),
      ].sort();

    beforeEach(() => {
      plans = [];
      // The repository's own SQL, explained by the planner on a seeded database.
      const explaining = {
        query: async (sql: string, params?: unknown[]) => {
          const [row] = await a.dataSource.query<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(
            `EXPLAIN (FORMAT JSON) ${sql}`,
            params,
          );
          plans.push(row!['QUERY PLAN'][0]!.Plan);
          return a.dataSource.query(sql, params);
        },
      } as unknown as SqlReader;
      repository = new RegistryRepository(explaining);
    });

    const ROLLUPS = [
      'credits_issued_daily',
      'fuel_daily',
      'household_combinations',
      'household_counts',
      'projects',
    ];

    it('answers every aggregate from the rollups alone', async () => {
      await repository.densityCounts({});
      await repository.densityCounts({ projectId: 'project-002', region: 'Lusaka' });
      await repository.combinations({});
      await repository.combinations({ region: 'Eastern' });
      await repository.fuelConsumedInScope({}, null, null);
      await repository.fuelConsumedInScope({ region: 'Lusaka' }, '2024-01-01', '2024-03-31');
      await repository.creditsIssued('project-001', '2024-01-01', '2024-12-31');
      await repository.emissionReductions('project-001', '2024-01-01', '2024-03-31');
      await repository.regionExists('Lusaka');
      await repository.projectExists('project-001');
      expect(relations().every((relation) => ROLLUPS.includes(relation))).toBe(true);
    });

    it("reads one household's fuel through its own index", async () => {
      await repository.fuelConsumedByHousehold('household-0000042', '2024-01-01', null);
      const scans = plans.flatMap(nodes).filter((n) => n['Relation Name'] === 'fuel_consumption');
      expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
        [expect.stringMatching(/^Index/), 'fuel_consumption_natural_key'],
      ]);
    });

    it.each<[string, RecordResource<unknown>, Record<string, string>]>([
      ['devices', DEVICE_STATUS, {}],
      ['devices of a household', DEVICE_STATUS, { household_id: 'household-0000042' }],
      ['cancellations', CREDITS_CANCELLED, {}],
      ['transfers', CREDITS_TRANSFERRED, {}],
      ['retirements', CREDITS_RETIRED, {}],
      ['purchases', FUEL_PURCHASES, {}],
      ['purchases of a household', FUEL_PURCHASES, { household_id: 'household-0000042' }],
      ['deliveries', FUEL_DELIVERIES, {}],
      ['onboarding', HOUSEHOLD_ONBOARDING, {}],
      ['claims', EMISSION_REDUCTION_CLAIMS, {}],
    ])(
      'finds the most recent of %s by walking an index, without sorting the table',
      async (_label, resource, selectors) => {
        await repository.latestRecord(resource, { selectors });
        const all = plans.flatMap(nodes);
        expect(all.map((n) => n['Node Type'])).not.toContain('Seq Scan');
        expect(all.map((n) => n['Node Type'])).not.toContain('Sort');
      },
    );
  });

  describe('ledger constraints', () => {
    const block = 'credit-test-ledger';
    beforeAll(async () => {
      await a.dataSource.query(
        "INSERT INTO credit_blocks (id, project_id, vintage, serial_start, serial_end, quantity) VALUES ($1, 'project-001', 2024, 999000001, 999000010, 10)",
        [block],
      );
      await a.dataSource.query(
        "INSERT INTO credit_events (block_id, block_quantity, project_id, kind, event_date, quantity) VALUES ($1, 10, 'project-001', 'issued', '2024-01-01', 10)",
        [block],
      );
    });

    const event = (kind: string, quantity: number, blockQuantity = 10, extra = ''): Promise<unknown> =>
      a.dataSource.query(
        `INSERT INTO credit_events (block_id, block_quantity, project_id, kind, event_date, quantity, sender, recipient)
         VALUES ($1, $2, 'project-001', $3, '2024-02-01', $4, ${extra || 'NULL, NULL'})`,
        [block, blockQuantity, kind, quantity],
      );

    it('rejects a block whose serial range does not match its count', async () => {
      await expect(
        a.dataSource.query(
          "INSERT INTO credit_blocks (id, project_id, vintage, serial_start, serial_end, quantity) VALUES ('credit-bad', 'project-001', 2024, 1, 5, 10)",
        ),
      ).rejects.toThrow(/credit_blocks_serial_range/);
    });

    it('rejects a second issuance of a block', async () => {
      await expect(event('issued', 10)).rejects.toThrow(/credit_events_one_issuance/);
    });

    it('rejects a transfer of more credits than the block was issued with', async () => {
      await expect(event('transferred', 11, 10, "'a', 'b'")).rejects.toThrow(/credit_events_within_block/);
    });

    it('rejects an event that lies about the block quantity', async () => {
      await expect(event('transferred', 11, 11, "'a', 'b'")).rejects.toThrow(/credit_events_block/);
    });

    it('rejects a transfer without parties', async () => {
      await expect(event('transferred', 1)).rejects.toThrow(/credit_events_transfer_parties/);
    });

    it('lets a block be retired or cancelled, never both', async () => {
      await event('retired', 10);
      await expect(event('cancelled', 10)).rejects.toThrow(/credit_events_one_terminal/);
      await expect(event('retired', 1)).rejects.toThrow(/credit_events_one_terminal/);
    });
  });
});
