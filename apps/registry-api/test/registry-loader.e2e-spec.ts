import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { createClient } from '../src/cli/clients';
import { createDataSource, runMigrations } from '../src/database/data-source';
import {
  appendRows,
  assertCliBuilt,
  cli,
  EXAMPLES,
  exampleCopy,
  exampleWithOneBadRowPerFile,
  ONE_BAD_ROW_PER_FILE_REPORT,
  replaceInFile,
  snapshot,
  sql,
} from './loader-test-kit';
import { changesApplied, get, startApp } from './registry-test-kit';

jest.setTimeout(120_000);

const EXAMPLE_COUNTS = [
  'projects: 2 rows, 2 new, 0 changed, 0 unchanged',
  'households: 4 rows, 4 new, 0 changed, 0 unchanged',
  'devices: 4 rows, 4 new, 0 changed, 0 unchanged',
  'fuel-readings: 11 rows, 11 new, 0 changed, 0 unchanged',
  'fuel-purchases: 3 rows, 3 new, 0 changed, 0 unchanged',
  'fuel-deliveries: 2 rows, 2 new, 0 changed, 0 unchanged',
  'credit-blocks: 3 rows, 3 new, 0 changed, 0 unchanged',
  'credit-events: 6 rows, 6 new, 0 changed, 0 unchanged',
];

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('cli.js import (real PostgreSQL, the service reading the same database)', () => {
  let database: TestDatabase;
  let app: NestFastifyApplication;
  let authorization: string;
  const scratch: string[] = [];

  beforeAll(async () => {
    assertCliBuilt();
    database = await createTestDatabase('registry_loader');
    await runMigrations(database.url);
    const loaded = await cli(['import', EXAMPLES, '--quiet'], database.url);
    expect(loaded).toEqual({ code: 0, stdout: `${EXAMPLE_COUNTS.join('\n')}\n`, stderr: '' });
    const dataSource = await createDataSource(database.url, 1).initialize();
    try {
      authorization = `Bearer ${(await createClient(dataSource, 'loader test')).bearerKey}`;
    } finally {
      await dataSource.destroy();
    }
    app = await startApp({ DATABASE_URL: database.url });
  });

  afterAll(async () => {
    await app?.close();
    await database?.drop();
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
  });

  const scratchDir = (directory: string): string => {
    scratch.push(directory);
    return directory;
  };

  it('answers from the loaded example set (rollups and claims refreshed by the load)', async () => {
    const stats = await get(app, '/v1/households/stats?project_id=kafue-stoves', { authorization });
    expect(stats.json()).toEqual({ total_households: 3, density: { low: 1, medium: 1, high: 1 } });
    const usage = await get(app, '/v1/fuel-usage?household_id=hh-kafue-0001', { authorization });
    expect(usage.json()).toEqual({ household_id: 'hh-kafue-0001', region: 'Lusaka', fuel_consumed: 249.75 });
    const issued = await get(app, '/v1/credits/issued?project_id=kafue-stoves&time_period=2024-Q2', {
      authorization,
    });
    expect(issued.json()).toEqual({ project_id: 'kafue-stoves', time_period: '2024-Q2', credits: 8 });
    const transfer = await get(app, '/v1/credits/transferred', { authorization });
    expect(transfer.json()).toEqual({
      sender: 'Kafue Efficient Stoves',
      recipient: 'Zambezi Offset Exchange, Ltd.',
      amount: 4,
      transfer_date: '2024-06-02',
    });
    const device = await get(app, '/v1/devices/status?device_id=meter-0004', { authorization });
    expect(device.json()).toEqual({
      device_id: 'meter-0004',
      status: 'faulty',
      last_active: '2024-04-21T04:00:00.000Z',
    });
  });

  it('writes nothing when one row of each file is bad, and reports every bad row (terminal and --report file)', async () => {
    const directory = scratchDir(exampleWithOneBadRowPerFile());
    const before = await snapshot(database.url);
    const report = join(directory, 'errors.csv');
    const run = await cli(['import', directory, '--quiet', '--report', report], database.url);
    expect({ code: run.code, stdout: run.stdout, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        ...ONE_BAD_ROW_PER_FILE_REPORT.slice(0, -1),
        `import failed: 8 problems in 8 rows (also in ${report}); nothing was written`,
      ],
    });
    expect(readFileSync(report, 'utf8')).toBe(
      [
        'file,line,column,value,rule',
        'projects.csv,4,fnrb,1.2,must be at most 1',
        'households.csv,6,density,huge,"must be one of low, medium, high"',
        'devices.csv,6,household_id,hh-nowhere,"no household with this id, in this load or in the database"',
        'fuel-readings.csv,13,device_id,meter-0001,"device meter-0001 belongs to household hh-kafue-0001, not to hh-kafue-0002"',
        'fuel-purchases.csv,5,id,pos-2024-000017,duplicate key: the same id as line 2 of fuel-purchases.csv',
        'fuel-deliveries.csv,4,delivery_date,2024-02-30,must be a date YYYY-MM-DD',
        'credit-blocks.csv,5,serial_end,12,must be serial_start + quantity - 1 (11)',
        'credit-events.csv,8,quantity,4,moves more credits than block KES-2024-Q1-002 holds (3)',
        '',
      ].join('\r\n'),
    );
    expect(await snapshot(database.url)).toEqual(before);
  });

  it('reports the ledger rules across this load and the stored ledger', async () => {
    const directory = scratchDir(exampleCopy('ledger'));
    for (const file of [
      'projects.csv',
      'households.csv',
      'devices.csv',
      'fuel-readings.csv',
      'fuel-purchases.csv',
      'fuel-deliveries.csv',
    ]) {
      rmSync(join(directory, file));
    }
    writeFileSync(
      join(directory, 'credit-events.csv'),
      [
        'id,block_id,kind,event_date,quantity,sender,recipient',
        '7,KES-2024-Q1-002,issued,2024-05-11,3,,',
        '8,KES-2024-Q1-001,cancelled,2024-08-01,5,,',
        '9,MLP-2024-Q1-001,transferred,2024-05-01,1,A,B',
        '10,KES-2024-Q1-002,issued,2024-05-12,2,,',
        '11,KES-2024-Q1-009,retired,2024-05-12,1,,',
        '12,KES-2024-Q1-002,retired,2024-09-01,1,X,',
        '',
      ].join('\n'),
    );
    const before = await snapshot(database.url);
    const run = await cli(['import', directory, '--quiet'], database.url);
    expect({ code: run.code, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stderr: [
        'credit-events.csv:2: kind "issued": block KES-2024-Q1-002 is already issued by event 2',
        'credit-events.csv:3: kind "cancelled": block KES-2024-Q1-001 is already retired by event 5',
        'credit-events.csv:4: event_date "2024-05-01": block MLP-2024-Q1-001 has no issuance on or before this date',
        'credit-events.csv:5: kind "issued": block KES-2024-Q1-002 is already issued by event 2',
        'credit-events.csv:5: quantity "2": an issuance moves the whole block: 3 credits',
        'credit-events.csv:6: block_id "KES-2024-Q1-009": no credit block with this id, in this load or in the database',
        'credit-events.csv:7: sender "X": is only for transfers',
        'import failed: 7 problems in 6 rows; nothing was written',
      ],
    });
    expect(await snapshot(database.url)).toEqual(before);
  });

  it('changes nothing when the same files are loaded again (not even updated_at or the row versions)', async () => {
    const before = await snapshot(database.url);
    const run = await cli(['import', EXAMPLES, '--quiet'], database.url);
    expect({ code: run.code, stdout: lines(run.stdout) }).toEqual({
      code: 0,
      stdout: EXAMPLE_COUNTS.map((line) =>
        line.replace(/(\d+) rows, \1 new, 0 changed, 0 unchanged/, '$1 rows, 0 new, 0 changed, $1 unchanged'),
      ),
    });
    expect(await snapshot(database.url)).toEqual(before);
  });

  it('updates what a newer export changed, so updated_since syncs see exactly that, and the cached aggregates follow', async () => {
    // The aggregate, the latest device and the purchases' total are cached now; the load's notifications must drop them.
    expect((await get(app, '/v1/households/stats', { authorization })).json()).toMatchObject({
      total_households: 4,
    });
    expect((await get(app, '/v1/devices/status', { authorization })).json()).toEqual({
      device_id: 'meter-0003',
      status: 'active',
      last_active: '2024-06-30T19:05:12.250Z',
    });
    expect((await get(app, '/v1/claims/fuel-purchase/list', { authorization })).json()).toMatchObject({
      total_count: 3,
    });
    const [{ now: since }] = await sql<{ now: string }>(
      database.url,
      `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS now`,
    );
    const directory = scratchDir(exampleCopy('update'));
    replaceInFile(
      directory,
      'devices.csv',
      'meter-0002,hh-kafue-0002,inactive,2024-05-02T08:10:00Z',
      'meter-0002,hh-kafue-0002,active,2024-07-02T08:10:00Z',
    );
    replaceInFile(
      directory,
      'households.csv',
      'hh-kafue-0003,kafue-stoves,Central,low,2024-02-02,Biomass',
      'hh-kafue-0003,kafue-stoves,Central,low,2024-02-02,Biomass + Charcoal',
    );
    appendRows(directory, 'households.csv', ['hh-kafue-0004,kafue-stoves,Central,high,2024-07-01,LPG']);
    replaceInFile(
      directory,
      'fuel-purchases.csv',
      'pos-2024-000142,hh-mansa-0001,LPG,13,',
      'pos-2024-000142,hh-mansa-0001,LPG,13.5,',
    );
    appendRows(directory, 'fuel-purchases.csv', ['pos-2024-000400,hh-kafue-0004,LPG,6,2024-07-02']);
    replaceInFile(
      directory,
      'fuel-readings.csv',
      'hh-kafue-0003,meter-0003,Biomass,2024-04-30,119.125',
      'hh-kafue-0003,meter-0003,Biomass,2024-04-30,119.2',
    );

    const run = await cli(['import', directory, '--quiet'], database.url);
    expect({ code: run.code, stdout: lines(run.stdout) }).toEqual({
      code: 0,
      stdout: [
        'projects: 2 rows, 0 new, 0 changed, 2 unchanged',
        'households: 5 rows, 1 new, 1 changed, 3 unchanged',
        'devices: 4 rows, 0 new, 1 changed, 3 unchanged',
        'fuel-readings: 11 rows, 0 new, 1 changed, 10 unchanged',
        'fuel-purchases: 4 rows, 1 new, 1 changed, 2 unchanged',
        'fuel-deliveries: 2 rows, 0 new, 0 changed, 2 unchanged',
        'credit-blocks: 3 rows, 0 new, 0 changed, 3 unchanged',
        'credit-events: 6 rows, 0 new, 0 changed, 6 unchanged',
      ],
    });

    const changedSince = async (path: string): Promise<unknown> =>
      (await get(app, `${path}?updated_since=${encodeURIComponent(since)}`, { authorization })).json<{
        data: unknown[];
      }>().data;
    expect(await changedSince('/v1/devices/status/list')).toEqual([
      { device_id: 'meter-0002', status: 'active', last_active: '2024-07-02T08:10:00.000Z' },
    ]);
    expect(await changedSince('/v1/claims/household-onboarding/list')).toEqual([
      { household_id: 'hh-kafue-0003', onboarding_date: '2024-02-02' },
      { household_id: 'hh-kafue-0004', onboarding_date: '2024-07-01' },
    ]);
    expect(await changedSince('/v1/claims/fuel-purchase/list')).toEqual([
      { fuel_id: 'pos-2024-000142', amount: 13.5, purchase_date: '2024-03-20' },
      { fuel_id: 'pos-2024-000400', amount: 6, purchase_date: '2024-07-02' },
    ]);
    expect(await changedSince('/v1/claims/fuel-delivery/list')).toEqual([]);
    expect(await changedSince('/v1/credits/retired/list')).toEqual([]);

    await changesApplied(app);
    expect((await get(app, '/v1/households/stats', { authorization })).json()).toMatchObject({
      total_households: 5,
    });
    expect((await get(app, '/v1/devices/status', { authorization })).json()).toEqual({
      device_id: 'meter-0002',
      status: 'active',
      last_active: '2024-07-02T08:10:00.000Z',
    });
    expect((await get(app, '/v1/claims/fuel-purchase/list', { authorization })).json()).toMatchObject({
      total_count: 4,
    });
    expect(
      (await get(app, '/v1/fuel-usage?household_id=hh-kafue-0003', { authorization })).json(),
    ).toMatchObject({ fuel_consumed: 358.7 });
  });

  it('reads NDJSON the same way, and reports what is wrong with a line', async () => {
    const directory = scratchDir(exampleCopy('ndjson'));
    for (const file of ['credit-events.csv', 'devices.csv']) rmSync(join(directory, file));
    writeFileSync(
      join(directory, 'devices.ndjson'),
      [
        '{"id":"meter-0001","household_id":"hh-kafue-0001","status":"active","last_active":"2024-06-28T17:45:00Z"}',
        '{"id":"meter-0002","household_id":"hh-kafue-0002","status":"active","last_active":"2024-07-02T08:10:00Z","colour":"red"}',
        '{"id":"meter-0003","household_id":"hh-kafue-0003","status":"active","last_active":20240630}',
        'meter-0004',
        '',
      ].join('\n'),
    );
    const run = await cli(['import', directory, '--quiet'], database.url);
    expect({ code: run.code, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stderr: [
        'devices.ndjson:2: colour "red": unknown field (devices has id, household_id, status, last_active)',
        'devices.ndjson:3: last_active "20240630": must be an ISO 8601 date-time with a time zone (2024-01-01T08:30:00Z)',
        'devices.ndjson:4: not valid JSON',
        'import failed: 3 problems in 3 rows; nothing was written',
      ],
    });
  });

  it('refuses a CSV header it cannot map, and names what is missing or unknown', async () => {
    const directory = scratchDir(exampleCopy('header'));
    writeFileSync(
      join(directory, 'fuel-deliveries.csv'),
      'id,household_id,fuel,delivered_quantity_kg\r\ndn-1,hh-kafue-0001,LPG,6\r\n',
    );
    const run = await cli(['import', join(directory, 'fuel-deliveries.csv'), '--quiet'], database.url);
    expect({ code: run.code, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stderr: [
        'fuel-deliveries.csv:1: fuel "fuel": unknown column (fuel-deliveries has id, household_id, fuel_type, delivered_quantity_kg, delivery_date)',
        'fuel-deliveries.csv:1: fuel_type: required column missing from the header',
        'fuel-deliveries.csv:1: delivery_date: required column missing from the header',
        'import failed: 3 problems in 1 row; nothing was written',
      ],
    });
  });

  it('counts every problem of a file full of bad rows, prints up to --max-errors, and writes them all with --report', async () => {
    const directory = scratchDir(exampleCopy('many'));
    const rows = Array.from(
      { length: 12_000 },
      (_, index) => `hh-kafue-0001,,LPG,2024-01-01,${index % 2 === 0 ? 'x' : '-1'}`,
    );
    writeFileSync(
      join(directory, 'fuel-readings.csv'),
      `household_id,device_id,fuel_type,consumed_on,quantity_kg\n${rows.join('\n')}\n`,
    );
    const report = join(directory, 'all.csv');
    const run = await cli(
      ['import', join(directory, 'fuel-readings.csv'), '--quiet', '--max-errors', '2', '--report', report],
      database.url,
    );
    expect({ code: run.code, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stderr: [
        'fuel-readings.csv:2: quantity_kg "x": must be a decimal number with at most 3 decimal places (digits, an optional point, no exponent)',
        'fuel-readings.csv:3: quantity_kg "-1": must be at least 0',
        `import failed: 12,000 problems in 12,000 rows (the first 2 above; all in ${report}); nothing was written`,
      ],
    });
    const written = readFileSync(report, 'utf8').split('\r\n');
    expect(written).toHaveLength(12_002);
    expect(written[12_000]).toBe('fuel-readings.csv,12001,quantity_kg,-1,must be at least 0');
  });

  it.each([
    [['import'], 'import needs a directory or files to load'],
    [
      ['import', join(EXAMPLES, 'nothing-here')],
      `${join(EXAMPLES, 'nothing-here')}: no such file or directory`,
    ],
    [
      ['import', join(EXAMPLES, '..', 'README.md')],
      `${join(EXAMPLES, '..', 'README.md')}: not a data file (expected a .csv, .ndjson or .jsonl name)`,
    ],
    [['import', EXAMPLES, '--staging', 'fast'], '--staging must be copy or insert'],
    [['export'], 'export needs exactly one directory'],
    [['export', '/tmp/x', '--format', 'xml'], '--format must be csv or ndjson'],
  ])('exits 2 with usage for %j', async (args, message) => {
    const run = await cli(args, database.url);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('names the entity a file name does not match', async () => {
    const directory = scratchDir(exampleCopy('names'));
    writeFileSync(join(directory, 'readings.csv'), 'a\n');
    const run = await cli(['import', directory], database.url);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      `${join(directory, 'readings.csv')}: "readings" names no entity (expected one of projects, households, devices, fuel-readings, fuel-purchases, fuel-deliveries, credit-blocks, credit-events)`,
    );
  });
});
