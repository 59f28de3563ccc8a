import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { assertBuilt, floorScript } from '../harness/paths';
import { runToCompletion } from '../harness/processes';
import { BatchSide } from '../harness/report';
import { createDatabase } from '../harness/resources';
import { seededDatabase } from './registry-seed-cache';
import { baseEnv, SERVICE_BUILDS } from './services';
import { selected, SuiteContext } from './suite';

const WORKLOAD = 'cli.js import fuel-readings.csv';
const READING_COLUMNS = 'household_id, device_id, fuel_type, consumed_on, quantity_kg';

/** The first `rows` data rows of a CSV file (after its header), written to `target`; returns how many it wrote. */
async function headOfCsv(source: string, target: string, rows: number): Promise<number> {
  const out = createWriteStream(target);
  const lines = createInterface({ input: createReadStream(source), crlfDelay: Infinity });
  let written = -1;
  for await (const line of lines) {
    if (!out.write(`${line}\r\n`)) await once(out, 'drain');
    written += 1;
    if (written === rows) break;
  }
  lines.close();
  out.end();
  await once(out, 'close');
  return Math.max(0, written);
}

async function countReadings(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM fuel_consumption');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * `cli.js import` of N fuel readings against its floor: a bare `COPY` of the same file into the same table. Both
 * start from the same database (projects, households and devices loaded, no readings: a copy of one template) and
 * each is one process timed from start to exit. The readings and their households come from the registry's own
 * seeder (the seed the registry suite uses, cached the same way), exported with `cli.js export`.
 */
export async function loaderSuite(ctx: SuiteContext): Promise<void> {
  if (!selected(ctx, WORKLOAD)) return;
  assertBuilt([SERVICE_BUILDS.registry.cli, floorScript('copy')]);
  const cliEnv = (url: string): NodeJS.ProcessEnv => baseEnv({ DATABASE_URL: url });
  const run = (args: string[], url: string): Promise<string> =>
    runToCompletion(SERVICE_BUILDS.registry.cli, args, cliEnv(url), ctx.janitor);
  ctx.progress(
    `registry-api loader: ${ctx.options.readings.toLocaleString('en-US')} fuel readings against a bare COPY`,
  );

  const seeded = await seededDatabase(
    ctx.resources,
    ctx.options.households,
    ctx.janitor,
    ctx.options.seedCache,
    ctx.progress,
  );
  const exported = join(ctx.logDir, 'loader-export');
  await run(['export', exported, '--quiet'], seeded);
  const input = join(ctx.logDir, 'loader-input');
  mkdirSync(input, { recursive: true });
  const file = join(input, 'fuel-readings.csv');
  const readings = await headOfCsv(join(exported, 'fuel-readings.csv'), file, ctx.options.readings);

  const base = await createDatabase(ctx.resources, 'loader_base', ctx.janitor);
  await run(['migrate'], base);
  await run(
    [
      'import',
      ...['projects', 'households', 'devices'].map((name) => join(exported, `${name}.csv`)),
      '--quiet',
    ],
    base,
  );
  const template = new URL(base).pathname.slice(1);
  const floorDb = await createDatabase(ctx.resources, 'loader_floor', ctx.janitor, template);
  const targetDb = await createDatabase(ctx.resources, 'loader_target', ctx.janitor, template);

  const floorSeconds = await timed(() =>
    runToCompletion(
      floorScript('copy'),
      [],
      baseEnv({
        DATABASE_URL: floorDb,
        COPY_TABLE: 'fuel_consumption',
        COPY_COLUMNS: READING_COLUMNS,
        COPY_FILE: file,
      }),
      ctx.janitor,
    ),
  );
  const targetSeconds = await timed(() => run(['import', file, '--quiet'], targetDb));
  const floor: BatchSide = { seconds: floorSeconds, rows: await countReadings(floorDb) };
  const target: BatchSide = { seconds: targetSeconds, rows: await countReadings(targetDb) };
  const problems = [floor, target]
    .map((side, index) =>
      side.rows === readings
        ? undefined
        : `${index === 0 ? 'floor' : 'service'} stored ${side.rows} of ${readings} readings`,
    )
    .filter((problem): problem is string => problem !== undefined);
  const batch = {
    service: 'registry-api',
    workload: WORKLOAD,
    dataset: `${readings.toLocaleString('en-US')} readings`,
    floor,
    target,
    problems,
  };
  ctx.batches.push(batch);
  ctx.progress(
    `  ${WORKLOAD}: floor ${floorSeconds.toFixed(1)} s, service ${targetSeconds.toFixed(1)} s, ratio ${(floorSeconds / targetSeconds).toFixed(2)}` +
      (problems.length > 0 ? ` — PROBLEMS: ${problems.join('; ')}` : ''),
  );
}
