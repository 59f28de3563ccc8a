import { assertBuilt, floorScript } from '../harness/paths';
import { LoadPlan } from '../harness/load';
import { Step } from '../harness/steps';
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

/**
 * A dashboard: every client polls the same five routes in turn, as a page of widgets refreshing does. Identical
 * questions in flight at once share one upstream call, and latest-height answers are kept for CACHE_LATEST_TTL_MS;
 * the floor makes every call.
 */
export const DASHBOARD_CLIENTS = 64;
export const DASHBOARD_ROUTES: Step[] = [
  ...PROTOCOL_WORKLOADS.map(({ path, expect }) => ({ method: 'GET' as const, path, expect })),
  { method: 'GET', path: '/ixo/entity/params', expect: isJsonObject },
  {
    method: 'GET',
    path: '/ixo/claims/collections',
    expect: (body) =>
      isJsonObject(body) ??
      ((JSON.parse(body) as { collections?: unknown[] }).collections?.length ? undefined : 'no collections'),
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
  // The per-route rows measure what the gateway adds to one call: with no answer kept (identical requests in flight
  // at once are still joined, as in production).
  const service = await startService(ctx, 'protocol-gateway', SERVICE_BUILDS.protocol.main, {
    ...upstreamEnv,
    CACHE_LATEST_TTL_MS: '0',
  });
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
  const dashboard: LoadPlan = { steps: DASHBOARD_ROUTES, connections: DASHBOARD_CLIENTS };
  const dashboardRows = [
    {
      workload: 'dashboard, 64 clients × 5 routes: coalescing only (CACHE_LATEST_TTL_MS=0)',
      target: service,
    },
    { workload: 'dashboard, 64 clients × 5 routes: coalescing + 1 s cache (defaults)', target: undefined },
  ];
  for (const row of dashboardRows) {
    if (!selected(ctx, row.workload)) continue;
    const target =
      row.target ??
      (await startService(ctx, 'protocol-gateway-cached', SERVICE_BUILDS.protocol.main, upstreamEnv));
    await compare(ctx, {
      service: 'protocol-gateway',
      workload: row.workload,
      floor: { ...floor, plan: dashboard },
      target: { ...target, plan: dashboard },
    });
    if (target !== service) await target.process.stop();
  }
  await service.process.stop();
  await floor.process.stop();
  await chainNode.stop();
}
