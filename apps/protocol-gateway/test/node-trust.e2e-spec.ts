import type { Exposition } from '@dmrv/testing';
import { RouteSet, ServedRoutes } from '../src/routes/served-routes';
import { ReflectionMonitor } from '../src/upstream/reflection-monitor';
import { advertisedServiceFile } from './advertised-service';
import { Gateway, LocalChainNode, observedGateway, startGateway, startNode } from './harness';

jest.setTimeout(60_000);

const TOKEN_PARAMS = 'ixo.token.v1beta1.Query/Params';
const CLAIMS_PARAMS = 'ixo.claims.v1beta1.Query/Params';

/** Resolves with the first route set (from now on) that `accept`s. */
function nextRouteSet(gateway: Gateway, accept: (set: RouteSet) => boolean): Promise<RouteSet> {
  return new Promise((resolve) => {
    gateway.app.get(ServedRoutes).onChange((set) => {
      if (accept(set)) resolve(set);
    });
  });
}

const serves = (set: RouteSet, path: string): boolean =>
  set.table.routes.some((route) => route.pattern === path);

function noRoute(path: string): { code: number; message: string; details: [] } {
  return {
    code: 5,
    message: `no route for ${path}; this gateway serves the query routes under /ixo/ (see / for the list)`,
    details: [],
  };
}

describe('a node advertising routes the gateway cannot serve (bad path templates)', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let metrics: () => Promise<Exposition>;

  beforeAll(async () => {
    node = await startNode({
      advertise: {
        httpRules: {
          [TOKEN_PARAMS]: { get: '/' },
          'ixo.token.v1beta1.Query/TokenMetadata': { get: '/ixo/token/metadata/{id' },
        },
        services: ['bad.v1.Query'],
        files: [
          advertisedServiceFile('bad.v1', [
            { name: 'Root', rule: { get: '/' } },
            { name: 'Unclosed', rule: { get: '/bad/{id' } },
            { name: 'RestInside', rule: { get: '/bad/**/x' } },
            { name: 'Good', rule: { get: '/bad/good/{id}' } },
          ]),
        ],
      },
    });
    // Start-up awaits the first reflection answer: with these descriptors it must still succeed.
    ({ gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address }));
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  it('starts, and serves every other route the node describes', async () => {
    const minter = String(node.seed.tokens[0]!.minter);
    expect((await gateway.get(`/ixo/token/minter/${minter}`)).status).toBe(200);
    const good = await gateway.get('/bad/good/1');
    expect([good.status, good.body]).toEqual([
      501,
      { code: 12, message: 'bad.v1.Query/Good is not implemented by the upstream node', details: [] },
    ]);
    // The node's own description of Params is the one that counts: its unservable binding is not replaced by ours.
    const params = await gateway.get('/ixo/token/params');
    expect([params.status, params.body]).toEqual([404, noRoute('/ixo/token/params')]);
  });

  it('lists the skipped bindings with their reasons, and counts them', async () => {
    const skipped = gateway.app.get(ServedRoutes).current.skipped;
    expect(skipped.map(({ fullMethod, binding, reason }) => [fullMethod, binding, reason]).sort()).toEqual([
      ['bad.v1.Query/RestInside', 'GET /bad/**/x', 'invalid-template'],
      ['bad.v1.Query/Root', 'GET /', 'invalid-template'],
      ['bad.v1.Query/Unclosed', 'GET /bad/{id', 'invalid-template'],
      ['ixo.token.v1beta1.Query/Params', 'GET /', 'invalid-template'],
      ['ixo.token.v1beta1.Query/TokenMetadata', 'GET /ixo/token/metadata/{id', 'invalid-template'],
    ]);
    const root = await gateway.get('/');
    expect(root.status).toBe(200);
    const rpcs = root.body.routes.map((route: { rpc: string }) => route.rpc);
    expect(rpcs).toContain('bad.v1.Query/Good');
    expect(rpcs).not.toContain('bad.v1.Query/Root');
    expect(rpcs).not.toContain(TOKEN_PARAMS);
    const exposition = await metrics();
    expect(exposition.value('dmrv_protocol_routes_skipped', { reason: 'invalid-template' })).toBe(5);
    expect(exposition.value('dmrv_protocol_routes_skipped', { reason: 'not-get' })).toBe(0);
  });
});

