import type { Exposition } from '@dmrv/testing';
import { entityDid } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, observedGateway, startGateway, startNode } from './harness';

const LATEST = 4_200_000;
const ENTITY = `/ixo/entity/${entityDid(5)}`;
const ENTITY_METHOD = 'ixo.entity.v1beta1.Query/Entity';
const PARAMS_METHOD = 'ixo.token.v1beta1.Query/Params';
// Every request header an answer depends on: both ways of asking for a height, and credentials.
const VARY = 'x-cosmos-block-height, grpc-metadata-x-cosmos-block-height, authorization';

jest.setTimeout(60_000);

/** The names of the response headers whose value carries `text`. */
const carrying = (headers: Record<string, unknown>, text: string): string[] =>
  Object.keys(headers).filter((name) => String(headers[name]).includes(text));

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

  it("each request joined in flight gets its own request id, and nothing of the others' (issue 32)", async () => {
    const before = calls(PARAMS_METHOD);
    const ids = Array.from({ length: 8 }, (_, i) => `joined-caller-${i}-id`);
    const answers = await Promise.all(
      ids.map((id) => gateway.get('/ixo/token/params', { 'x-request-id': id })),
    );
    expect(calls(PARAMS_METHOD) - before).toBe(1);
    answers.forEach((answer, i) => {
      for (const [j, id] of ids.entries())
        expect(carrying(answer.headers, id)).toEqual(i === j ? ['x-request-id'] : []);
    });
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
    expect(answer.headers.vary).toBe(VARY);
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

  it('a height-pinned answer is immutable: kept, private immutable, ETag revalidates to 304', async () => {
    const pinned = { 'x-cosmos-block-height': String(LATEST - 10) };
    const before = calls(PARAMS_METHOD);
    const first = await gateway.get('/ixo/token/params', pinned);
    const second = await gateway.get('/ixo/token/params', pinned);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(calls(PARAMS_METHOD) - before).toBe(1);
    expect(second.body).toEqual(first.body);
    expect(first.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(first.headers.vary).toBe(VARY);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['x-cosmos-block-height']).toBe(String(LATEST - 10));

    const revalidated = await gateway.app.inject({
      method: 'GET',
      url: '/ixo/token/params',
      headers: { ...pinned, 'if-none-match': String(first.headers.etag) },
    });
    expect([revalidated.statusCode, revalidated.body]).toEqual([304, '']);
    expect(revalidated.headers.etag).toBe(first.headers.etag);
    expect(revalidated.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(revalidated.headers.vary).toBe(VARY);
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
    expect([first.headers.vary, second.headers.vary]).toEqual([VARY, VARY]);
  });

  it('a height asked through Grpc-Metadata-X-Cosmos-Block-Height is pinned like the header, and one question with it', async () => {
    const height = LATEST - 20;
    const before = calls(PARAMS_METHOD);
    const byMetadata = await gateway.get('/ixo/token/params', {
      'grpc-metadata-x-cosmos-block-height': String(height),
    });
    const byHeader = await gateway.get('/ixo/token/params', { 'x-cosmos-block-height': `000${height}` });
    expect([byMetadata.status, byHeader.status]).toEqual([200, 200]);
    expect(calls(PARAMS_METHOD) - before).toBe(1);
    expect(byMetadata.headers['x-cosmos-block-height']).toBe(String(height));
    for (const answer of [byMetadata, byHeader]) {
      expect(answer.headers['cache-control']).toBe('private, max-age=31536000, immutable');
      expect(answer.headers.vary).toBe(VARY);
    }
    // The latest answer is a question of its own, not the pinned one.
    const latest = await gateway.get('/ixo/token/params');
    expect(latest.headers['x-cosmos-block-height']).toBe(String(LATEST));
    expect(latest.headers['cache-control']).toMatch(/^public, max-age=(59|60)$/);
  });

  it('refuses a height in Grpc-Metadata-X-Cosmos-Block-Height that is not digits, as it refuses the header', async () => {
    const refused = await gateway.get('/ixo/token/params', { 'grpc-metadata-x-cosmos-block-height': '+7' });
    expect([refused.status, refused.body]).toEqual([
      400,
      { code: 3, message: 'x-cosmos-block-height must be a non-negative integer', details: [] },
    ]);
  });

  it.each([
    ['Authorization for the node', { authorization: 'Bearer node-token' }],
    ['a Grpc-Metadata-* header', { 'grpc-metadata-tenant': 'acme' }],
    ['Grpc-Metadata-Authorization', { 'grpc-metadata-authorization': 'Bearer node-token' }],
    [
      'a pinned height and a Grpc-Metadata-* header',
      { 'x-cosmos-block-height': String(LATEST - 30), 'grpc-metadata-tenant': 'acme' },
    ],
  ])(
    'does not keep, and marks private no-cache, an answer to a request carrying %s',
    async (_case, headers) => {
      const before = calls(PARAMS_METHOD);
      const first = await gateway.get('/ixo/token/params', headers);
      const second = await gateway.get('/ixo/token/params', headers);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(calls(PARAMS_METHOD) - before).toBe(2);
      for (const answer of [first, second]) {
        expect(answer.headers['cache-control']).toBe('private, no-cache');
        expect(answer.headers.vary).toBe(VARY);
      }
    },
  );

  // The local chain node echoes the metadata it received (x-echo-<key>) and records it (lastMetadata).
  describe('what goes to the node besides the question', () => {
    const seenByNode = (): Readonly<Record<string, string>> => node.lastMetadata.get(ENTITY_METHOD) ?? {};
    /** The names of the response headers whose value carries `text`. */

    it('the request id: sent to the node on every call, out of the key, and what the node says back of it reaches no one (issue 32)', async () => {
      const path = `/ixo/entity/${entityDid(10)}`;
      const before = calls(ENTITY_METHOD);
      const a = await gateway.get(path, { 'x-request-id': 'first-caller-id' });
      expect(seenByNode()['x-request-id']).toBe('first-caller-id');
      const b = await gateway.get(path, { 'x-request-id': 'second-caller-id' });
      expect(calls(ENTITY_METHOD) - before).toBe(1);
      expect(carrying(a.headers, 'first-caller-id')).toEqual(['x-request-id']);
      expect(carrying(b.headers, 'first-caller-id')).toEqual([]);
      expect(carrying(b.headers, 'second-caller-id')).toEqual(['x-request-id']);
      expect([a.headers['cache-control'], b.headers['cache-control']]).toEqual([
        expect.stringMatching(/^public, max-age=(59|60)$/),
        expect.stringMatching(/^public, max-age=(59|60)$/),
      ]);
    });

    it.each([
      [
        'Grpc-Metadata-Traceparent',
        'grpc-metadata-traceparent',
        '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        'traceparent',
        7,
      ],
      ['Grpc-Metadata-Tracestate', 'grpc-metadata-tracestate', 'vendor=caller-chosen-state', 'tracestate', 8],
      [
        'Grpc-Metadata-X-Request-Id',
        'grpc-metadata-x-request-id',
        'caller-chosen-metadata-id',
        'x-request-id',
        9,
      ],
    ])(
      "a caller's %s is the gateway's own to set: never forwarded, so the answer stays everyone's (issue 32)",
      async (_case, header, value, key, entity) => {
        const path = `/ixo/entity/${entityDid(entity)}`;
        const method = ENTITY_METHOD;
        const before = calls(method);
        const first = await gateway.get(path, { [header]: value });
        expect(first.status).toBe(200);
        expect(calls(method) - before).toBe(1);
        expect(node.lastMetadata.get(method)?.[key]).not.toBe(value);
        const second = await gateway.get(path);
        expect(calls(method) - before).toBe(1);
        for (const answer of [first, second]) {
          expect(carrying(answer.headers, value)).toEqual([]);
          expect(answer.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
        }
      },
    );
  });
});

describe('what the gateway keeps is bounded in bytes (real gRPC)', () => {
  const MAX_BYTES = 64 * 1024;
  let node: LocalChainNode;
  let gateway: Gateway;
  let metrics: () => Promise<Exposition>;

  beforeAll(async () => {
    node = await startNode();
    ({ gateway, metrics } = await observedGateway({
      GRPC_UPSTREAM: node.address,
      CACHE_LATEST_TTL_MS: '60000',
      CACHE_MAX_BYTES: String(MAX_BYTES),
    }));
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  const calls = (): number => node.calls.get(PARAMS_METHOD) ?? 0;
  const kept = async (): Promise<[number, number]> => {
    const exposed = await metrics();
    return [exposed.value('dmrv_protocol_cache_bytes'), exposed.value('dmrv_protocol_cache_entries')];
  };

  it('keeps nothing of unique 8 KB Grpc-Metadata-* questions: every one asks the node, none is held', async () => {
    const before = calls();
    const pad = 'p'.repeat(8 * 1024);
    for (let batch = 0; batch < 10; batch += 1) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          gateway.get('/ixo/token/params', { 'grpc-metadata-x-pad': `${pad}${batch * 20 + i}` }),
        ),
      );
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
      expect(new Set(answers.map((answer) => answer.headers['cache-control']))).toEqual(
        new Set(['private, no-cache']),
      );
      expect(await kept()).toEqual([0, 0]);
    }
    expect(calls() - before).toBe(200);
  });

  it('holds unique pinned heights within the bound, the least recently used pushed out', async () => {
    const heights = Array.from({ length: 300 }, (_, i) => LATEST - 1_000 - i);
    let most = 0;
    for (let start = 0; start < heights.length; start += 20) {
      const answers = await Promise.all(
        heights
          .slice(start, start + 20)
          .map((height) => gateway.get('/ixo/token/params', { 'x-cosmos-block-height': String(height) })),
      );
      expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([200]));
      const [bytes, entries] = await kept();
      expect(bytes).toBeLessThanOrEqual(MAX_BYTES);
      most = Math.max(most, entries);
    }
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(heights.length);
    const before = calls();
    await gateway.get('/ixo/token/params', { 'x-cosmos-block-height': String(heights.at(-1)) });
    expect(calls() - before).toBe(0);
    await gateway.get('/ixo/token/params', { 'x-cosmos-block-height': String(heights[0]) });
    expect(calls() - before).toBe(1);
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
      expect(answer.headers['cache-control']).toMatch(/^private, max-age=(59|60)$/);
      expect(answer.headers.vary).toBe(`${VARY}, x-api-key`);
      // The key is checked before the kept answer is served.
      expect((await gateway.get('/ixo/token/params')).status).toBe(401);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
