import { Exposition, mismatchesWithDeploymentDoc, startBlackhole } from '@dmrv/testing';
import { entityDid } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, observedGateway, startNode } from './harness';

const CALLS = 'dmrv_protocol_upstream_call_duration_seconds_count';
const TOKEN_QUERY = 'ixo.token.v1beta1.Query';
const ENTITY_QUERY = 'ixo.entity.v1beta1.Query';

// Every family the gateway exports, scraped through the separate metrics port of a gateway booted by bootstrap() in
// front of the local chain node over a real gRPC socket.
describe('protocol-gateway metrics', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let metrics: () => Promise<Exposition>;

  beforeAll(async () => {
    node = await startNode();
    ({ gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address }));
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
  });

  it('labels HTTP requests with the proto route template, never the path holding the id', async () => {
    const before = await metrics();
    expect((await gateway.get(`/ixo/entity/${entityDid(1)}`)).status).toBe(200);
    expect((await gateway.get(`/ixo/entity/${entityDid(2)}`)).status).toBe(200);
    expect((await gateway.get('/ixo/entity/did:ixo:entity:nope')).status).toBe(404);
    expect((await gateway.get('/ixo/no/such/route')).status).toBe(404);
    const after = await metrics();
    const moved = (labels: Record<string, string>) =>
      after.value('dmrv_http_request_duration_seconds_count', labels) -
      before.value('dmrv_http_request_duration_seconds_count', labels);
    expect(moved({ route: '/ixo/entity/{id}', method: 'GET', status: '200' })).toBe(2);
    expect(moved({ route: '/ixo/entity/{id}', method: 'GET', status: '404' })).toBe(1);
    expect(moved({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    const routes = after
      .find('dmrv_http_request_duration_seconds_count')
      .map((sample) => sample.labels.route);
    expect(routes.filter((route) => route.includes('did:ixo') || route === '/*')).toEqual([]);
  });

  it('counts upstream calls by service, method and gRPC status, with their latency', async () => {
    const labels = (service: string, method: string, code: string) => ({
      service: 'protocol-gateway',
      upstream: node.address,
      grpc_service: service,
      method,
      code,
    });
    const before = await metrics();
    await gateway.get('/ixo/token/params');
    await gateway.get('/ixo/token/params');
    await gateway.get('/ixo/entity/did:ixo:entity:absent');
    const after = await metrics();
    const moved = (l: Record<string, string>) => after.value(CALLS, l) - before.value(CALLS, l);
    expect(moved(labels(TOKEN_QUERY, 'Params', 'OK'))).toBe(2);
    expect(after.value('dmrv_protocol_upstream_calls_total', labels(TOKEN_QUERY, 'Params', 'OK'))).toBe(
      after.value(CALLS, labels(TOKEN_QUERY, 'Params', 'OK')),
    );
    expect(moved(labels(ENTITY_QUERY, 'Entity', 'NOT_FOUND'))).toBe(1);
    expect(after.types.get('dmrv_protocol_upstream_call_duration_seconds')).toBe('histogram');
    expect(
      after.value('dmrv_protocol_upstream_call_duration_seconds_sum', labels(TOKEN_QUERY, 'Params', 'OK')),
    ).toBeGreaterThan(0);
  });

  it('reports the node up and what reflection learnt', async () => {
    await gateway.get('/ixo/token/params');
    const exposed = await metrics();
    expect(exposed.value('dmrv_protocol_upstream_up', { upstream: node.address })).toBe(1);
    expect(
      exposed
        .find('dmrv_protocol_reflection_state', { upstream: node.address })
        .map((s) => [s.labels.state, s.value]),
    ).toEqual([
      ['known', 1],
      ['unsupported', 0],
      ['unknown', 0],
    ]);
    expect(
      exposed.value('dmrv_protocol_reflection_services', { upstream: node.address }),
    ).toBeGreaterThanOrEqual(node.services.length);
  });

  it('answers the orchestrator probes: /health/live without the node, /health/ready as /health', async () => {
    const live = await gateway.get('/health/live');
    expect([live.status, live.body.status, live.body.service]).toEqual([200, 'ok', 'protocol-gateway']);
    const ready = await gateway.get('/health/ready');
    expect([ready.status, ready.headers['cache-control']]).toEqual([200, 'no-store']);
    expect(ready.body).toMatchObject({ status: 'ok', checks: { upstream: { status: 'up' } } });
  });

  it('exports every dmrv_ family docs/deployment.md lists for protocol-gateway, with its type and labels', async () => {
    expect(mismatchesWithDeploymentDoc(await metrics(), 'protocol-gateway')).toEqual([]);
  });
});

describe('protocol-gateway metrics when the node fails', () => {
  it('reports a node that stopped as down, its calls as UNAVAILABLE, readiness 503 and liveness 200', async () => {
    const node = await startNode();
    const { gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address });
    try {
      expect((await gateway.get('/ixo/token/params')).status).toBe(200);
      expect((await metrics()).value('dmrv_protocol_upstream_up', { upstream: node.address })).toBe(1);
      await node.stop();
      expect((await gateway.get('/ixo/token/params')).status).toBe(503);
      const exposed = await metrics();
      expect(exposed.value('dmrv_protocol_upstream_up', { upstream: node.address })).toBe(0);
      expect(exposed.value(CALLS, { grpc_service: TOKEN_QUERY, method: 'Params', code: 'UNAVAILABLE' })).toBe(
        1,
      );
      expect((await gateway.get('/health/ready')).status).toBe(503);
      expect((await gateway.get('/health/live')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('counts connections replaced after a deadline passed in silence', async () => {
    const silent = await startBlackhole();
    const upstream = `127.0.0.1:${silent.port}`;
    const { gateway, metrics } = await observedGateway({
      GRPC_UPSTREAM: upstream,
      UPSTREAM_DEADLINE_MS: '300',
    });
    try {
      const before = (await metrics()).value('dmrv_protocol_upstream_channel_replacements_total', {
        upstream,
      });
      expect((await gateway.get('/ixo/token/params')).status).toBe(504);
      const exposed = await metrics();
      expect(exposed.value('dmrv_protocol_upstream_channel_replacements_total', { upstream }) - before).toBe(
        1,
      );
      expect(exposed.value('dmrv_protocol_upstream_up', { upstream })).toBe(0);
      expect(exposed.value(CALLS, { upstream, method: 'Params', code: 'DEADLINE_EXCEEDED' })).toBe(1);
    } finally {
      await gateway.close();
      await silent.close();
    }
  });

  it('reports a node without reflection as unsupported', async () => {
    const node = await startNode({ reflection: false });
    const { gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address });
    try {
      const exposed = await metrics();
      expect(exposed.value('dmrv_protocol_reflection_state', { state: 'unsupported' })).toBe(1);
      expect(exposed.value('dmrv_protocol_reflection_services')).toBe(0);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
