import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { summariseProfiles } from './harness/cpu-profile';
import { Janitor } from './harness/janitor';
import { BenchOptions, parseOptions, ServiceName, USAGE } from './harness/options';
import { BatchResult, renderMarkdown, RunInfo } from './harness/report';
import { assertReachable, ResourceSettings } from './harness/resources';
import { frameworkSuite } from './suites/framework.suite';
import { protocolSuite } from './suites/protocol.suite';
import { loaderSuite } from './suites/loader.suite';
import { registrySuite } from './suites/registry.suite';
import { clearSeedCache } from './suites/registry-seed-cache';
import { profileDir } from './suites/services';
import { ComparedWorkload, SuiteContext } from './suites/suite';
import { ussdSuite } from './suites/ussd.suite';

const SUITES: Record<ServiceName, (ctx: SuiteContext) => Promise<void>> = {
  registry: registrySuite,
  loader: loaderSuite,
  ussd: ussdSuite,
  protocol: protocolSuite,
  framework: frameworkSuite,
};

export interface BenchReport {
  info: RunInfo;
  rows: ComparedWorkload[];
  batches: BatchResult[];
  /** Suites that could not run at all (missing build, start-up failure …). */
  failures: string[];
  markdown: string;
}

function resourceSettings(env: NodeJS.ProcessEnv): ResourceSettings {
  return {
    pgAdminUrl: env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    databasePrefix: env.BENCH_DB_PREFIX ?? 'dmrv_bench_',
    redisPrefix: env.BENCH_REDIS_PREFIX ?? 'dmrv_bench:',
  };
}

export async function runBench(
  options: BenchOptions,
  janitor: Janitor,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BenchReport> {
  const progress = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const resources = resourceSettings(env);
  await assertReachable(resources);
  const logDir = mkdtempSync(join(tmpdir(), 'dmrv-bench-'));
  const info: RunInfo = {
    startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    mode: options.mode,
    durationS: options.durationS,
    warmupS: options.warmupS,
    node: process.version,
    cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}`,
    loadAverage: loadavg()
      .map((value) => value.toFixed(2))
      .join(' '),
    serviceEnv: options.serviceEnv,
  };
  const rows: ComparedWorkload[] = [];
  const batches: BatchResult[] = [];
  const ctx: SuiteContext = { options, janitor, resources, logDir, progress, results: rows, batches };
  const failures: string[] = [];
  for (const name of options.only) {
    try {
      await SUITES[name](ctx);
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`);
      progress(`${name} FAILED (details at the end)`);
    } finally {
      // Each suite leaves the machine as it found it before the next one measures.
      for (const failure of await janitor.cleanAll()) progress(`cleanup: ${failure}`);
    }
  }
  const problems =
    rows.some((row) => row.problems.length > 0) || batches.some((batch) => batch.problems.length > 0);
  if (options.profile) {
    const summary = join(logDir, 'profile-summary.md');
    writeFileSync(summary, `${summariseProfiles(profileDir(ctx))}\n`);
    progress(`CPU profiles and their summary: ${summary}`);
  } else if (failures.length === 0 && !problems) {
    rmSync(logDir, { recursive: true, force: true });
  } else progress(`process output kept in ${logDir}`);
  return { info, rows, batches, failures, markdown: renderMarkdown(info, rows, batches) };
}

async function main(): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.clearSeedCache) {
    await clearSeedCache(resourceSettings(process.env), (line) => process.stderr.write(`${line}\n`));
    return 0;
  }
  const janitor = new Janitor();
  const interrupt = (signal: NodeJS.Signals): void => {
    process.stderr.write(`\n${signal}: stopping everything the benchmark started …\n`);
    void janitor.cleanAll().then((failures) => {
      for (const failure of failures) process.stderr.write(`cleanup: ${failure}\n`);
      process.exit(130);
    });
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const report = await runBench(options, janitor);
    process.stdout.write(`${report.markdown}\n`);
    if (options.jsonOut) writeFileSync(options.jsonOut, `${JSON.stringify(report, null, 2)}\n`);
    if (options.markdownOut) writeFileSync(options.markdownOut, `${report.markdown}\n`);
    const problems = [...report.rows, ...report.batches].filter((row) => row.problems.length > 0);
    for (const row of problems)
      process.stderr.write(`PROBLEM ${row.service} ${row.workload}: ${row.problems.join('; ')}\n`);
    for (const failure of report.failures) process.stderr.write(`FAILED ${failure}\n`);
    return report.failures.length > 0 || problems.length > 0 ? 1 : 0;
  } finally {
    for (const failure of await janitor.cleanAll()) process.stderr.write(`cleanup: ${failure}\n`);
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
