import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ReplicatedPostgres,
  runConcurrently,
  startFaultProxy,
  startReplicatedPostgres,
  withPgClient,
} from '@dmrv/testing';
import { createClient, revokeClient } from '../src/cli/clients';
import { ChangeListener } from '../src/database/change-listener';
import { basicAuth, HOUSEHOLDS, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, get, startApp } from './registry-test-kit';

function execute(url: string, sql: string, params: unknown[] = []): Promise<unknown> {
  return withPgClient(url, (client) => client.query(sql, params));
}

const METRICS_TOKEN = 'registry-replicas-metrics-01';

// Read replicas against a real streaming standby: a primary and a hot standby of it (pg_basebackup -R) started by
// this test on free loopback ports. Pausing the standby's replay makes a change visible on the primary only, which
// shows where each read went; stopping the standby (a crash, mid-load) shows the fallback.
describe('registry-api on a primary and a streaming read replica', () => {
  let cluster: ReplicatedPostgres;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;

  const onPrimary = (sql: string, params: unknown[] = []) =>
    execute(cluster.primary.url('registry'), sql, params);

  async function status(url: string, headers = auth): Promise<number> {
    return (await get(app, url, headers)).statusCode;
  }

  beforeAll(async () => {
    cluster = await startReplicatedPostgres();
    await execute(cluster.primary.url(), 'CREATE DATABASE registry');
    fixture = await loadFixture(cluster.primary.url('registry'));
    await cluster.replicaCaughtUp();
    app = await startApp({
      DATABASE_URL: cluster.primary.url('registry'),
      DATABASE_REPLICA_URLS: cluster.replica.url('registry'),
      DATABASE_QUERY_TIMEOUT_MS: '2000',
      // What is shown here is where a read goes; a record answer the cache will keep is read from the primary
      // (`readFresh`, record-answer-cache.spec.ts), so record reads reach the replica only with that cache off.
      RECORD_CACHE_MAX_ENTRIES: '0',
      METRICS_TOKEN,
    });
    auth = { authorization: basicAuth(fixture.client) };
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await fixture?.close();
    await cluster?.close();
  }, 60_000);

  it('reads records from the replica: a row the replica has not replayed yet is not found', async () => {
    expect(app.get(ChangeListener).state).toBe('live');
    await cluster.pauseReplay();
    await onPrimary(
      "INSERT INTO devices (id, household_id, project_id, status, last_active) VALUES ('device-new', $1, $2, 'active', now())",
      [HOUSEHOLDS[0]!.id, HOUSEHOLDS[0]!.project],
    );
    expect(await status('/v1/devices/status?device_id=device-new')).toBe(404);
    await cluster.resumeReplay();
    await cluster.replicaCaughtUp();
    expect(await status('/v1/devices/status?device_id=device-new')).toBe(200);
  });

  it('reads what a notification invalidated from the primary, so a lagging replica is never cached', async () => {
    await cluster.pauseReplay();
    // Authentication: a new client works at once, and its revocation holds, though the replica knows of neither.
    const late = await createClient(fixture.dataSource, 'created while the replica lags');
    const lateAuth = { authorization: basicAuth(late) };
    expect(await status('/v1/households/stats', lateAuth)).toBe(200);
    await revokeClient(fixture.dataSource, late.clientId);
    await changesApplied(app);
    expect(await status('/v1/households/stats', lateAuth)).toBe(401);
    // Aggregates: a project added on the primary is answered (and cached) from the primary after its notification.
    expect(await status('/v1/households/stats?project_id=project-new')).toBe(404);
    await onPrimary(
      "INSERT INTO projects (id, name, country, ncv_tj_per_t, fnrb, ef_co2_t_per_tj, ef_non_co2_t_per_tj) VALUES ('project-new', 'New', 'Zambia', 0.0156, 0.8, 112, 9.46)",
    );
    await changesApplied(app);
    const stats = await get(app, '/v1/households/stats?project_id=project-new', auth);
    expect({ status: stats.statusCode, body: stats.json() }).toEqual({
      status: 200,
      body: { total_households: 0, density: { low: 0, medium: 0, high: 0 } },
    });
    // Records still come from the lagging replica.
    await onPrimary("UPDATE devices SET status = 'faulty' WHERE id = 'device-new'");
    expect((await get(app, '/v1/devices/status?device_id=device-new', auth)).json()).toMatchObject({
      status: 'active',
    });
    await cluster.resumeReplay();
    await cluster.replicaCaughtUp();
    expect((await get(app, '/v1/devices/status?device_id=device-new', auth)).json()).toMatchObject({
      status: 'faulty',
    });
  });

  it('reports the replica in readiness and its pool in the metrics while it answers', async () => {
    expect(await status('/v1/devices/status')).toBe(200);
    const metrics = await get(app, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(metrics.body).toMatch(/^dmrv_db_pool_connections\{pool="replica-1",state="total"[^}]*\} [1-9]/m);
    expect(metrics.body).toMatch(/^dmrv_db_pool_connections\{pool="primary",state="total"[^}]*\} [1-9]/m);
    const ready = await get(app, '/health/ready');
    expect({ status: ready.statusCode, checks: ready.json<{ checks: unknown }>().checks }).toEqual({
      status: 200,
      checks: {
        database: { status: 'up', latencyMs: expect.any(Number) },
        'database-replica-1': { status: 'up', latencyMs: expect.any(Number) },
        'database-reads': { status: 'up', latencyMs: expect.any(Number) },
      },
    });
    expect(metrics.body).toMatch(/^dmrv_registry_database_up\{database="primary"[^}]*\} 1$/m);
    expect(metrics.body).toMatch(/^dmrv_registry_database_up\{database="replica-1"[^}]*\} 1$/m);
  });

  it('fails no request when the network to the replica goes silent: reads move to the primary after the query timeout', async () => {
    const proxy = await startFaultProxy({ port: cluster.replica.port });
    const silent = await startApp({
      DATABASE_URL: cluster.primary.url('registry'),
      DATABASE_REPLICA_URLS: `postgres://postgres@127.0.0.1:${proxy.port}/registry`,
      DATABASE_QUERY_TIMEOUT_MS: '1000',
      DATABASE_CONNECT_TIMEOUT_MS: '1000',
      RECORD_CACHE_MAX_ENTRIES: '0',
    });
    try {
      const answers = async () =>
        runConcurrently(20, 4, async () => (await get(silent, '/v1/devices/status', auth)).statusCode);
      expect(await answers()).toEqual(new Array(20).fill(200));
      expect(proxy.acceptedConnections).toBeGreaterThan(0);
      proxy.setMode({ kind: 'stale' });
      expect(await answers()).toEqual(new Array(20).fill(200));
      const ready = await get(silent, '/health/ready');
      expect({ status: ready.statusCode, body: ready.json() }).toMatchObject({
        status: 200,
        body: {
          status: 'ok',
          checks: { database: { status: 'up' }, 'database-replica-1': { status: 'down' } },
        },
      });
    } finally {
      await silent.close();
      await proxy.close();
    }
  });

  it('fails no request when the replica crashes mid-load, then reads from the primary and reports it down', async () => {
    const urls = [
      '/v1/devices/status',
      '/v1/credits/retired/list?limit=5',
      '/v1/claims/fuel-purchase/list?limit=20',
      `/v1/fuel-usage?household_id=${HOUSEHOLDS[1]!.id}`,
      '/v1/claims/household-onboarding',
    ];
    const total = 300;
    let crashed: Promise<void> | undefined;
    const answers = await runConcurrently(total, 8, (index) => {
      // A third of the way in, with requests in flight on the replica's connections.
      if (index === total / 3) crashed = cluster.replica.stop('immediate');
      return status(urls[index % urls.length]!);
    });
    await crashed;
    expect(answers.filter((code) => code !== 200)).toEqual([]);

    // The primary answers alone now: the row changed below is visible at once.
    await onPrimary("UPDATE devices SET status = 'decommissioned' WHERE id = 'device-new'");
    expect((await get(app, '/v1/devices/status?device_id=device-new', auth)).json()).toMatchObject({
      status: 'decommissioned',
    });
    const ready = await get(app, '/health/ready');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({
      status: 'ok',
      checks: { database: { status: 'up' }, 'database-replica-1': { status: 'down' } },
    });
  }, 60_000);

  it('reads from the replica again once it is back', async () => {
    await cluster.replica.start();
    await cluster.replicaCaughtUp();
    // Readiness checks the replica and puts it back at once (the background re-check would within 10 s).
    const ready = await get(app, '/health/ready');
    expect(ready.json()).toMatchObject({ checks: { 'database-replica-1': { status: 'up' } } });
    await cluster.pauseReplay();
    await onPrimary(
      "INSERT INTO devices (id, household_id, project_id, status, last_active) VALUES ('device-after', $1, $2, 'active', now())",
      [HOUSEHOLDS[0]!.id, HOUSEHOLDS[0]!.project],
    );
    expect(await status('/v1/devices/status?device_id=device-after')).toBe(404);
    await cluster.resumeReplay();
  });

  it('keeps answering reads from the replica while the primary is down, and says so in readiness and metrics', async () => {
    await cluster.replicaCaughtUp();
    await cluster.primary.stop('immediate');
    try {
      const urls = [
        '/v1/devices/status',
        '/v1/credits/retired/list?limit=5',
        '/v1/claims/household-onboarding',
        `/v1/fuel-usage?household_id=${HOUSEHOLDS[1]!.id}`,
      ];
      const answers = await runConcurrently(80, 4, async (index) => {
        const response = await get(app, urls[index % urls.length]!, auth);
        return response.statusCode === 200 ? 200 : `${response.statusCode} ${response.body}`;
      });
      expect(answers.filter((answer) => answer !== 200)).toEqual([]);
      const ready = await get(app, '/health/ready');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({
        status: 'ok',
        checks: {
          database: { status: 'down' },
          'database-replica-1': { status: 'up' },
          'database-reads': { status: 'up' },
        },
      });
      const metrics = await get(app, '/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
      expect(metrics.body).toMatch(/^dmrv_registry_database_up\{database="primary"[^}]*\} 0$/m);
      expect(metrics.body).toMatch(/^dmrv_registry_database_up\{database="replica-1"[^}]*\} 1$/m);
    } finally {
      await cluster.primary.start();
    }
    expect((await get(app, '/v1/devices/status', auth)).statusCode).toBe(200);
  }, 120_000);
});
