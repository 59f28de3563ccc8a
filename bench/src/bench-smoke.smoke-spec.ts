import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_PG_ADMIN_URL, TEST_REDIS_PREFIX, TEST_REDIS_URL, testRunId } from '@dmrv/testing';
import { assertBuilt, BENCH_DIST } from './harness/paths';
import type { BenchReport } from './run';
import { SERVICE_BUILDS } from './suites/services';
import { SIGNING_WORKLOAD } from './suites/registry-signing';
import {
  FASTIFY_CEILING_WORKLOAD,
  FRAMEWORK_WORKLOAD,
  NEST_CEILING_WORKLOAD,
} from './suites/framework.suite';
import { floorScript } from './harness/paths';

// The whole benchmark in smoke mode, as `npm run bench -- --smoke` runs it: every service built, started, loaded
// and stopped. It proves the benchmarks still work; the numbers are not asserted (the machine is shared and noisy).
jest.setTimeout(240_000);

const RUN_JS = join(BENCH_DIST, 'run.js');

describe('benchmark smoke run', () => {
  let workDir: string;
  let child: ChildProcess | undefined;
  let report: BenchReport;
  let exitCode: number | null;
  let stderr = '';

  beforeAll(async () => {
    assertBuilt([
      RUN_JS,
      floorScript('registry'),
      floorScript('ussd'),
      floorScript('protocol'),
      floorScript('constant'),
      floorScript('copy'),
      SERVICE_BUILDS.registry.main,
      SERVICE_BUILDS.registry.cli,
      SERVICE_BUILDS.ussd.main,
      SERVICE_BUILDS.ussd.cli,
      SERVICE_BUILDS.protocol.main,
      SERVICE_BUILDS.protocol.chainNode,
    ]);
    workDir = mkdtempSync(join(tmpdir(), 'dmrv-bench-smoke-'));
    const jsonOut = join(workDir, 'report.json');
    const runId = testRunId();
    const running = spawn(process.execPath, [RUN_JS, '--smoke', '--json', jsonOut], {
      env: {
        PATH: process.env.PATH,
        // Named like the suite's own databases and keys, so the global teardown sweeps anything left behind.
        BENCH_PG_ADMIN_URL: TEST_PG_ADMIN_URL,
        BENCH_REDIS_URL: TEST_REDIS_URL,
        BENCH_DB_PREFIX: `dmrv_test_${runId}_bench_`,
        BENCH_REDIS_PREFIX: `${TEST_REDIS_PREFIX}${runId}:bench:`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = running;
    running.stdout.resume();
    running.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    exitCode = await new Promise<number | null>((resolve) => running.once('close', (code) => resolve(code)));
    child = undefined;
    try {
      report = JSON.parse(readFileSync(jsonOut, 'utf8')) as BenchReport;
    } catch {
      throw new Error(`the smoke run wrote no report (exit ${exitCode}):\n${stderr.slice(-3000)}`);
    }
  });

  afterAll(() => {
    child?.kill('SIGTERM');
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('runs every service to the end and exits 0', () => {
    expect({
      failures: report.failures,
      exitCode,
      stderr: exitCode === 0 ? '' : stderr.slice(-3000),
    }).toEqual({
      failures: [],
      exitCode: 0,
      stderr: '',
    });
    expect([...new Set(report.rows.map((row) => row.service))]).toEqual([
      'registry-api',
      'ussd-gateway',
      'protocol-gateway',
      'reference',
    ]);
  });

  it('measures the 12 registry endpoints, the collection pages, and the aggregates and collection pages again on ten times the data', () => {
    const registry = report.rows.filter((row) => row.service === 'registry-api');
    const datasets = [...new Set(registry.map((row) => row.dataset))];
    expect(datasets).toEqual(['300 households', '3,000 households']);
    expect(
      registry.filter((row) => row.dataset === '300 households' && !row.workload.includes('/list')),
    ).toHaveLength(13 + 1);
    // The one beyond the endpoints: signed answers from memory against the same service unsigned.
    expect(registry.filter((row) => row.workload === SIGNING_WORKLOAD)).toHaveLength(1);
    expect(registry.filter((row) => row.workload.includes('/list'))).toHaveLength(9 * 2);
    expect(registry.filter((row) => row.dataset === '3,000 households').every((row) => row.growthKey)).toBe(
      true,
    );
    expect(registry.filter((row) => row.dataset === '3,000 households')).toHaveLength(5 + 9);
  });

  it('loads fuel readings with cli.js import against a bare COPY of the same file, both storing every row', () => {
    expect(report.batches.map((batch) => [batch.service, batch.workload, batch.dataset])).toEqual([
      ['registry-api', 'cli.js import fuel-readings.csv', '3,000 readings'],
    ]);
    const [batch] = report.batches;
    expect({ floor: batch!.floor.rows, target: batch!.target.rows, problems: batch!.problems }).toEqual({
      floor: 3000,
      target: 3000,
      problems: [],
    });
    expect(report.markdown).toContain('| registry-api | cli.js import fuel-readings.csv | 3,000 readings |');
  });

  it('measures the framework reference and its two ceilings (bare Nest, bare Fastify) against node:http writing the same bytes', () => {
    const reference = report.rows.filter((row) => row.service === 'reference');
    expect(reference.map((row) => row.workload)).toEqual([
      FRAMEWORK_WORKLOAD,
      NEST_CEILING_WORKLOAD,
      FASTIFY_CEILING_WORKLOAD,
    ]);
    expect(reference.map((row) => [row.reference, row.problems, row.target.result.ok > 0])).toEqual([
      [true, [], true],
      [true, [], true],
      [true, [], true],
    ]);
  });

  it('drives three USSD session flows and their mix, three protocol queries and the protocol dashboard twice', () => {
    const ussd = report.rows.filter((row) => row.service === 'ussd-gateway');
    expect(ussd.map((row) => row.workload)).toEqual([
      expect.stringContaining('Know More'),
      expect.stringContaining('create account'),
      expect.stringContaining('log in'),
      expect.stringContaining('session mix'),
    ]);
    // The mix measured its PIN subscribers alongside, on both sides; the single-flow rows read each side's CPU.
    const alongside = ussd[3]!.alongside!;
    expect({
      floor: alongside.floor.ok > 0,
      service: alongside.target.ok > 0,
      connections: alongside.connections,
    }).toEqual({
      floor: true,
      service: true,
      connections: 8,
    });
    for (const row of ussd.slice(0, 3))
      expect([row.floor.cpuSeconds, row.target.cpuSeconds]).toEqual([expect.any(Number), expect.any(Number)]);
    // The PIN rows are measured by completed sessions on both sides, with sheds and hashes counted apart.
    const tally = {
      completed: expect.any(Number),
      shed: expect.any(Number),
      work: expect.any(Number),
      completedPerS: expect.any(Number),
      shedPerS: expect.any(Number),
      workPerS: expect.any(Number),
      completedHops: expect.any(Number),
      completedHopP50Ms: expect.any(Number),
      completedHopP99Ms: expect.any(Number),
    };
    expect(ussd.map((row) => row.counts)).toEqual([undefined, 'sessions', 'sessions', undefined]);
    for (const row of ussd.slice(1, 3)) {
      expect({
        floor: row.floor.result.sessions,
        service: row.target.result.sessions,
        floorShed: row.floor.result.shed,
      }).toEqual({
        floor: tally,
        service: tally,
        floorShed: 0,
      });
      // Its line in the sessions table, which starts with the workload.
      expect(report.markdown).toContain(`\n| ${row.workload} | `);
    }
    expect([alongside.floor.sessions, alongside.target.sessions]).toEqual([tally, tally]);
    expect(ussd[0]!.target.result.sessions).toBeUndefined();
    const protocol = report.rows.filter((row) => row.service === 'protocol-gateway');
    expect(protocol).toHaveLength(5);
    expect(protocol.slice(3).map((row) => row.workload)).toEqual([
      expect.stringContaining('coalescing only'),
      expect.stringContaining('coalescing + 1 s cache'),
    ]);
  });

  it('gets only successful answers, from the service and from its floor, on every workload', () => {
    const bad = report.rows
      .filter((row) => row.problems.length > 0 || row.floor.result.ok === 0 || row.target.result.ok === 0)
      .map((row) => `${row.service} ${row.workload}: ${row.problems.join('; ')}`);
    expect(bad).toEqual([]);
    for (const row of report.rows) {
      for (const side of [row.floor.result, row.target.result]) {
        expect({ non2xx: side.non2xx, errors: side.errors, unexpected: side.unexpected }).toEqual({
          non2xx: 0,
          errors: 0,
          unexpected: 0,
        });
      }
    }
  });

  it('prints a Markdown table with a row per workload and per batch job', () => {
    const tableRows = report.markdown
      .split('\n')
      .filter((line) => /^\| (registry-api|ussd-gateway|protocol-gateway|reference) \|/.test(line));
    // The batch jobs' table has rows of the same services.
    expect(tableRows).toHaveLength(report.rows.length + report.batches.length);
  });
});
