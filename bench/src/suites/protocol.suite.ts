import { assertBuilt, floorScript } from '../harness/paths';
import { LoadPlan, Step } from '../harness/load';
import { ManagedProcess } from '../harness/processes';
import { baseEnv, SERVICE_BUILDS, startFloor, startService } from './services';
import { compare, selected, SuiteContext } from './suite';

/** Seeded by the local chain node (see apps/protocol-gateway/README.md). */
export const SEEDED_ENTITY_DID = 'did:ixo:entity:7690f6fdf246e0e548befdb27f53c6b8';

const isJsonObject = (body: string): string | undefined => {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? undefined
      : `not a JSON object: ${body.slice(0, 120)}`;
  } catch {
    return `not JSON: ${body.slice(0, 120)}`;
  }
};

export const PROTOCOL_WORKLOADS: {
  workload: string;
  path: string;
  expect: (body: string) => string | undefined;
}[] = [
  { workload: 'small message: GET /ixo/token/params', path: '/ixo/token/params', expect: isJsonObject },
  {
    workload: 'one entity by DID: GET /ixo/entity/{did}',
    path: `/ixo/entity/${encodeURIComponent(SEEDED_ENTITY_DID)}`,
    expect: (body) =>
      isJsonObject(body) ??
      (body.includes(SEEDED_ENTITY_DID) ? undefined : 'the entity is not in the answer'),
  },
  {
    workload: 'list page: GET /ixo/claims/claims?pagination.limit=50',
    path: '/ixo/claims/claims?pagination.limit=50',
    expect: (body) =>
      isJsonObject(body) ??
      ((JSON.parse(body) as { claims?: unknown[] }).claims?.length ? undefined : 'no claims in the page'),
  },
];

export async function protocolSuite(ctx: SuiteContext): Promise<void> {
  assertBuilt([SERVICE_BUILDS.protocol.main, SERVICE_BUILDS.protocol.chainNode, floorScript('protocol')]);
  ctx.progress('protocol-gateway: starting the local chain node, the gateway and its floor');
  const chainNode = ManagedProcess.start(
    {
      name: 'local-chain-node',
      script: SERVICE_BUILDS.protocol.chainNode,
      env: baseEnv({ CHAIN_NODE_PORT: '0' }),
      logDir: ctx.logDir,
    },
    ctx.janitor,
  );
  const [, upstream] = await chainNode.waitForOutput(/"listening":"([^"]+)"/);
  const upstreamEnv = { GRPC_UPSTREAM: upstream! };
  const service = await startService(ctx, 'protocol-gateway', SERVICE_BUILDS.protocol.main, upstreamEnv);
  const floor = await startFloor(ctx, 'protocol', upstreamEnv);

  for (const { workload, path, expect } of PROTOCOL_WORKLOADS) {
    if (!selected(ctx, workload)) continue;
    const steps: Step[] = [{ method: 'GET', path, expect }];
    const plan: LoadPlan = { steps, connections: ctx.options.connections };
    await compare(ctx, {
      service: 'protocol-gateway',
      workload,
      floor: { ...floor, plan },
      target: { ...service, plan },
    });
  }
  await service.process.stop();
  await floor.process.stop();
  await chainNode.stop();
}
