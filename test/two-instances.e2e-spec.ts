import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AddressInfo } from 'node:net';
import {
  createTestDatabase,
  httpOnce,
  HttpAnswer,
  RoundRobinProxy,
  runConcurrently,
  startRoundRobinProxy,
  TestDatabase,
} from '@dmrv/testing';
import { createClient, revokeClient } from '../apps/registry-api/src/cli/clients';
import { refreshRollups } from '../apps/registry-api/src/database/rollups';
import { AggregateAnswerCache } from '../apps/registry-api/src/registry/aggregate-cache';
import {
  basicAuth,
  HOUSEHOLDS,
  loadFixture,
  RegistryFixture,
} from '../apps/registry-api/test/fixtures/registry-fixture';
import { changesApplied, startApp as startRegistry } from '../apps/registry-api/test/registry-test-kit';
import {
  Backing,
  createBacking,
  SERVICE_CODE,
  startApp as startUssd,
} from '../apps/ussd-gateway/test/ussd-test-kit';
import { startGateway, startNode, LocalChainNode } from '../apps/protocol-gateway/test/harness';

// Two instances of each service behind a round-robin TCP proxy (what a Kubernetes Service does with two pods), over
// real HTTP with one connection per request, so consecutive requests alternate between the instances. Bounded: a
// few hundred requests per service, ten at a time.

async function listening(app: NestFastifyApplication): Promise<number> {
  await app.listen(0, '127.0.0.1');
  return (app.getHttpServer().address() as AddressInfo).port;
}

/** Names take letters only: 12 → "BC". */
function lettersOf(index: number): string {
  return String.fromCharCode(...[...String(index)].map((digit) => 65 + Number(digit)));
}

function statusCounts(answers: readonly HttpAnswer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('two registry-api instances behind a round-robin proxy', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  const apps: NestFastifyApplication[] = [];
  let proxy: RoundRobinProxy;
  let auth: Record<string, string>;

  const get = (path: string, headers = auth) => httpOnce(proxy.port, { path, headers });
  const bothApplied = () => Promise.all(apps.map((app) => changesApplied(app)));

  beforeAll(async () => {
    database = await createTestDatabase('two_registries');
    fixture = await loadFixture(database.url);
    for (let i = 0; i < 2; i += 1) apps.push(await startRegistry({ DATABASE_URL: database.url }));
    proxy = await startRoundRobinProxy(await Promise.all(apps.map(listening)));
    auth = { authorization: basicAuth(fixture.client) };
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    for (const app of apps) await app.close();
    await fixture?.close();
    await database?.drop();
  });

  it('answers concurrent load without an error, spread over both instances', async () => {
    const paths = [
      '/v1/households/stats',
      '/v1/households/stove-stacking?region=East%20Region',
      '/v1/devices/status',
      '/v1/claims/fuel-purchase/list?limit=10',
      `/v1/fuel-usage?household_id=${HOUSEHOLDS[0]!.id}`,
      '/v1/credits/retired',
    ];
    const before = proxy.connections();
    const answers = await runConcurrently(300, 10, (index) => get(paths[index % paths.length]!));
    expect(statusCounts(answers)).toEqual({ 200: 300 });
    expect(proxy.connections().map((count, index) => count - before[index]!)).toEqual([150, 150]);
  }, 60_000);

  it('drops a cached aggregate on both instances when the rollups are refreshed', async () => {
    const stats = async () =>
      JSON.parse((await get('/v1/households/stats?project_id=project-b')).body) as {
        total_households: number;
      };
    const before = [await stats(), await stats()];
    expect(before[0]).toEqual(before[1]);
    for (const app of apps) expect(app.get(AggregateAnswerCache, { strict: false }).size).toBeGreaterThan(0);

    await fixture.dataSource.query(
      "INSERT INTO households (id, project_id, region, density, onboarding_date) VALUES ('household-two', 'project-b', 'North Region', 'low', '2024-05-01')",
    );
    await refreshRollups((sql, params) => fixture.dataSource.query(sql, params));
    await bothApplied();

    const after = [await stats(), await stats()];
    expect(after.map((answer) => answer.total_households)).toEqual([
      before[0]!.total_households + 1,
      before[0]!.total_households + 1,
    ]);
  });

  it('refuses a revoked client on both instances once the revocation is reported', async () => {
    const client = await createClient(fixture.dataSource, 'two instances');
    const headers = { authorization: basicAuth(client) };
    const onBoth = async () => [
      (await get('/v1/devices/status', headers)).status,
      (await get('/v1/devices/status', headers)).status,
    ];
    // Consecutive requests alternate: each instance has read the client once and keeps it in memory.
    expect(await onBoth()).toEqual([200, 200]);
    await revokeClient(fixture.dataSource, client.clientId);
    await bothApplied();
    expect(await onBoth()).toEqual([401, 401]);
  });
});

