import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

// The loader is driven as an operator drives it: `dist/cli.js import|export` in its own process, so exit codes,
// stdout and stderr are what is tested.
export const CLI = join(__dirname, '..', 'dist', 'cli.js');
export const EXAMPLES = join(__dirname, '..', 'examples');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function assertCliBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the workspace first (pnpm run build)`);
}

export function cli(args: string[], databaseUrl: string | undefined): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, TZ: 'UTC', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A scratch copy of the example data set, to add rows to or change. */
export function exampleCopy(label: string): string {
  const directory = mkdtempSync(join(tmpdir(), `registry-loader-${label}-`));
  cpSync(EXAMPLES, directory, { recursive: true });
  return directory;
}

export function appendRows(directory: string, file: string, rows: string[]): void {
  appendFileSync(join(directory, file), rows.map((row) => `${row}\r\n`).join(''));
}

export function replaceInFile(directory: string, file: string, from: string, to: string): void {
  const path = join(directory, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} does not contain ${from}`);
  writeFileSync(path, text.replace(from, to));
}

/**
 * The example set with one bad row added to each file, each breaking a different kind of rule (type, range,
 * reference, ownership, duplicate key, calendar, serial arithmetic, ledger), and one good row changed, so that a
 * load that wrote anything would show.
 */
export function exampleWithOneBadRowPerFile(): string {
  const directory = exampleCopy('bad');
  appendRows(directory, 'projects.csv', ['zambia-x,Bad Project,Zambia,0.0156,1.2,112,9.46']);
  appendRows(directory, 'households.csv', ['hh-x,kafue-stoves,Lusaka,huge,2024-01-08,LPG']);
  appendRows(directory, 'devices.csv', ['meter-x,hh-nowhere,active,2024-06-28T17:45:00Z']);
  appendRows(directory, 'fuel-readings.csv', ['hh-kafue-0002,meter-0001,Charcoal,2024-03-31,5']);
  appendRows(directory, 'fuel-purchases.csv', ['pos-2024-000017,hh-kafue-0002,LPG,6,2024-02-03']);
  appendRows(directory, 'fuel-deliveries.csv', ['dn-x,hh-kafue-0001,LPG,12,2024-02-30']);
  appendRows(directory, 'credit-blocks.csv', ['KES-2024-Q1-003,kafue-stoves,2024,9,12,3']);
  appendRows(directory, 'credit-events.csv', [
    '7,KES-2024-Q1-002,transferred,2024-06-01,4,Kafue Efficient Stoves,Lusaka Offsets',
  ]);
  replaceInFile(
    directory,
    'devices.csv',
    'meter-0002,hh-kafue-0002,inactive',
    'meter-0002,hh-kafue-0002,active',
  );
  return directory;
}

/** What the load of `exampleWithOneBadRowPerFile()` must print, line for line. */
export const ONE_BAD_ROW_PER_FILE_REPORT = [
  'projects.csv:4: fnrb "1.2": must be at most 1',
  'households.csv:6: density "huge": must be one of low, medium, high',
  'devices.csv:6: household_id "hh-nowhere": no household with this id, in this load or in the database',
  'fuel-readings.csv:13: device_id "meter-0001": device meter-0001 belongs to household hh-kafue-0001, not to hh-kafue-0002',
  'fuel-purchases.csv:5: id "pos-2024-000017": duplicate key: the same id as line 2 of fuel-purchases.csv',
  'fuel-deliveries.csv:4: delivery_date "2024-02-30": must be a date YYYY-MM-DD',
  'credit-blocks.csv:5: serial_end "12": must be serial_start + quantity - 1 (11)',
  'credit-events.csv:8: quantity "4": moves more credits than block KES-2024-Q1-002 holds (3)',
  'import failed: 8 problems in 8 rows; nothing was written',
];

const SNAPSHOT_TABLES: Array<[string, string]> = [
  ['projects', 'id'],
  ['households', 'id'],
  ['household_fuels', 'household_id, fuel_type'],
  ['devices', 'id'],
  ['fuel_consumption', 'id'],
  ['fuel_purchases', 'id'],
  ['fuel_deliveries', 'id'],
  ['credit_blocks', 'id'],
  ['credit_events', 'id'],
  ['emission_reduction_claims', 'id'],
  ['household_counts', 'project_id, region, density'],
  ['household_combinations', 'project_id, region, combination'],
  ['fuel_daily', 'project_id, region, day'],
  ['credits_issued_daily', 'project_id, day'],
];

/**
 * Every row of every registry table and rollup, with each row's `xmin` where it has one: a row rewritten with the
 * same values (an UPDATE that should not have happened) shows as a different xmin.
 */
export async function snapshot(databaseUrl: string): Promise<Record<string, unknown[]>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result: Record<string, unknown[]> = {};
    for (const [table, order] of SNAPSHOT_TABLES) {
      const isView = table.includes('_daily') || table.startsWith('household_c');
      const { rows } = await client.query(
        `SELECT ${isView ? '' : 'xmin::text AS row_version, '}* FROM ${table} ORDER BY ${order}`,
      );
      result[table] = rows;
    }
    return result;
  } finally {
    await client.end();
  }
}

export async function sql<T extends Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}
