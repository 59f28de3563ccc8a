import { MetricsModule } from '@dmrv/metrics';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createTestDatabase,
  Exposition,
  mismatchesWithDeploymentDoc,
  scrape,
  TestDatabase,
} from '@dmrv/testing';
import { loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, get, startApp, stopRegistryStack } from './registry-test-kit';

const METRICS_TOKEN = 'registry-metrics-token-0001';

// Every family the registry exports, scraped through the separate metrics port of an app booted by bootstrap() on a
// real PostgreSQL; each test reads the counters before and after the thing they count.
describe('registry-api metrics', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let metricsUrl: string;
  let bearer: Record<string, string>;

  const metrics = (): Promise<Exposition> => scrape(metricsUrl);

  async function moved(
    name: string,
    labels: Record<string, string>,
    act: () => Promise<unknown>,
  ): Promise<number> {
    const before = (await metrics()).value(name, labels);
    await act();
    return (await metrics()).value(name, labels) - before;
  }

  beforeAll(async () => {
    database = await createTestDatabase('registry_metrics');
    fixture = await loadFixture(database.url);
    app = await startApp({
      DATABASE_URL: database.url,
      METRICS_PORT: '0',
      METRICS_TOKEN,
      AUTH_FAILURES_PER_MINUTE: '2',
      RATE_LIMIT_PER_MINUTE: '20',
    });
    metricsUrl = `http://127.0.0.1:${app.get(MetricsModule).listenerPort}/metrics`;
    bearer = { authorization: `Bearer ${fixture.client.bearerKey}` };
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('counts requests by route template, method and status (the query string is not part of the label)', async () => {
    const labels = { route: '/v1/households/stats', method: 'GET', status: '200' };
    const count = await moved('dmrv_http_request_duration_seconds_count', labels, async () => {
      expect((await get(app, '/v1/households/stats', bearer)).statusCode).toBe(200);
      expect((await get(app, '/v1/households/stats?region=East%20Region', bearer)).statusCode).toBe(200);
    });
    expect(count).toBe(2);
    expect(
      (await metrics()).find('dmrv_http_request_duration_seconds_count').map((s) => s.labels.route),
    ).not.toContain('/v1/households/stats?region=East%20Region');
  });

  it('counts authentications by outcome: success, missing, rejected, throttled', async () => {
    const auth = 'dmrv_registry_auth_total';
    expect(await moved(auth, { outcome: 'success' }, () => get(app, '/v1/devices/status', bearer))).toBe(1);
    expect(await moved(auth, { outcome: 'missing' }, () => get(app, '/v1/devices/status'))).toBe(1);
    const wrong = { authorization: `Bearer ${fixture.client.clientId}.not-the-secret` };
    const from = (remoteAddress: string) =>
      app.inject({ method: 'GET', url: '/v1/devices/status', headers: wrong, remoteAddress });
    expect(await moved(auth, { outcome: 'rejected' }, () => from('198.51.100.7'))).toBe(1);
    // AUTH_FAILURES_PER_MINUTE=2: the second failure reaches the limit, the third attempt is refused before checking.
    await from('198.51.100.8');
    await from('198.51.100.8');
    const throttled = await moved(auth, { outcome: 'throttled' }, async () => {
      expect((await from('198.51.100.8')).statusCode).toBe(429);
    });
    expect(throttled).toBe(1);
  });

  it('counts aggregate cache misses and hits per aggregate', async () => {
    const query = '/v1/households/stove-stacking?fuel_type=LPG';
    const labels = (result: string) => ({
      cache: 'aggregates',
      aggregate: 'households/stove-stacking',
      result,
    });
    const before = await metrics();
    await get(app, query, bearer);
    await get(app, query, bearer);
    await get(app, query, bearer);
    const after = await metrics();
    const delta = (result: string) =>
      after.value('dmrv_registry_cache_requests_total', labels(result)) -
      before.value('dmrv_registry_cache_requests_total', labels(result));
    expect([delta('miss'), delta('hit')]).toEqual([1, 2]);
  });

  it('counts API client lookups from memory (hit) and from the database (miss)', async () => {
    // Any change to api_clients empties the cache: the next lookup of this client reads the database.
    await fixture.dataSource.query("UPDATE api_clients SET name = name || '.' WHERE id = $1", [
      fixture.client.clientId,
    ]);
    await changesApplied(app);
    const family = 'dmrv_registry_cache_requests_total';
    const before = await metrics();
    await get(app, '/v1/credits/issued', bearer);
    await get(app, '/v1/credits/issued', bearer);
    const after = await metrics();
    const moved = (result: string) =>
      after.value(family, { cache: 'api_clients', result }) -
      before.value(family, { cache: 'api_clients', result });
    expect([moved('miss'), moved('hit')]).toEqual([1, 1]);
    expect(
      after.find(family, { cache: 'api_clients' }).every((sample) => sample.labels.aggregate === undefined),
    ).toBe(true);
  });

  it('reports the pool (total, idle, waiting) and the change listener state', async () => {
    const exposed = await metrics();
    expect(
      exposed.value('dmrv_db_pool_connections', { pool: 'primary', state: 'total' }),
    ).toBeGreaterThanOrEqual(1);
    expect(exposed.find('dmrv_db_pool_connections', { pool: 'primary', state: 'idle' })).toHaveLength(1);
    expect(exposed.find('dmrv_db_pool_waiting_requests', { pool: 'primary' })).toHaveLength(1);
    expect(exposed.find('dmrv_registry_change_listener_state').map((s) => [s.labels.state, s.value])).toEqual(
      [
        ['idle', 0],
        ['starting', 0],
        ['live', 1],
        ['down', 0],
        ['unsupported', 0],
        ['stopped', 0],
      ],
    );
  });

  it('reports the process: event-loop lag, heap, GC', async () => {
    const exposed = await metrics();
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_resident_memory_bytes',
    ]) {
      expect(exposed.find(name, { service: 'registry-api' })).not.toEqual([]);
    }
    expect(exposed.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
  });

  it('serves /metrics on the main port to the token only, outside the rate limit and the auth metrics', async () => {
    const before = await metrics();
    for (let i = 0; i < 25; i += 1) {
      const scraped = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        remoteAddress: '203.0.113.50',
      });
      expect(scraped.statusCode).toBe(200);
    }
    const refused = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.50' });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 401,
      body: { message: 'A valid metrics token is required' },
    });
    // RATE_LIMIT_PER_MINUTE=20 per address on the public routes: the scrapes from this address used none of it.
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1) {
      statuses.push(
        (await app.inject({ method: 'GET', url: '/v1/hello', remoteAddress: '203.0.113.50' })).statusCode,
      );
    }
    expect(statuses).toEqual([...Array<number>(20).fill(200), 429]);
    const after = await metrics();
    expect(after.value('dmrv_registry_auth_total')).toBe(before.value('dmrv_registry_auth_total'));
    expect(after.find('dmrv_http_request_duration_seconds_count', { route: '/metrics' })).toEqual([]);
  });

  it('answers the orchestrator probes: /health/live without dependencies, /health/ready as /health', async () => {
    const live = await get(app, '/health/live');
    expect(live.statusCode).toBe(200);
    expect(live.json()).toMatchObject({ status: 'ok', service: 'registry-api' });
    const ready = await get(app, '/health/ready');
    const health = await get(app, '/health');
    expect([ready.statusCode, ready.headers['cache-control']]).toEqual([200, 'no-store']);
    expect(ready.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'up' } } });
    expect(Object.keys(ready.json<object>())).toEqual(Object.keys(health.json<object>()));
  });

  it('exports every dmrv_ family docs/deployment.md lists for registry-api, with its type and labels', async () => {
    expect(mismatchesWithDeploymentDoc(await metrics(), 'registry-api')).toEqual([]);
  });
});
