import { Client } from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertBuilt, floorScript } from '../harness/paths';
import { RunningStatements, waitUntilNoStatementRuns } from '../harness/database-quiet';
import { Deferred } from '../harness/janitor';
import { LoadPlan } from '../harness/load';
import { Step } from '../harness/steps';
import { runToCompletion } from '../harness/processes';
import { baseEnv, SERVICE_BUILDS, startFloor, startService } from './services';
import { seededDatabase } from './registry-seed-cache';
import { measureSigning, SIGNING_WORKLOAD } from './registry-signing';
import { jsonDifference } from './same-json';
import { compare, selected, Endpoint, SuiteContext } from './suite';

export interface RegistryWorkload {
  workload: string;
  path: string;
  /**
   * Measured again on ten times the data: the aggregates, whose cost must not follow the data, and the collections'
   * first pages, whose total once counted every matching row.
   */
  grows: boolean;
}

/** Values the seeded data holds, read from the database so the benchmark does not hard-code the seed's ids. */
export interface SeedFacts {
  projectId: string;
  quarter: string;
  year: string;
}

export function registryWorkloads(facts: SeedFacts): RegistryWorkload[] {
  const one = (path: string, grows = false): RegistryWorkload => ({
    workload: `GET ${path}`,
    path,
    grows,
  });
  return [
    one('/v1/households/stats', true),
    one('/v1/households/stove-stacking', true),
    one('/v1/devices/status'),
    one('/v1/fuel-usage', true),
    one(
      `/v1/credits/issued?project_id=${encodeURIComponent(facts.projectId)}&time_period=${facts.quarter}`,
      true,
    ),
    one('/v1/credits/cancelled'),
    one('/v1/credits/transferred'),
    one('/v1/credits/retired'),
    one('/v1/claims/fuel-purchase'),
    one('/v1/claims/fuel-delivery'),
    one('/v1/claims/emission-reduction'),
    one('/v1/claims/household-onboarding'),
    one(
      `/v1/claims/emission-reduction?project_id=${encodeURIComponent(facts.projectId)}&time_period=${facts.year}`,
      true,
    ),
    ...[
      '/v1/households/stove-stacking/list',
      '/v1/devices/status/list',
      '/v1/credits/cancelled/list',
      '/v1/credits/transferred/list',
      '/v1/credits/retired/list',
      '/v1/claims/fuel-purchase/list',
      '/v1/claims/fuel-delivery/list',
      '/v1/claims/emission-reduction/list',
      '/v1/claims/household-onboarding/list',
    ].map((path) => ({ workload: `GET ${path} (first page of 50)`, path, grows: true })),
  ];
}

function quarterOf(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return `${year}-Q${Math.floor((month - 1) / 3) + 1}`;
}

async function readSeedFacts(databaseUrl: string): Promise<SeedFacts> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ project_id: string; day: string }>(
      `SELECT project_id, to_char(max(day), 'YYYY-MM-DD') AS day FROM credits_issued_daily
       GROUP BY project_id ORDER BY sum(credits) DESC, project_id LIMIT 1`,
    );
    if (!rows[0]) throw new Error('the seeded registry has no issued credits to ask for');
    return { projectId: rows[0].project_id, quarter: quarterOf(rows[0].day), year: rows[0].day.slice(0, 4) };
  } finally {
    await client.end();
  }
}

interface RegistryDeployment {
  databaseUrl: string;
  authorization: string;
  facts: SeedFacts;
}

