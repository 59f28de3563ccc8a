import { once } from 'node:events';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TestDatabase } from '@dmrv/testing';
import { ChangeListener, LISTENER_APPLICATION_NAME } from '../src/database/change-listener';
import { CollectionTotals, LatestRecordAnswers } from '../src/registry/record-answer-cache';
import { RegistryFixture } from './fixtures/registry-fixture';
import {
  changesApplied,
  get,
  getOk,
  repositorySpies,
  TestResponse,
  startRegistryStack,
  stopRegistryStack,
} from './registry-test-kit';

interface Page {
  data: unknown[];
  total_count: number;
}

// The most recent record of a selection and the total of a collection's first page are kept in memory until their
// table changes. Real PostgreSQL: every way a record table changes by SQL reaches the service through the table's
// trigger, and with the listener gone nothing is served from memory.
describe('registry-api record answers and collection totals from memory', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;
  let household: { household_id: string; project_id: string };
  const spy = repositorySpies(() => app);

  const sql = (text: string, params?: unknown[]) => fixture.dataSource.query(text, params);

  const ok = (url: string): Promise<TestResponse> => getOk(app, url, auth);

  const total = async (url: string): Promise<number> => (await ok(url)).json<Page>().total_count;

  const insertPurchase = (id: string, day: string): Promise<unknown> =>
    sql(
      "INSERT INTO fuel_purchases (id, household_id, project_id, fuel_type, amount_kg, purchase_date) VALUES ($1, $2, $3, 'LPG', 6, $4)",
      [id, household.household_id, household.project_id, day],
    );

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_reccache'));
    [household] = (await sql('SELECT household_id, project_id FROM fuel_purchases ORDER BY id LIMIT 1')) as [
      { household_id: string; project_id: string },
    ];
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('reads the most recent record once and serves the same body and entity tag afterwards', async () => {
    expect(app.get(ChangeListener).state).toBe('live');
    const reads = spy('latestRecord');
    const first = await ok('/v1/claims/fuel-purchase');
    const second = await ok('/v1/claims/fuel-purchase');
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('counts a first page once per filters; later pages carry the total in their cursor', async () => {
    const counts = spy('recordCount');
    const first = (await ok('/v1/claims/fuel-purchase/list?limit=2')).json<
      Page & { page_info: { next_cursor: string } }
    >();
    await ok('/v1/claims/fuel-purchase/list?limit=3');
    await ok(`/v1/claims/fuel-purchase/list?limit=2&cursor=${first.page_info.next_cursor}`);
    expect(counts).toHaveBeenCalledTimes(1);
    await ok(`/v1/claims/fuel-purchase/list?household_id=${household.household_id}`);
    expect(counts).toHaveBeenCalledTimes(2);
  });

  it('sees an insert, an update and a delete made in SQL once their notifications are applied', async () => {
    const list = '/v1/claims/fuel-purchase/list';
    const mine = `${list}?household_id=${household.household_id}`;
    const before = { all: await total(list), mine: await total(mine) };
    const latestDevice = (await ok('/v1/devices/status')).body;

    await insertPurchase('purchase-late', '2030-01-01');
    await changesApplied(app);
    expect((await ok('/v1/claims/fuel-purchase')).json()).toEqual({
      fuel_id: 'purchase-late',
      amount: 6,
      purchase_date: '2030-01-01',
    });
    expect({ all: await total(list), mine: await total(mine) }).toEqual({
      all: before.all + 1,
      mine: before.mine + 1,
    });
    // Another table's answers stay: only fuel_purchases changed.
    const deviceReads = spy('latestRecord');
    expect((await ok('/v1/devices/status')).body).toBe(latestDevice);
    expect(deviceReads).not.toHaveBeenCalled();

    await sql("UPDATE fuel_purchases SET amount_kg = 7.5 WHERE id = 'purchase-late'");
    await changesApplied(app);
    expect((await ok('/v1/claims/fuel-purchase')).json()).toEqual({
      fuel_id: 'purchase-late',
      amount: 7.5,
      purchase_date: '2030-01-01',
    });

    await sql("DELETE FROM fuel_purchases WHERE id = 'purchase-late'");
    await changesApplied(app);
    expect((await ok('/v1/claims/fuel-purchase')).json<{ fuel_id: string }>().fuel_id).not.toBe(
      'purchase-late',
    );
    expect({ all: await total(list), mine: await total(mine) }).toEqual(before);
  });

  it('drops a cached 404 when the record it asked for is written', async () => {
    const url = '/v1/claims/fuel-purchase?fuel_id=purchase-later';
    const missing = await get(app, url, auth);
    expect({ status: missing.statusCode, body: missing.json() }).toEqual({
      status: 404,
      body: { message: 'No fuel purchase matches the request' },
    });
    await insertPurchase('purchase-later', '2024-02-02');
    await changesApplied(app);
    expect((await ok(url)).json()).toEqual({
      fuel_id: 'purchase-later',
      amount: 6,
      purchase_date: '2024-02-02',
    });
    await sql("DELETE FROM fuel_purchases WHERE id = 'purchase-later'");
    await changesApplied(app);
  });

  it('serves nothing from memory once the listener is lost: a change made meanwhile is read from the database', async () => {
    const list = '/v1/claims/fuel-purchase/list';
    const before = await total(list);
    await ok('/v1/claims/fuel-purchase');
    const latest = app.get(LatestRecordAnswers);
    const totals = app.get(CollectionTotals);
    expect({ latest: latest.size > 0, totals: totals.size > 0 }).toEqual({ latest: true, totals: true });
    const listener = app.get(ChangeListener);
    const sizes: Record<string, number> = {};
    listener.once('down', () => (sizes.down = latest.size + totals.size));
    const down = once(listener, 'down');
    const live = once(listener, 'live');
    await sql(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_APPLICATION_NAME],
    );
    await down;
    expect(sizes.down).toBe(0);
    // Whether the listener is back yet or not, the answers must be the database's: down serves nothing from memory,
    // and coming back empties the caches again, since this insert's notification went to no one.
    await insertPurchase('purchase-unheard', '2031-01-01');
    expect((await ok('/v1/claims/fuel-purchase')).json<{ fuel_id: string }>().fuel_id).toBe(
      'purchase-unheard',
    );
    expect(await total(list)).toBe(before + 1);
    await live;
    expect((await ok('/v1/claims/fuel-purchase')).json<{ fuel_id: string }>().fuel_id).toBe(
      'purchase-unheard',
    );
    expect(await total(list)).toBe(before + 1);
  });
});
