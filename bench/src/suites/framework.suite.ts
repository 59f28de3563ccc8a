import { join } from 'node:path';
import { assertBuilt, BENCH_DIST, floorScript } from '../harness/paths';
import { LoadPlan } from '../harness/load';
import { CONSTANT_ANSWER } from '../floors/floor-server';
import { startFloor, startService } from './services';
import { compare, selected, SuiteContext } from './suite';

export const FRAMEWORK_WORKLOAD =
  'constant JSON, no I/O: GET /constant (NestJS + Fastify + @dmrv/http-kit, logs at info)';
export const FASTIFY_CEILING_WORKLOAD =
  'constant JSON, no I/O: GET /constant (bare Fastify: the HTTP framework alone)';
export const NEST_CEILING_WORKLOAD =
  'constant JSON, no I/O: GET /constant (bare NestJS on Fastify, its logger off: nothing of ours)';
const EXPECTED = JSON.stringify(CONSTANT_ANSWER);

/** Each one-route app of the suite, from the most of ours to none: the same route, the same floor. */
const APPS: ReadonlyArray<{ name: string; script: string; workload: string }> = [
  {
    name: 'nest-reference',
    script: join(BENCH_DIST, 'reference', 'nest-constant.js'),
    workload: FRAMEWORK_WORKLOAD,
  },
  {
    name: 'nest-bare',
    script: join(BENCH_DIST, 'reference', 'nest-bare-constant.js'),
    workload: NEST_CEILING_WORKLOAD,
  },
  {
    name: 'fastify-bare',
    script: join(BENCH_DIST, 'reference', 'fastify-constant.js'),
    workload: FASTIFY_CEILING_WORKLOAD,
  },
];

/**
 * Not services of ours: the ceiling of the framework every service runs on. The first row is our stack (Nest, Fastify,
 * http-kit's request id, access line and metrics); its ratio bounds what any service can reach against a floor that
 * does as little I/O as the answer needs. The next two take our work away, then Nest's, so every run shows, on its
 * own machine, how much of the first row's gap is ours.
 */
export async function frameworkSuite(ctx: SuiteContext): Promise<void> {
  assertBuilt([...APPS.map((app) => app.script), floorScript('constant')]);
  const apps = APPS.filter((app) => selected(ctx, app.workload));
  if (apps.length === 0) return;
  ctx.progress(
    `framework reference: one-route apps ${apps.map((app) => app.name).join(', ')} and their floor`,
  );
  const floor = await startFloor(ctx, 'constant', {});
  const plan: LoadPlan = {
    steps: [
      {
        method: 'GET',
        path: '/constant',
        expect: (body) => (body === EXPECTED ? undefined : `unexpected body ${body}`),
      },
    ],
    connections: ctx.options.connections,
  };
  for (const app of apps) {
    const service = await startService(ctx, app.name, app.script, {});
    await compare(ctx, {
      service: 'reference',
      workload: app.workload,
      reference: true,
      floor: { ...floor, plan },
      target: { ...service, plan },
    });
    await service.process.stop();
  }
  await floor.process.stop();
}
