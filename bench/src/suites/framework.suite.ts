import { assertBuilt, BENCH_DIST, floorScript } from '../harness/paths';
import { LoadPlan } from '../harness/load';
import { CONSTANT_ANSWER } from '../floors/floor-server';
import { startFloor, startService } from './services';
import { compare, selected, SuiteContext } from './suite';
import { join } from 'node:path';

export const FRAMEWORK_WORKLOAD =
  'constant JSON, no I/O: GET /constant (NestJS + Fastify + @dmrv/http-kit, logs at info)';
const EXPECTED = JSON.stringify(CONSTANT_ANSWER);

/**
 * Not a service of ours: the ceiling of the framework every service runs on. Its ratio bounds what any service
 * can reach against a floor that does as little I/O as the answer needs (docs/performance.md).
 */
export async function frameworkSuite(ctx: SuiteContext): Promise<void> {
  const script = join(BENCH_DIST, 'reference', 'nest-constant.js');
  assertBuilt([script, floorScript('constant')]);
  if (!selected(ctx, FRAMEWORK_WORKLOAD)) return;
  ctx.progress('framework reference: starting a one-route Nest app and its floor');
  const service = await startService(ctx, 'nest-reference', script, {});
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
  await compare(ctx, {
    service: 'reference',
    workload: FRAMEWORK_WORKLOAD,
    reference: true,
    floor: { ...floor, plan },
    target: { ...service, plan },
  });
  await service.process.stop();
  await floor.process.stop();
}
