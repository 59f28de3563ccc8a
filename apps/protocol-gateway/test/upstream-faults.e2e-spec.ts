import { FaultMode, FaultProxy, startFaultProxy } from '@dmrv/testing';
import { ReflectionMonitor } from '../src/upstream/reflection-monitor';
import { UpstreamClient } from '../src/upstream/upstream-client';
import { Gateway, GatewayAnswer, LocalChainNode, startGateway, startNode } from './harness';

const DEADLINE_MS = 500;
// Failure bounds only, never performance assertions: an answer later than the deadline plus this is a hang, and a
// gateway not answering 200 again this long after the network healed has not recovered (the README's bound is
// one deadline for a silent connection, ~6 s of reconnect backoff for a reset one).
const HANG_GRACE_MS = 5_000;
const RECOVERY_FAILURE_MS = 30_000;

const REFLECTION_METHOD = '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo';
const UNAVAILABLE = { code: 14, message: 'the upstream node is unavailable', details: [] };
const DEADLINE = {
  code: 4,
  message: `the upstream node did not answer within ${DEADLINE_MS} ms`,
  details: [],
};

jest.setTimeout(4 * RECOVERY_FAILURE_MS);

describe('a chain node behind a network that resets, goes silent or slows down (real gRPC through a fault proxy)', () => {
  let node: LocalChainNode;
  let proxy: FaultProxy;
  let gateway: Gateway;
  let requestNumber = 0;

  /** One request that must be answered, whatever the network does, within the deadline plus a grace. */
  async function answered(path: string): Promise<GatewayAnswer & { requestId: string }> {
    requestNumber += 1;
    const requestId = `fault-${requestNumber}`;
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${path} was not answered within ${DEADLINE_MS + HANG_GRACE_MS} ms`)),
        DEADLINE_MS + HANG_GRACE_MS,
      );
    });
    try {
      const answer = await Promise.race([gateway.get(path, { 'x-request-id': requestId }), hang]);
      return { ...answer, requestId };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Polls until the gateway answers 200 again; fails only past a generous bound. */
  async function recovered(): Promise<void> {
    const giveUpAt = Date.now() + RECOVERY_FAILURE_MS;
    const seen: number[] = [];
    for (;;) {
      const { status } = await answered('/ixo/token/params');
      if (status === 200) return;
      seen.push(status);
      if (Date.now() > giveUpAt)
        throw new Error(
          `no 200 within ${RECOVERY_FAILURE_MS} ms of the network healing; answers: ${seen.join(',')}`,
        );
      // Paces the poll while the client backs off its reconnects (a reset connection fails at once).
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    node = await startNode();
    proxy = await startFaultProxy({ port: node.port });
    gateway = await startGateway({
      GRPC_UPSTREAM: `${proxy.host}:${proxy.port}`,
      UPSTREAM_DEADLINE_MS: String(DEADLINE_MS),
    });
  });

  afterAll(async () => {
    await gateway.close();
    await proxy.close();
    await node.stop();
  });

  beforeEach(async () => {
    proxy.setMode({ kind: 'pass' });
    await recovered();
  });

  const cases: Array<[string, number, FaultMode, typeof UNAVAILABLE]> = [
    ['reset', 503, { kind: 'reset' }, UNAVAILABLE],
    ['stale', 504, { kind: 'stale' }, DEADLINE],
    ['delay past the deadline', 504, { kind: 'delay', ms: DEADLINE_MS * 4 }, DEADLINE],
  ];

  it.each(cases)(
    '%s: every request answers %i in the error shape with its request id, then 200 again once the network heals',
    async (_label, status, mode, body) => {
      proxy.setMode(mode);
      for (const path of [
        '/ixo/token/params',
        '/ixo/entity/params',
        '/ixo/claims/claims?pagination.limit=2',
      ]) {
        const answer = await answered(path);
        expect({ status: answer.status, body: answer.body }).toEqual({ status, body });
        expect(answer.headers['x-request-id']).toBe(answer.requestId);
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      }
      proxy.setMode({ kind: 'pass' });
      await recovered();
      expect((await answered('/ixo/entity/params')).status).toBe(200);
    },
  );

  it('recovers while a call is still pending on the dead connection (the replacement gets a connection of its own)', async () => {
    proxy.setMode({ kind: 'stale' });
    const identity = (bytes: Buffer): Buffer => bytes;
    const pending = gateway.app
      .get(UpstreamClient)
      .bidiStream(REFLECTION_METHOD, identity, identity, 10 * RECOVERY_FAILURE_MS);
    pending.on('error', () => undefined);
    try {
      expect((await answered('/ixo/token/params')).status).toBe(504);
      proxy.setMode({ kind: 'pass' });
      await recovered();
    } finally {
      pending.cancel();
    }
  });

  it('readiness reports the silent upstream down within its probe deadline, and up again once it answers', async () => {
    proxy.setMode({ kind: 'stale' });
    let timer: NodeJS.Timeout | undefined;
    const health = await Promise.race([
      gateway.get('/health'),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('/health hung')), 2_000 + HANG_GRACE_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(health.status).toBe(503);
    expect(health.body.checks.upstream).toMatchObject({
      status: 'down',
      error: `${proxy.host}:${proxy.port}: DEADLINE_EXCEEDED`,
    });
    proxy.setMode({ kind: 'pass' });
    await recovered();
    expect((await gateway.get('/health')).status).toBe(200);
  });

  it('the reflection refresh gives up within its deadline on a silent node, keeps the last answer, and learns again after', async () => {
    const reflection = gateway.app.get(ReflectionMonitor);
    expect((await reflection.refresh()).kind).toBe('known');
    proxy.setMode({ kind: 'stale' });
    const during = await reflection.refresh();
    expect(during.kind).toBe('known');
    proxy.setMode({ kind: 'pass' });
    await recovered();
    const after = await reflection.refresh();
    expect(after.kind).toBe('known');
    expect(after.kind === 'known' && during.kind === 'known' && after.checkedAt > during.checkedAt).toBe(
      true,
    );
  });
});
