import type { Exposition } from '@dmrv/testing';
import { entityDid } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, observedGateway, startGateway, startNode } from './harness';

const LATEST = 4_200_000;
const ENTITY = `/ixo/entity/${entityDid(5)}`;
const ENTITY_METHOD = 'ixo.entity.v1beta1.Query/Entity';
const PARAMS_METHOD = 'ixo.token.v1beta1.Query/Params';

jest.setTimeout(60_000);

describe('identical concurrent queries coalesced (real gRPC, latest-height cache off)', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let metrics: () => Promise<Exposition>;

  beforeAll(async () => {
    // The node answers slowly enough that every request arrives while the first call is still in flight.
    node = await startNode({ delayMs: 300 });
    ({ gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address }));
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  const calls = (method: string): number => node.calls.get(method) ?? 0;

  it('N concurrent identical requests → 1 upstream call counted on the node, the same answer for all', async () => {
    const N = 48;
    const before = calls(ENTITY_METHOD);
    const exposedBefore = await metrics();
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => gateway.get(ENTITY, { 'x-request-id': `coalesce-${i}` })),
    );
    expect(calls(ENTITY_METHOD) - before).toBe(1);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(answers[0]!.body.entity.id).toBe(entityDid(5));
    // Every client still gets its own request id back.
    expect(answers.map((answer) => answer.headers['x-request-id'])).toEqual(
      answers.map((_, i) => `coalesce-${i}`),
    );
    const exposed = await metrics();
    const moved = (source: string): number =>
      exposed.value('dmrv_protocol_answers_total', { source }) -
      exposedBefore.value('dmrv_protocol_answers_total', { source });
    expect([moved('miss'), moved('coalesced'), moved('hit')]).toEqual([1, N - 1, 0]);
  });

  it('keeps questions apart that differ in what the node may answer on (metadata, height, query)', async () => {
    const before = calls(ENTITY_METHOD);
    const answers = await Promise.all([
      gateway.get(ENTITY),
      gateway.get(ENTITY, { 'grpc-metadata-tenant': 'acme' }),
      gateway.get(ENTITY, { 'x-cosmos-block-height': String(LATEST - 1) }),
      gateway.get(ENTITY, { authorization: 'Bearer node-token' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(calls(ENTITY_METHOD) - before).toBe(4);
  });

  it('shares a failure with the requests that joined the call, and does not keep it', async () => {
    const before = calls(ENTITY_METHOD);
    const missing = '/ixo/entity/did:ixo:entity:absent';
    const answers = await Promise.all([1, 2, 3].map(() => gateway.get(missing)));
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
    expect(calls(ENTITY_METHOD) - before).toBe(1);
    expect((await gateway.get(missing)).status).toBe(404);
    expect(calls(ENTITY_METHOD) - before).toBe(2);
  });

  it('answers latest-height queries with an ETag, revalidation required (no-cache) when not kept', async () => {
    const answer = await gateway.get('/ixo/token/params');
    expect(answer.headers['cache-control']).toBe('public, no-cache');
    expect(answer.headers.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(answer.headers.vary).toBe('x-cosmos-block-height');
  });
});

describe('answers kept (real gRPC)', () => {
  let node: LocalChainNode;
  let gateway: Gateway;

  beforeAll(async () => {
    node = await startNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address, CACHE_LATEST_TTL_MS: '60000' });
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  const calls = (method: string): number => node.calls.get(method) ?? 0;

  it('a height-pinned answer is immutable: kept, Cache-Control immutable, ETag revalidates to 304', async () => {
    const pinned = { 'x-cosmos-block-height': String(LATEST - 10) };
    const before = calls(PARAMS_METHOD);
    const first = await gateway.get('/ixo/token/params', pinned);
    const second = await gateway.get('/ixo/token/params', pinned);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(calls(PARAMS_METHOD) - before).toBe(1);
    expect(second.body).toEqual(first.body);
    expect(first.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['x-cosmos-block-height']).toBe(String(LATEST - 10));

    const revalidated = await gateway.app.inject({
      method: 'GET',
      url: '/ixo/token/params',
      headers: { ...pinned, 'if-none-match': String(first.headers.etag) },
    });
    expect([revalidated.statusCode, revalidated.body]).toEqual([304, '']);
    expect(revalidated.headers.etag).toBe(first.headers.etag);
    expect(calls(PARAMS_METHOD) - before).toBe(1);
  });

  it('a latest-height answer is kept for CACHE_LATEST_TTL_MS and says so in max-age', async () => {
    const path = `/ixo/entity/${entityDid(6)}`;
    const before = calls(ENTITY_METHOD);
    const first = await gateway.get(path);
    const second = await gateway.get(path);
    expect(calls(ENTITY_METHOD) - before).toBe(1);
    expect(second.body).toEqual(first.body);
    expect(first.headers['cache-control']).toMatch(/^public, max-age=(59|60)$/);
    expect(second.headers['cache-control']).toMatch(/^public, max-age=(59|60)$/);
  });

  it('marks an answer private when the request carried credentials for the node', async () => {
    const answer = await gateway.get('/ixo/token/params', { authorization: 'Bearer node-token' });
    expect(answer.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
  });
});

describe('answers kept behind API keys', () => {
  it('are private: a shared cache must not hand them to a caller without a key', async () => {
    const node = await startNode();
    const key = 'cache-test-key-0123456789';
    const gateway = await startGateway({
      GRPC_UPSTREAM: node.address,
      ACCESS_MODE: 'api-key',
      API_KEYS: key,
      CACHE_LATEST_TTL_MS: '60000',
    });
    try {
      const answer = await gateway.get('/ixo/token/params', { 'x-api-key': key });
      expect(answer.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
      // The key is checked before the kept answer is served.
      expect((await gateway.get('/ixo/token/params')).status).toBe(401);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