describe('two ussd-gateway instances behind a round-robin proxy', () => {
  const LIMIT = 20;
  let backing: Backing;
  const apps: NestFastifyApplication[] = [];
  let proxy: RoundRobinProxy;

  const hop = (body: Record<string, string>, clientAddress: string) =>
    httpOnce(proxy.port, {
      method: 'POST',
      path: '/api/ussd',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': clientAddress },
      body: JSON.stringify({ serviceCode: SERVICE_CODE, ...body }),
    });

  /** Creates an account through the menus, one hop per input; consecutive hops go to alternate instances. */
  async function createAccount(index: number): Promise<string[]> {
    const session = {
      sessionId: `two-instances-${process.pid}-${index}`,
      phoneNumber: `+2547100${String(index).padStart(5, '0')}`,
    };
    const inputs: string[] = [];
    const replies: string[] = [];
    for (const input of [null, '2', '2', `Caller ${lettersOf(index)}`, '00', '47213', '47213']) {
      if (input !== null) inputs.push(input);
      const reply = await hop({ ...session, text: inputs.join('*') }, `198.51.100.${index}`);
      replies.push(`${reply.status} ${reply.body}`);
    }
    return replies;
  }

  beforeAll(async () => {
    backing = await createBacking('two-ussd');
    for (let i = 0; i < 2; i += 1) {
      const { app } = await startUssd(
        backing.env({ TRUST_PROXY_ENABLED: 'true', RATE_LIMIT_PER_IP: String(LIMIT) }),
      );
      apps.push(app);
    }
    proxy = await startRoundRobinProxy(await Promise.all(apps.map(listening)));
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    for (const app of apps) await app.close();
    await backing?.cleanup();
  });

  it('carries every session across both instances under concurrent load, without an error', async () => {
    const before = proxy.connections();
    const sessions = await runConcurrently(24, 8, createAccount);
    for (const replies of sessions) {
      expect(replies.slice(0, -1).every((reply) => reply.startsWith('200 CON '))).toBe(true);
      expect(replies.at(-1)).toMatch(/^200 END Account created\. Your Customer ID is C[0-9A-F]{8}\./);
    }
    const customerIds = new Set(sessions.map((replies) => /C[0-9A-F]{8}/.exec(replies.at(-1)!)![0]));
    expect(customerIds.size).toBe(24);
    expect(proxy.connections().map((count, index) => count - before[index]!)).toEqual([84, 84]);
  }, 60_000);

  it('continues a session on the other instance: each hop of one session alternates', async () => {
    const before = proxy.connections();
    const replies = await createAccount(99);
    expect(replies.at(-1)).toMatch(/^200 END Account created\./);
    // Seven hops, strictly alternating: four on one instance, three on the other.
    expect(
      proxy
        .connections()
        .map((count, index) => count - before[index]!)
        .sort(),
    ).toEqual([3, 4]);
  });

  it('counts the per-address limit across both instances', async () => {
    const dial = (index: number) =>
      hop(
        { sessionId: `limit-${process.pid}-${index}`, phoneNumber: '+254710099999', text: '' },
        '203.0.113.50',
      );
    const within = await runConcurrently(LIMIT, 1, dial);
    expect(statusCounts(within)).toEqual({ 200: LIMIT });
    // Half of those went to each instance; a per-instance count would allow twice as many.
    const refused = await runConcurrently(2, 1, (index) => dial(LIMIT + index));
    expect(statusCounts(refused)).toEqual({ 429: 2 });
  });
});

describe('two protocol-gateway instances behind a round-robin proxy', () => {
  let node: LocalChainNode;
  const gateways: Array<Awaited<ReturnType<typeof startGateway>>> = [];
  let proxy: RoundRobinProxy;

  beforeAll(async () => {
    node = await startNode();
    for (let i = 0; i < 2; i += 1) gateways.push(await startGateway({ GRPC_UPSTREAM: node.address }));
    proxy = await startRoundRobinProxy(await Promise.all(gateways.map((gateway) => listening(gateway.app))));
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    for (const gateway of gateways) await gateway.close();
    await node?.stop();
  });

  it('answers concurrent load without an error, spread over both instances', async () => {
    const paths = [
      '/ixo/entity/params',
      '/ixo/claims/params',
      '/ixo/claims/collections',
      '/ixo/claims/claims?pagination.limit=5',
    ];
    const answers = await runConcurrently(200, 10, (index) =>
      httpOnce(proxy.port, { path: paths[index % paths.length]! }),
    );
    expect(statusCounts(answers)).toEqual({ 200: 200 });
    expect(proxy.connections()).toEqual([100, 100]);
  }, 60_000);
});
