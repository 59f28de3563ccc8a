import { once } from 'node:events';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { createClient, revokeClient } from '../src/cli/clients';
import { ChangeListener, LISTENER_APPLICATION_NAME } from '../src/database/change-listener';
import { refreshRollups } from '../src/database/rollups';
import { AggregateAnswerCache } from '../src/registry/aggregate-cache';
import { RegistryRepository } from '../src/registry/registry.repository';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import {
  changesApplied,
  get,
  getOk,
  repositorySpies,
  startApp,
  TestResponse,
  startRegistryStack,
  stopRegistryStack,
} from './registry-test-kit';

interface Stats {
  total_households: number;
  density: { low: number; medium: number; high: number };
}

// Aggregate answers are kept in memory between rollup refreshes. Real PostgreSQL: what is under test is that every
// way the answers can change (a refresh through our code, a change to `projects`) reaches the service, and that
// what may change without a refresh is never kept.
describe('registry-api aggregate answers from memory', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;
  const spy = repositorySpies(() => app);

  const sql = (text: string, params?: unknown[]) => fixture.dataSource.query(text, params);

  const ok = (url: string, headers = auth): Promise<TestResponse> => getOk(app, url, headers);

  async function fails(
    url: string,
    status: number,
    body: { message: string },
    headers = auth,
  ): Promise<void> {
    const response = await get(app, url, headers);
    expect({ url, status: response.statusCode, body: response.json() }).toEqual({ url, status, body });
  }

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_aggcache'));
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('computes an aggregate once and serves the same body and entity tag afterwards, 304 included', async () => {
    expect(app.get(ChangeListener).state).toBe('live');
    const reads = spy('densityCounts');
    const first = await ok('/v1/households/stats?region=East%20Region');
    const second = await ok('/v1/households/stats?region=East%20Region');
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['cache-control']).toBe('private, max-age=30');
    const notModified = await get(app, '/v1/households/stats?region=East%20Region', {
      ...auth,
      'if-none-match': first.headers.etag as string,
    });
    expect({
      status: notModified.statusCode,
      body: notModified.body,
      etag: notModified.headers.etag,
    }).toEqual({ status: 304, body: '', etag: first.headers.etag });
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('keys answers by the normalised query: parameter order does not matter, values do', async () => {
    const reads = spy('densityCounts');
    const a = await ok('/v1/households/stats?project_id=project-a&region=West%20Region');
    const b = await ok('/v1/households/stats?region=West%20Region&project_id=project-a');
    const c = await ok('/v1/households/stats?project_id=project-b');
    expect(b.body).toBe(a.body);
    expect(c.body).not.toBe(a.body);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('drops every answer when the rollups are refreshed through refreshRollups', async () => {
    const before = (await ok('/v1/households/stats')).json<Stats>();
    const etag = (await ok('/v1/households/stats')).headers.etag;
    await sql(
      "INSERT INTO households (id, project_id, region, density, onboarding_date) VALUES ('household-new', 'project-a', 'East Region', 'low', '2024-05-01')",
    );
    // Loaded but not refreshed: the rollup, and so the answer, has not changed yet.
    expect((await ok('/v1/households/stats')).json<Stats>()).toEqual(before);
    await refreshRollups(sql);
    await changesApplied(app);
    const after = await ok('/v1/households/stats');
    expect(after.json<Stats>()).toEqual({
      total_households: before.total_households + 1,
      density: { ...before.density, low: before.density.low + 1 },
    });
    expect(after.headers.etag).not.toBe(etag);
  });

  it('sees a project created between refreshes at once: its cached 404 is dropped', async () => {
    await fails('/v1/households/stats?project_id=project-late', 404, { message: 'No project project-late' });
    const reads = spy('projectExists');
    await fails('/v1/households/stats?project_id=project-late', 404, { message: 'No project project-late' });
    expect(reads).not.toHaveBeenCalled();
    await sql(
      "INSERT INTO projects (id, name, country, ncv_tj_per_t, fnrb, ef_co2_t_per_tj, ef_non_co2_t_per_tj) VALUES ('project-late', 'Late', 'Zambia', 0.0156, 0.8, 112, 9.46)",
    );
    await changesApplied(app);
    expect((await ok('/v1/households/stats?project_id=project-late')).json<Stats>()).toEqual({
      total_households: 0,
      density: { low: 0, medium: 0, high: 0 },
    });
  });

  it("sees a project's corrected methodology parameters at once", async () => {
    const url = '/v1/claims/emission-reduction?project_id=project-a&period=2024';
    const before = (await ok(url)).json<{ reductions: number }>();
    expect(before.reductions).toBeGreaterThan(0);
    await sql(
      "UPDATE projects SET fnrb = 0, ef_co2_t_per_tj = 0, ef_non_co2_t_per_tj = 0 WHERE id = 'project-a'",
    );
    await changesApplied(app);
    expect((await ok(url)).json()).toEqual({ project_id: 'project-a', period: '2024', reductions: 0 });
  });

  it("never keeps one household's fuel usage: its raw readings change without a refresh", async () => {
    const url = '/v1/fuel-usage?household_id=household-001';
    const before = (await ok(url)).json<{ fuel_consumed: number }>();
    await sql(
      "INSERT INTO fuel_consumption (household_id, fuel_type, consumed_on, quantity_kg) VALUES ('household-001', 'Biomass', '2024-06-15', 1.5)",
    );
    expect((await ok(url)).json<{ fuel_consumed: number }>().fuel_consumed).toBe(before.fuel_consumed + 1.5);
  });

  it('keeps the latest stored claim as a record (until its table changes, refresh or not), and no answer that failed validation', async () => {
    const latest = spy('latestRecord');
    const before = (await ok('/v1/claims/emission-reduction')).json<{ reductions: number }>();
    await ok('/v1/claims/emission-reduction');
    expect(latest).toHaveBeenCalledTimes(1);
    await sql(
      'UPDATE emission_reduction_claims SET reductions = reductions + 1 WHERE id = (SELECT id FROM emission_reduction_claims ORDER BY period_end DESC, id DESC LIMIT 1)',
    );
    await changesApplied(app);
    expect((await ok('/v1/claims/emission-reduction')).json<{ reductions: number }>().reductions).toBe(
      before.reductions + 1,
    );
    for (let i = 0; i < 2; i += 1) {
      await fails('/v1/fuel-usage?from=2024-03-01&to=2024-02-01', 400, {
        message: 'from must not be after to',
      });
      await fails('/v1/claims/emission-reduction?period=2024-Q1', 400, {
        message: 'project_id is required when a period is given',
      });
      await fails(
        '/v1/claims/emission-reduction?project_id=project-a&period=2024-Q1&time_period=2024-Q2',
        400,
        {
          message: 'period and time_period disagree: send one of them',
        },
      );
      await fails('/v1/households/stove-stacking/list?cursor=WyJ4IiwieSJd', 400, {
        message: 'cursor is not a cursor of this collection',
      });
    }
  });

  it('still authenticates and rate-limits every request served from memory', async () => {
    await ok('/v1/households/stove-stacking');
    await fails('/v1/households/stove-stacking', 401, { message: 'Authentication required' }, {});
    const client = await createClient(fixture.dataSource, 'revoked from a cached answer');
    await changesApplied(app);
    const bearer = { authorization: `Bearer ${client.bearerKey}` };
    await ok('/v1/households/stove-stacking', bearer);
    expect(await revokeClient(fixture.dataSource, client.clientId)).toBe(true);
    await changesApplied(app);
    await fails('/v1/households/stove-stacking', 401, { message: 'Invalid or revoked credentials' }, bearer);
  });

  it('drops every answer when the listener connection is lost, and again when it is back', async () => {
    const cache = app.get(AggregateAnswerCache, { strict: false });
    await ok('/v1/households/stats');
    expect(cache.size).toBeGreaterThan(0);
    const sizes: Record<string, number> = {};
    const listener = app.get(ChangeListener);
    listener.once('down', () => (sizes.down = cache.size));
    listener.once('live', () => (sizes.live = cache.size));
    const down = once(listener, 'down');
    const live = once(listener, 'live');
    await sql(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_APPLICATION_NAME],
    );
    await down;
    await live;
    expect(sizes).toEqual({ down: 0, live: 0 });
    await ok('/v1/households/stats');
  });
});

describe('registry-api aggregate cache limits', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  const apps: NestFastifyApplication[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('registry_aggcache_off');
    fixture = await loadFixture(database.url);
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    await fixture?.close();
    await database?.drop();
  });

  it('computes every answer with AGGREGATE_CACHE_TTL_SECONDS=0', async () => {
    const app = await startApp({ DATABASE_URL: database.url, AGGREGATE_CACHE_TTL_SECONDS: '0' });
    apps.push(app);
    const reads = jest.spyOn(app.get(RegistryRepository, { strict: false }), 'densityCounts');
    const auth = { authorization: basicAuth(fixture.client) };
    const first = await get(app, '/v1/households/stats', auth);
    const second = await get(app, '/v1/households/stats', auth);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(reads).toHaveBeenCalledTimes(2);
    expect(app.get(AggregateAnswerCache, { strict: false }).size).toBe(0);
  });

  it('counts requests served from memory against the rate limit', async () => {
    const app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '2' });
    apps.push(app);
    const auth = { authorization: basicAuth(fixture.client) };
    const responses = [];
    for (let i = 0; i < 3; i += 1) responses.push(await get(app, '/v1/households/stats', auth));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 429]);
    expect(responses[2]!.json()).toEqual({ message: 'ThrottlerException: Too Many Requests' });
  });

  it('keeps at most AGGREGATE_CACHE_MAX_ENTRIES answers', async () => {
    const app = await startApp({ DATABASE_URL: database.url, AGGREGATE_CACHE_MAX_ENTRIES: '2' });
    apps.push(app);
    const auth = { authorization: basicAuth(fixture.client) };
    for (const region of ['East%20Region', 'West%20Region', 'North%20Region']) {
      expect((await get(app, `/v1/households/stats?region=${region}`, auth)).statusCode).toBe(200);
    }
    expect(app.get(AggregateAnswerCache, { strict: false }).size).toBe(2);
  });
});