describe('a node that starts advertising a bad template while the gateway runs', () => {
  it('is met by the refresh timer without ending the process: the binding is skipped, the rest served', async () => {
    let node = await startNode();
    const port = node.port;
    const gateway = await startGateway({ GRPC_UPSTREAM: node.address, REFLECTION_REFRESH_MS: '100' });
    try {
      expect((await gateway.get('/ixo/token/params')).status).toBe(200);
      const changed = nextRouteSet(gateway, (set) => !serves(set, '/ixo/token/params'));
      await node.stop();
      node = await startNode({ port, advertise: { httpRules: { [TOKEN_PARAMS]: { get: '/' } } } });
      const set = await changed;
      expect(set.skipped).toEqual([
        {
          fullMethod: TOKEN_PARAMS,
          binding: 'GET /',
          reason: 'invalid-template',
          detail: 'invalid path template "/": bad segment ""',
        },
      ]);
      const minter = String(node.seed.tokens[0]!.minter);
      expect((await gateway.get(`/ixo/token/minter/${minter}`)).status).toBe(200);
      expect((await gateway.get('/')).body.routesVersion).toBe(set.version);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});

describe('a node advertising bindings other than GET (the gateway is read-only)', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let metrics: () => Promise<Exposition>;

  beforeAll(async () => {
    node = await startNode({
      advertise: {
        httpRules: {
          [TOKEN_PARAMS]: {
            post: '/ixo/write/params',
            body: '*',
            additional_bindings: [
              { get: '/ixo/token/params' },
              { delete: '/ixo/token/params' },
              { put: '/ixo/token/params', body: '*' },
              { patch: '/ixo/token/params', body: '*' },
              { custom: { kind: 'HEAD', path: '/ixo/token/params' } },
              { get: '/ixo/token/params/again' },
            ],
          },
          [CLAIMS_PARAMS]: { delete: '/ixo/claims/params' },
        },
        services: ['cosmos.tx.v1beta1.Service'],
        files: [
          advertisedServiceFile(
            'cosmos.tx.v1beta1',
            [
              { name: 'BroadcastTx', rule: { post: '/cosmos/tx/v1beta1/txs', body: '*' } },
              { name: 'GetTxsEvent', rule: { get: '/cosmos/tx/v1beta1/txs' } },
            ],
            'Service',
          ),
        ],
      },
    });
    ({ gateway, metrics } = await observedGateway({ GRPC_UPSTREAM: node.address }));
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    '%s on a path with a GET binding is 405, Allow: GET, and reaches no node',
    async (method) => {
      for (const path of ['/ixo/token/params', '/cosmos/tx/v1beta1/txs']) {
        const before = node.calls.get(TOKEN_PARAMS) ?? 0;
        const response = await gateway.app.inject({
          method: method as 'POST',
          url: `${path}?params.ixo1155_contract_code=9`,
          payload: method === 'DELETE' ? undefined : {},
        });
        expect([response.statusCode, response.headers.allow, response.json()]).toEqual([
          405,
          'GET',
          { code: 12, message: `method ${method} is not allowed on ${path}; use GET`, details: [] },
        ]);
        expect(node.calls.get(TOKEN_PARAMS) ?? 0).toBe(before);
      }
    },
  );

  it('404 for a path the node binds to other verbs only', async () => {
    for (const [method, path] of [
      ['POST', '/ixo/write/params'],
      ['DELETE', '/ixo/claims/params'],
      ['GET', '/ixo/claims/params'],
    ] as const) {
      const response = await gateway.app.inject({ method, url: path });
      expect([response.statusCode, response.json()]).toEqual([404, noRoute(path)]);
    }
  });

  it('serves the GET bindings, additional ones included', async () => {
    const main = await gateway.get('/ixo/token/params');
    const again = await gateway.get('/ixo/token/params/again');
    expect([main.status, again.status]).toEqual([200, 200]);
    expect(again.body).toEqual(main.body);
  });

  it('lists only GET routes, and counts the bindings left out', async () => {
    const { body } = await gateway.get('/');
    expect(new Set(body.routes.map((route: { method: string }) => route.method))).toEqual(new Set(['GET']));
    const exposition = await metrics();
    // Params of token: POST, DELETE, PUT, PATCH and HEAD; Params of claims: DELETE; BroadcastTx: POST.
    expect(exposition.value('dmrv_protocol_routes_skipped', { reason: 'not-get' })).toBe(7);
  });
});

describe("bounds on the node's descriptors", () => {
  // A bound of 200 and ten times as many routes: the same refusal as 2,000 and 20,000, with descriptors small enough
  // that the node's answer never nears the reflection deadline on a loaded machine (a refresh that times out keeps
  // the last answer and counts nothing, which this test is not about).
  it('ten times REFLECTION_MAX_ROUTES advertised routes are refused: the routes stay, it is logged and counted', async () => {
    const methods = Array.from({ length: 2_000 }, (_, index) => ({
      name: `M${index}`,
      rule: { get: `/flood/m${index}/{id}` },
    }));
    const node = await startNode({
      advertise: { services: ['flood.v1.Query'], files: [advertisedServiceFile('flood.v1', methods)] },
    });
    const { gateway, metrics } = await observedGateway({
      GRPC_UPSTREAM: node.address,
      REFLECTION_MAX_ROUTES: '200',
    });
    try {
      const { status, body } = await gateway.get('/');
      expect(status).toBe(200);
      expect(body.routesVersion).toBe(1);
      expect(new Set(body.routes.map((route: { source: string }) => route.source))).toEqual(
        new Set(['compiled-in']),
      );
      const document = await gateway.get('/ixo/openapi.json');
      expect(Object.keys(document.body.paths as object).some((path) => path.startsWith('/flood/'))).toBe(
        false,
      );
      const flood = await gateway.get('/flood/m1/x');
      expect([flood.status, flood.body]).toEqual([404, noRoute('/flood/m1/x')]);
      expect((await gateway.get('/ixo/token/params')).status).toBe(200);
      const exposition = await metrics();
      expect(exposition.value('dmrv_protocol_reflection_refused_total', { reason: 'too-many-routes' })).toBe(
        1,
      );
      // The same descriptors again are not parsed or counted again.
      await gateway.app.get(ReflectionMonitor).refresh();
      expect(
        (await metrics()).value('dmrv_protocol_reflection_refused_total', { reason: 'too-many-routes' }),
      ).toBe(1);
    } finally {
      await gateway.close();
      await node.stop();
    }
  });

  it('answers past REFLECTION_MAX_BYTES are not read further: the routes stay, it is logged and counted', async () => {
    const node = await startNode();
    const { gateway, metrics } = await observedGateway({
      GRPC_UPSTREAM: node.address,
      REFLECTION_MAX_BYTES: '4096',
    });
    try {
      const { body } = await gateway.get('/');
      expect([body.upstream.reflection, body.routesVersion]).toEqual(['known', 1]);
      expect(new Set(body.routes.map((route: { source: string }) => route.source))).toEqual(
        new Set(['compiled-in']),
      );
      expect((await gateway.get('/ixo/token/params')).status).toBe(200);
      const exposition = await metrics();
      expect(exposition.value('dmrv_protocol_reflection_refused_total', { reason: 'too-large' })).toBe(1);
      expect(exposition.value('dmrv_protocol_reflection_refused_total', { reason: 'too-many-routes' })).toBe(
        0,
      );
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
