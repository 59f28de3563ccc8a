import { QUERY_SERVICES } from '@dmrv/proto';
import { agentAddress } from '../../../tools/local-chain-node/src';
import { RouteSet, ServedRoutes } from '../src/routes/served-routes';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

const BANK = 'cosmos.bank.v1beta1.Query';
const MINT_PARAMS = '/cosmos/mint/v1beta1/params';

jest.setTimeout(60_000);

function balancesPath(index: number): string {
  return `/cosmos/bank/v1beta1/balances/${agentAddress(index)}`;
}

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

describe('routes learnt from the node through server reflection (real gRPC)', () => {
  describe('a module the gateway was not built with', () => {
    let node: LocalChainNode;
    let gateway: Gateway;

    beforeAll(async () => {
      node = await startNode({ omitServices: ['iid'] });
      gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    });

    afterAll(async () => {
      await gateway.close();
      await node.stop();
    });

    it('is served from the node descriptors alone, with the same transcoder', async () => {
      expect(QUERY_SERVICES).not.toContain(BANK);
      const all = await gateway.get(balancesPath(0));
      expect(all.status).toBe(200);
      expect(all.body.balances).toEqual([
        { denom: 'ucarbon', amount: '250' },
        { denom: 'uixo', amount: '1000000' },
      ]);
      expect(Object.keys(all.body)).toEqual(['balances', 'pagination']);

      const one = await gateway.get(`${balancesPath(2)}/by_denom?denom=uixo`);
      expect([one.status, one.body]).toEqual([200, { balance: { denom: 'uixo', amount: '3000000' } }]);
      // Query parameters are bound like on every other route.
      const paged = await gateway.get(`${balancesPath(1)}?pagination.limit=1`);
      expect(paged.body.balances).toEqual([{ denom: 'ucarbon', amount: '500' }]);
    });

    it('lists the module routes at / as learnt from reflection, and ours as the node described them', async () => {
      const { body } = await gateway.get('/');
      expect(body.routes).toEqual(
        expect.arrayContaining([
          {
            method: 'GET',
            path: '/cosmos/bank/v1beta1/balances/{address}',
            rpc: `${BANK}/AllBalances`,
            disabled: false,
            source: 'reflection',
          },
          {
            method: 'GET',
            path: '/cosmos/bank/v1beta1/balances/{address}/by_denom',
            rpc: `${BANK}/Balance`,
            disabled: false,
            source: 'reflection',
          },
        ]),
      );
      expect(body.routesVersion).toBe(2);
      // This node leaves iid out: its routes stay, from our protos, answered 501.
      const iid = body.routes.filter((route: { rpc: string }) => route.rpc.startsWith('ixo.iid.'));
      expect(iid.map((route: { source: string }) => route.source)).toEqual(['compiled-in', 'compiled-in']);
      expect((await gateway.get('/ixo/did/dids')).status).toBe(501);
    });
  });

  describe('a node without reflection', () => {
    it('gets the compiled-in routes only: ours answer, the module we were not built with is unknown', async () => {
      const node = await startNode({ reflection: false });
      const gateway = await startGateway({ GRPC_UPSTREAM: node.address });
      try {
        const root = await gateway.get('/');
        expect(root.body.upstream.reflection).toBe('unsupported');
        expect(new Set(root.body.routes.map((route: { source: string }) => route.source))).toEqual(
          new Set(['compiled-in']),
        );
        expect((await gateway.get('/ixo/token/params')).status).toBe(200);
        const bank = await gateway.get(balancesPath(0));
        expect([bank.status, bank.body.code]).toEqual([404, 5]);
      } finally {
        await gateway.close();
        await node.stop();
      }
    });
  });

  describe('a node upgrade (restarted with a changed route set)', () => {
    it('is picked up on the next reflection refresh, without restarting the gateway', async () => {
      let node = await startNode({ extraModules: ['bank'] });
      const port = node.port;
      const gateway = await startGateway({ GRPC_UPSTREAM: node.address, REFLECTION_REFRESH_MS: '200' });
      try {
        expect((await gateway.get(balancesPath(0))).status).toBe(200);
        expect((await gateway.get(MINT_PARAMS)).status).toBe(404);
        const before = (await gateway.get('/')).body.routesVersion as number;
        const documentedBefore = Object.keys((await gateway.get('/ixo/openapi.json')).body.paths as object);
        expect(documentedBefore).toContain('/cosmos/bank/v1beta1/balances/{address}');
        expect(documentedBefore).not.toContain(MINT_PARAMS);

        const upgraded = nextRouteSet(gateway, (set) => serves(set, MINT_PARAMS));
        await node.stop();
        // The upgrade drops bank and adds mint, on the same address.
        node = await startNode({ port, extraModules: ['mint'] });
        const set = await upgraded;

        expect(set.version).toBeGreaterThan(before);
        const mint = await gateway.get(MINT_PARAMS);
        expect([mint.status, mint.body.params.mint_denom, mint.body.params.blocks_per_year]).toEqual([
          200,
          'uixo',
          '6311520',
        ]);
        expect((await gateway.get(balancesPath(0))).status).toBe(404);
        expect((await gateway.get('/')).body.routesVersion).toBe(set.version);
        expect((await gateway.get('/ixo/token/params')).status).toBe(200);
        // The OpenAPI document follows the routes in service.
        const documentedAfter = Object.keys((await gateway.get('/ixo/openapi.json')).body.paths as object);
        expect(documentedAfter).toContain(MINT_PARAMS);
        expect(documentedAfter).not.toContain('/cosmos/bank/v1beta1/balances/{address}');
      } finally {
        await gateway.close();
        await node.stop();
      }
    });
  });
});