/** A database of its own, migrated and seeded through the registry's CLI, with one API client. */
async function deploy(ctx: SuiteContext, households: number): Promise<RegistryDeployment> {
  const started = Date.now();
  const databaseUrl = await seededDatabase(
    ctx.resources,
    households,
    ctx.janitor,
    ctx.options.seedCache,
    ctx.progress,
  );
  const env = baseEnv({ DATABASE_URL: databaseUrl });
  const output = await runToCompletion(
    SERVICE_BUILDS.registry.cli,
    ['clients', 'create', '--name', 'benchmark', '--json'],
    env,
    ctx.janitor,
  );
  const line = output
    .trim()
    .split('\n')
    .reverse()
    .find((text) => text.startsWith('{'));
  const credentials = line ? (JSON.parse(line) as { client_id?: string; secret?: string }) : {};
  if (!credentials.client_id || !credentials.secret)
    throw new Error(`clients create printed no credentials: ${output.slice(0, 200)}`);
  ctx.progress(
    `  registry data set of ${households.toLocaleString('en-US')} households ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return {
    databaseUrl,
    authorization: `Basic ${Buffer.from(`${credentials.client_id}:${credentials.secret}`).toString('base64')}`,
    facts: await readSeedFacts(databaseUrl),
  };
}

/** The floor must give the same answer as the service, or the comparison measures two different things. */
async function sameAnswer(
  floor: Endpoint,
  service: Endpoint,
  path: string,
  authorization: string,
): Promise<string | undefined> {
  const [floorBody, serviceBody] = await Promise.all(
    [floor, service].map(async (endpoint) => {
      const response = await fetch(new URL(path, endpoint.baseUrl), {
        headers: { authorization },
        signal: AbortSignal.timeout(30_000),
      });
      return response.text();
    }),
  );
  const difference = jsonDifference(floorBody!, serviceBody!);
  return difference === undefined ? undefined : `floor and service answer differently (${difference})`;
}

/** A deployment's service and floor, both running. */
interface RunningDeployment {
  deployment: RegistryDeployment;
  households: number;
  service: Endpoint;
  floor: Endpoint;
  /** Counts the statements still running in the deployment's database, to start each pass on a quiet one. */
  statements: RunningStatements;
  closeStatements: Deferred;
}

async function startDeployment(
  ctx: SuiteContext,
  deployment: RegistryDeployment,
  households: number,
): Promise<RunningDeployment> {
  const env = { DATABASE_URL: deployment.databaseUrl, ...REGISTRY_LOAD_ENV };
  const service = await startService(ctx, 'registry-api', SERVICE_BUILDS.registry.main, env);
  const floor = await startFloor(ctx, 'registry', { DATABASE_URL: deployment.databaseUrl });
  const statements = await RunningStatements.connect(deployment.databaseUrl);
  const closeStatements = ctx.janitor.defer(`close the statement counter of ${households} households`, () =>
    statements.close(),
  );
  return { deployment, households, service, floor, statements, closeStatements };
}

async function stopDeployment(running: RunningDeployment): Promise<void> {
  await running.closeStatements.release();
  await running.service.process.stop();
  await running.floor.process.stop();
}

async function measureRow(
  ctx: SuiteContext,
  running: RunningDeployment,
  { workload, path, grows }: RegistryWorkload,
): Promise<void> {
  const { deployment, service, floor } = running;
  const steps: Step[] = [{ method: 'GET', path, headers: { authorization: deployment.authorization } }];
  const plan: LoadPlan = { steps, connections: ctx.options.connections };
  const row = await compare(ctx, {
    service: 'registry-api',
    workload,
    dataset: `${running.households.toLocaleString('en-US')} households`,
    growthKey: grows ? workload : undefined,
    // The floor counts every matching row on each request (1.4 s at a million households): its last pass's
    // statements run on after its window closes and would be charged to the service's pass that follows.
    beforeEachPass: async () => {
      if (!(await waitUntilNoStatementRuns(() => running.statements.count(), sleep)))
        ctx.progress(
          `  (statements still running in the ${running.households.toLocaleString('en-US')}-household database after the wait; measuring anyway)`,
        );
    },
    floor: { ...floor, plan },
    target: { ...service, plan },
  });
  const difference = await sameAnswer(floor, service, path, deployment.authorization);
  if (difference) row.problems.push(difference);
}

/**
 * The service's own throttle is per API client, and the benchmark is one client sending thousands of requests a
 * second: the limit is raised out of reach (not turned off, so the limiter still runs as in production) and what
 * is measured is serving, not 429s.
 */
const REGISTRY_LOAD_ENV: Record<string, string> = { RATE_LIMIT_PER_MINUTE: '1000000000' };

export async function registrySuite(ctx: SuiteContext): Promise<void> {
  assertBuilt([SERVICE_BUILDS.registry.main, SERVICE_BUILDS.registry.cli, floorScript('registry')]);
  const { households, scale } = ctx.options;
  const placeholder: SeedFacts = { projectId: 'p', quarter: '2024-Q1', year: '2024' };
  const wanted = registryWorkloads(placeholder).filter((workload) => selected(ctx, workload.workload));
  const signing = selected(ctx, SIGNING_WORKLOAD);
  if (wanted.length === 0 && !signing) return;
  ctx.progress(
    `registry-api: ${households.toLocaleString('en-US')} households, then ${(households * scale).toLocaleString('en-US')} for the aggregates and collections`,
  );
  const base = await startDeployment(ctx, await deploy(ctx, households), households);
  const workloads = registryWorkloads(base.deployment.facts).filter((workload) =>
    selected(ctx, workload.workload),
  );
  const growing = scale > 1 && workloads.some((workload) => workload.grows);
  // With a growth pass, a growing workload is measured there, right before its twin on ten times the data.
  for (const workload of workloads) if (!(growing && workload.grows)) await measureRow(ctx, base, workload);
  if (signing) {
    const { databaseUrl, authorization } = base.deployment;
    const env = { DATABASE_URL: databaseUrl, ...REGISTRY_LOAD_ENV };
    await measureSigning(ctx, { databaseUrl, authorization, households, signed: base.service, env });
  }
  if (growing) {
    const scaledDeployment = await deploy(ctx, households * scale);
    // Same project and period names, so each row is asked the same question of ten times the data.
    const scaled = await startDeployment(
      ctx,
      { ...scaledDeployment, facts: base.deployment.facts },
      households * scale,
    );
    // Both sizes served at once and each pair measured back to back: a slowdown compares two measurements seconds
    // apart, not minutes (the machine's load drifts by more than the data changes a cached answer).
    for (const workload of workloads.filter((candidate) => candidate.grows)) {
      await measureRow(ctx, base, workload);
      await measureRow(ctx, scaled, workload);
    }
    await stopDeployment(scaled);
  }
  await stopDeployment(base);
}
