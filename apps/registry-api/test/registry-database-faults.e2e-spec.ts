import { once } from 'node:events';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createTestDatabase, FaultMode, FaultProxy, startFaultProxy, TestDatabase } from '@dmrv/testing';
import { createClient, revokeClient } from '../src/cli/clients';
import { ChangeListener } from '../src/database/change-listener';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, startApp, TestResponse } from './registry-test-kit';

// Deadlines below are failure bounds for a loaded machine, never speed claims: with 1 s timeouts a request answers in
// about 2 s at worst, and a hung request would otherwise wait for jest's own timeout.
jest.setTimeout(120_000);

const TIMEOUTS = { DATABASE_QUERY_TIMEOUT_MS: '1000', DATABASE_CONNECT_TIMEOUT_MS: '1000' };
const HANG_BOUND_MS = 15_000;
const RECOVERY_BOUND_MS = 30_000;
const UNAVAILABLE = { message: 'The registry database is unavailable; retry later' };
/**
 * One household's fuel: never cached (it sums raw readings), one query per request. The most recent records are
 * served from memory while the listener looks live, so they would not meet the fault until its heartbeat does.
 */
const RECORD = '/v1/fuel-usage?household_id=household-001';

/** The request's answer, or a failure naming the request if none came within the bound (it hung). */
async function answered(
  app: NestFastifyApplication,
  url: string,
  headers: Record<string, string>,
): Promise<TestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`GET ${url} did not answer within ${HANG_BOUND_MS} ms`)),
      HANG_BOUND_MS,
    );
  });
  try {
    const response = await Promise.race([app.inject({ method: 'GET', url, headers }), hung]);
    return {
      statusCode: response.statusCode,
      headers: response.headers,
      body: response.body,
      json: <T>() => JSON.parse(response.body) as T,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Asks until the answer is a 200; the deadline only turns a service that never recovers into a failure. */
async function recovered(
  app: NestFastifyApplication,
  url: string,
  headers: Record<string, string>,
): Promise<number> {
  const deadline = Date.now() + RECOVERY_BOUND_MS;
  let statuses: number[] = [];
  for (;;) {
    const response = await answered(app, url, headers);
    if (response.statusCode === 200) return statuses.length;
    expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({
      status: 503,
      body: UNAVAILABLE,
    });
    statuses = [...statuses, response.statusCode];
    if (Date.now() > deadline)
      throw new Error(`still ${statuses.length} × 503 ${RECOVERY_BOUND_MS} ms after the network came back`);
  }
}

function proxiedUrl(url: string, proxy: FaultProxy): string {
  const proxied = new URL(url);
  proxied.hostname = proxy.host;
  proxied.port = String(proxy.port);
  return proxied.toString();
}

describe('registry-api when PostgreSQL fails', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let auth: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase('registry_dbfaults');
    fixture = await loadFixture(database.url);
    auth = { authorization: basicAuth(fixture.client) };
  });

  afterAll(async () => {
    await fixture?.close();
    await database?.drop();
  });

  // DATABASE_URL points at the fault proxy; the test's own connection (fixture.dataSource) goes straight to PostgreSQL.
  describe('through a network that resets, goes silent or slows down (fault proxy)', () => {
    let proxy: FaultProxy;
    let app: NestFastifyApplication;
    let listener: ChangeListener;

    beforeAll(async () => {
      proxy = await startFaultProxy({ port: Number(new URL(database.url).port) });
      app = await startApp({
        DATABASE_URL: proxiedUrl(database.url, proxy),
        RATE_LIMIT_PER_MINUTE: '0',
        AGGREGATE_CACHE_TTL_SECONDS: '3600',
        ...TIMEOUTS,
      });
      listener = app.get(ChangeListener);
      expect(listener.state).toBe('live');
    });

    afterAll(async () => {
      await app?.close();
      await proxy?.close();
    });

    afterEach(async () => {
      proxy.setMode({ kind: 'pass' });
      // A listener that died silently still reads as live until its next round trip: make that round trip now.
      await listener.synchronize();
      if (listener.state !== 'live') await once(listener, 'live');
    });

    it.each<[string, FaultMode]>([
      ['reset', { kind: 'reset' }],
      ['stale (acknowledged, never answered)', { kind: 'stale' }],
      ['delay beyond the query timeout', { kind: 'delay', ms: 4000 }],
    ])(
      '%s: every request answers 503 { message } without hanging, and the service recovers once it passes',
      async (_label, mode) => {
        expect((await answered(app, RECORD, auth)).statusCode).toBe(200);
        proxy.setMode(mode);
        for (let i = 0; i < 3; i += 1) {
          const response = await answered(app, RECORD, auth);
          expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({
            status: 503,
            body: UNAVAILABLE,
          });
        }
        expect((await answered(app, '/health', {})).statusCode).toBe(503);
        proxy.setMode({ kind: 'pass' });
        await recovered(app, RECORD, auth);
        expect((await answered(app, '/health', {})).statusCode).toBe(200);
      },
    );

    it('drops every idle connection once one is found silently dead: one failed request, then fresh connections', async () => {
      // Several pooled connections, all idle, all about to die without a reset.
      await Promise.all(Array.from({ length: 5 }, () => answered(app, RECORD, auth)));
      proxy.setMode({ kind: 'stale' });
      proxy.setMode({ kind: 'pass' });
      const first = await answered(app, RECORD, auth);
      expect({ status: first.statusCode, body: first.json<unknown>() }).toEqual({
        status: 503,
        body: UNAVAILABLE,
      });
      expect((await answered(app, RECORD, auth)).statusCode).toBe(200);
    });

    it('notices a listener connection that went silent, stops trusting its caches, and listens again', async () => {
      const victim = await createClient(fixture.dataSource, 'revoked while nobody listened');
      await changesApplied(app);
      const victimAuth = { authorization: `Bearer ${victim.bearerKey}` };
      const claim = '/v1/claims/emission-reduction?project_id=project-a&period=2024';
      expect((await answered(app, RECORD, victimAuth)).statusCode).toBe(200);
      const before = (await answered(app, claim, auth)).json<{ reductions: number }>();

      // Every connection through the proxy dies without a reset; new ones work. The pool finds out on its next
      // query; the listener only through its heartbeat, and meanwhile misses the notifications below.
      proxy.setMode({ kind: 'stale' });
      proxy.setMode({ kind: 'pass' });
      const down = once(listener, 'down');
      expect(await revokeClient(fixture.dataSource, victim.clientId)).toBe(true);
      await fixture.dataSource.query('UPDATE projects SET fnrb = fnrb / 2 WHERE id = $1', ['project-a']);

      await down;
      const live = once(listener, 'live');
      // Not trusted while the listener is away: the row and the rollups are read again.
      await recovered(app, claim, auth);
      expect((await answered(app, claim, auth)).json<{ reductions: number }>().reductions).toBeLessThan(
        before.reductions,
      );
      expect((await answered(app, RECORD, victimAuth)).statusCode).toBe(401);
      await live;
      expect((await answered(app, RECORD, victimAuth)).statusCode).toBe(401);
      await fixture.dataSource.query('UPDATE projects SET fnrb = fnrb * 2 WHERE id = $1', ['project-a']);
      await changesApplied(app);
      expect((await answered(app, claim, auth)).json()).toEqual(before);
    });
  });

  describe('connection refused', () => {
    it('answers 503 { message } at once when nothing listens at the database address any more', async () => {
      const proxy = await startFaultProxy({ port: Number(new URL(database.url).port) });
      const app = await startApp({
        DATABASE_URL: proxiedUrl(database.url, proxy),
        RATE_LIMIT_PER_MINUTE: '0',
        ...TIMEOUTS,
      });
      try {
        expect((await answered(app, RECORD, auth)).statusCode).toBe(200);
        // Closing the proxy closes its connections and its port: every new connection is refused.
        await proxy.close();
        for (let i = 0; i < 3; i += 1) {
          const response = await answered(app, RECORD, auth);
          expect({ status: response.statusCode, body: response.json<unknown>() }).toEqual({
            status: 503,
            body: UNAVAILABLE,
          });
        }
      } finally {
        await app.close();
      }
    });
  });

  describe('the primary unreachable, without read replicas', () => {
    it('says so in dmrv_registry_database_up while the pods are unready (no request reaches them to fail), and recovers', async () => {
      const metricsToken = 'registry-dbfaults-metrics-1';
      const proxy = await startFaultProxy({ port: Number(new URL(database.url).port) });
      const app = await startApp({
        DATABASE_URL: proxiedUrl(database.url, proxy),
        RATE_LIMIT_PER_MINUTE: '0',
        METRICS_TOKEN: metricsToken,
        ...TIMEOUTS,
      });
      const primaryUp = async () => {
        const metrics = await answered(app, '/metrics', { authorization: `Bearer ${metricsToken}` });
        return /^dmrv_registry_database_up\{database="primary"[^}]*\} (\d)$/m.exec(metrics.body)?.[1];
      };
      try {
        expect((await answered(app, '/health/ready', {})).statusCode).toBe(200);
        expect(await primaryUp()).toBe('1');
        proxy.setMode({ kind: 'reset' });
        // The kubelet's readiness probe is the only caller left: the ingress sends nothing to an unready pod.
        expect((await answered(app, '/health/ready', {})).statusCode).toBe(503);
        expect(await primaryUp()).toBe('0');
        proxy.setMode({ kind: 'pass' });
        expect((await answered(app, '/health/ready', {})).statusCode).toBe(200);
        expect(await primaryUp()).toBe('1');
      } finally {
        await app.close();
        await proxy.close();
      }
    });
  });

  describe('pool exhausted and statements overrunning (DATABASE_POOL_SIZE=1, real PostgreSQL)', () => {
    let app: NestFastifyApplication;
    let blocker: Client;

    beforeAll(async () => {
      app = await startApp({
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '1',
        RATE_LIMIT_PER_MINUTE: '0',
        ...TIMEOUTS,
      });
      blocker = new Client({ connectionString: database.url });
      await blocker.connect();
    });

    afterAll(async () => {
      await blocker?.end();
      await app?.close();
    });

    it('answers 503 to the request whose statement waits past statement_timeout and to the one waiting for the pool', async () => {
      expect((await answered(app, RECORD, auth)).statusCode).toBe(200);
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE projects IN ACCESS EXCLUSIVE MODE');
      try {
        const [locked, queued] = await Promise.all([
          answered(app, '/v1/households/stats?project_id=project-a', auth),
          answered(app, '/v1/households/stats?project_id=project-b', auth),
        ]);
        expect([locked, queued].map((r) => ({ status: r.statusCode, body: r.json<unknown>() }))).toEqual([
          { status: 503, body: UNAVAILABLE },
          { status: 503, body: UNAVAILABLE },
        ]);
      } finally {
        await blocker.query('ROLLBACK');
      }
      expect((await answered(app, '/v1/households/stats?project_id=project-a', auth)).statusCode).toBe(200);
    });
  });
});
