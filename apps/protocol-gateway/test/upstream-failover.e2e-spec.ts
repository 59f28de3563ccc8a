import { Exposition, FaultProxy, startFaultProxy } from '@dmrv/testing';
import { entityDid } from '../../../tools/local-chain-node/src';
import { Gateway, GatewayAnswer, LocalChainNode, observedGateway, startGateway, startNode } from './harness';

const LATEST = 4_200_000;
const ROUTES = ['/ixo/token/params', `/ixo/entity/${entityDid(3)}`, '/ixo/claims/claims?pagination.limit=5'];

jest.setTimeout(60_000);

function totalCalls(node: LocalChainNode): number {
  return [...node.calls.values()].reduce((sum, count) => sum + count, 0);
}

describe('several upstream nodes (GRPC_UPSTREAM=a,b) over real gRPC', () => {
  describe('one of two nodes killed mid-run under concurrent load', () => {
    let doomed: LocalChainNode;
    let survivor: LocalChainNode;
    let gateway: Gateway;
    let metrics: () => Promise<Exposition>;

    beforeAll(async () => {
      // Answers take a little while, so that calls are in flight on the doomed node when it dies.
      doomed = await startNode({ delayMs: 20 });
      survivor = await startNode({ delayMs: 20 });
      ({ gateway, metrics } = await observedGateway({
        GRPC_UPSTREAM: `${doomed.address},${survivor.address}`,
        UPSTREAM_HEALTH_INTERVAL_MS: '200',
      }));
    });

    afterAll(async () => {
      await gateway.close();
      await survivor.stop();
      await doomed.stop();
    });

    it('answers every request 200 while the node dies, then sends everything to the one left', async () => {
      const CLIENTS = 16;
      const REQUESTS_AFTER_KILL = 200;
      const answers: GatewayAnswer[] = [];
      let killedAt: number | undefined;
      let inFlightOnDoomedAtKill = 0;
      let done = false;
      let answeredAfterKill = 0;
      let resolveEnough: () => void = () => undefined;
      const enough = new Promise<void>((resolve) => (resolveEnough = resolve));

      const client = async (index: number): Promise<void> => {
        for (let i = 0; !done; i += 1) {
          const answer = await gateway.get(ROUTES[(index + i) % ROUTES.length]!);
          answers.push(answer);
          if (killedAt === undefined && totalCalls(doomed) >= 60 && totalCalls(survivor) >= 60) {
            killedAt = answers.length;
            inFlightOnDoomedAtKill = totalCalls(doomed);
            doomed.kill();
          } else if (killedAt !== undefined && (answeredAfterKill += 1) >= REQUESTS_AFTER_KILL) {
            done = true;
            resolveEnough();
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
      await enough;
      await Promise.all(clients);

      expect(killedAt).toBeDefined();
      expect(answers.filter((answer) => answer.status !== 200).map((a) => [a.status, a.body])).toEqual([]);
      // The doomed node took part before it died (the load was spread), and gets nothing once it is known down.
      expect(inFlightOnDoomedAtKill).toBeGreaterThanOrEqual(60);
      const exposition = await metrics();
      expect(exposition.value('dmrv_protocol_upstream_up', { upstream: doomed.address })).toBe(0);
      expect(exposition.value('dmrv_protocol_upstream_up', { upstream: survivor.address })).toBe(1);
      expect(exposition.value('dmrv_protocol_upstream_block_height', { upstream: survivor.address })).toBe(
        LATEST,
      );
      expect(
        exposition.value('dmrv_protocol_upstream_failovers_total', { upstream: doomed.address }),
      ).toBeGreaterThanOrEqual(1);
      const ready = await gateway.get('/health/ready');
      expect(ready.status).toBe(200);
    });
  });

  describe('one of two nodes going silent (no reset) with calls in flight on it', () => {
    const DEADLINE_MS = 5_000;
    let silent: LocalChainNode;
    let healthy: LocalChainNode;
    let proxy: FaultProxy;
    let gateway: Gateway;
    let metrics: () => Promise<Exposition>;

    beforeAll(async () => {
      // Answers take a little while, so that calls are in flight on the node when it goes silent.
      silent = await startNode({ delayMs: 20 });
      healthy = await startNode({ delayMs: 20 });
      proxy = await startFaultProxy({ port: silent.port });
      ({ gateway, metrics } = await observedGateway({
        GRPC_UPSTREAM: `${proxy.host}:${proxy.port},${healthy.address}`,
        UPSTREAM_DEADLINE_MS: String(DEADLINE_MS),
        UPSTREAM_HEDGE_MS: '250',
        // Health checks far apart: the calls already sent to the silent node, and those sent before any check
        // notices, are what is under test.
        UPSTREAM_HEALTH_INTERVAL_MS: '600000',
      }));
    });

    afterAll(async () => {
      await gateway.close();
      await proxy.close();
      await Promise.all([silent.stop(), healthy.stop()]);
    });

    it('answers every request 200 from the other node within its own deadline (a 504 would mean it waited it out)', async () => {
      const CLIENTS = 12;
      const REQUESTS_AFTER_STALL = 60;
      const answers: GatewayAnswer[] = [];
      let stalled = false;
      let answeredAfterStall = 0;
      let done = false;
      // Requests sent before the stall and answered after it: the ones already in flight when the node went silent.
      let straddling = 0;
      let resolveEnough: () => void = () => undefined;
      const enough = new Promise<void>((resolve) => (resolveEnough = resolve));

      const client = async (index: number): Promise<void> => {
        for (let i = 0; !done; i += 1) {
          const sentBeforeStall = !stalled;
          const answer = await gateway.get(ROUTES[(index + i) % ROUTES.length]!);
          answers.push(answer);
          if (sentBeforeStall && stalled) straddling += 1;
          if (!stalled && totalCalls(silent) >= 30 && totalCalls(healthy) >= 30) {
            stalled = true;
            proxy.setMode({ kind: 'stale' });
          } else if (stalled && (answeredAfterStall += 1) >= REQUESTS_AFTER_STALL) {
            done = true;
            resolveEnough();
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, index) => client(index));
      await enough;
      await Promise.all(clients);

      expect(stalled).toBe(true);
      expect(straddling).toBeGreaterThanOrEqual(1);
      expect(answers.filter((answer) => answer.status !== 200).map((a) => [a.status, a.body])).toEqual([]);
      const exposition = await metrics();
      expect(
        exposition.value('dmrv_protocol_upstream_hedges_total', { upstream: `${proxy.host}:${proxy.port}` }),
      ).toBeGreaterThanOrEqual(1);
    });
  });

  describe('a request pinned with x-cosmos-block-height', () => {
    let pruned: LocalChainNode;
    let lagging: LocalChainNode;
    let archive: LocalChainNode;
    let gateway: Gateway;

    beforeAll(async () => {
      pruned = await startNode({ earliestHeight: LATEST - 1_000 });
      lagging = await startNode({ blockHeight: LATEST - 500 });
      archive = await startNode();
      gateway = await startGateway({
        GRPC_UPSTREAM: [pruned.address, lagging.address, archive.address].join(','),
      });
    });

    afterAll(async () => {
      await gateway.close();
      await Promise.all([pruned.stop(), lagging.stop(), archive.stop()]);
    });

    it('goes to a node that holds that height: an old one past the pruned node, a new one past the lagging node', async () => {
      const asked = (node: LocalChainNode): number => node.calls.get('ixo.token.v1beta1.Query/Params') ?? 0;
      const askedPerNode = (): number[] => [pruned, lagging, archive].map(asked);
      for (const height of [LATEST - 5_000, LATEST - 100]) {
        const before = askedPerNode();
        // A different height each time: an answer at a height is kept, and the node must be asked.
        for (let i = 0; i < 4; i += 1) {
          const pinned = String(height - i);
          const answer = await gateway.get('/ixo/token/params', { 'x-cosmos-block-height': pinned });
          expect([answer.status, answer.headers['x-cosmos-block-height']]).toEqual([200, pinned]);
        }
        const [toPruned, toLagging] = askedPerNode().map((count, index) => count - before[index]!);
        // A node that said it lacks the height is not asked for it again.
        if (height === LATEST - 5_000) expect(toPruned).toBeLessThanOrEqual(1);
        else expect(toLagging).toBeLessThanOrEqual(1);
      }
    });

    it('answers the node error when no node holds the height', async () => {
      const answer = await gateway.get('/ixo/token/params', { 'x-cosmos-block-height': String(LATEST + 10) });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        code: 3,
        message: 'cannot query with height in the future; please provide a valid height',
        details: [],
      });
    });
  });
});
