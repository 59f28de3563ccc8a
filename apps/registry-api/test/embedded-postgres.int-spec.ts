import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ApiClientCache } from '../src/auth/api-client-cache';
import { createClient, revokeClient } from '../src/cli/clients';
import { ChangeListener } from '../src/database/change-listener';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { seedRegistry } from '../src/database/seed';
import { get, startApp } from './registry-test-kit';

// `npm start` runs the registry on PGlite when DATABASE_URL is absent: the migrations, the seed (hashtextextended,
// generate_series, data-modifying CTEs, materialized views refreshed CONCURRENTLY) and the queries must work there.
describe('registry-api on the embedded PostgreSQL (PGlite)', () => {
  let embedded: EmbeddedPostgres;
  let app: NestFastifyApplication;
  let authorization: string;

  beforeAll(async () => {
    embedded = await spawnEmbeddedPostgres();
    expect(await runMigrations(embedded.url)).toEqual([
      'RegistrySchema1732240000000',
      'TouchUpdatedAt1732240100000',
      'ChangeNotifications1732240200000',
      'ReadingNaturalKey1732240300000',
      'RecordChangeNotifications1732240400000',
    ]);
    const dataSource = await createDataSource(embedded.url, 1).initialize();
    try {
      await seedRegistry((sql, params) => dataSource.query(sql, params), {
        households: 300,
        seed: 5,
        batchSize: 100,
      });
      authorization = `Bearer ${(await createClient(dataSource, 'embedded')).bearerKey}`;
    } finally {
      await dataSource.destroy();
    }
    app = await startApp({ DATABASE_URL: embedded.url, DATABASE_POOL_SIZE: '1' });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await embedded?.stop();
  });

  it('finds that PGlite does not deliver notifications across connections, and reads API clients per request', async () => {
    expect(app.get(ChangeListener).state).toBe('unsupported');
    expect(app.get(ApiClientCache).isTrusted).toBe(false);
    const dataSource = await createDataSource(embedded.url, 1).initialize();
    try {
      const client = await createClient(dataSource, 'revoked at once');
      expect(
        (await get(app, '/v1/households/stats', { authorization: `Bearer ${client.bearerKey}` })).statusCode,
      ).toBe(200);
      expect(await revokeClient(dataSource, client.clientId)).toBe(true);
      const refused = await get(app, '/v1/households/stats', { authorization: `Bearer ${client.bearerKey}` });
      expect({ status: refused.statusCode, body: refused.json() }).toEqual({
        status: 401,
        body: { message: 'Invalid or revoked credentials' },
      });
    } finally {
      await dataSource.destroy();
    }
  });

  it('is migrated once: a second run applies nothing', async () => {
    expect(await runMigrations(embedded.url)).toEqual([]);
  });

  it('answers aggregates, records and pages from the seeded data', async () => {
    const stats = (await get(app, '/v1/households/stats', { authorization })).json<{
      total_households: number;
    }>();
    expect(stats.total_households).toBe(300);
    const stacking = await get(app, '/v1/households/stove-stacking', { authorization });
    expect(stacking.json()).toEqual({
      fuel_type: expect.any(String) as string,
      percentage: expect.any(Number) as number,
    });
    const claim = await get(app, '/v1/claims/emission-reduction?project_id=project-001&period=2024', {
      authorization,
    });
    expect(claim.statusCode).toBe(200);
    const issued = await get(app, '/v1/credits/issued?project_id=project-001&time_period=2024', {
      authorization,
    });
    expect(issued.statusCode).toBe(200);
    const page = (await get(app, '/v1/devices/status/list?limit=100', { authorization })).json<{
      data: unknown[];
      total_count: number;
      page_info: { next_cursor: string };
    }>();
    expect(page.total_count).toBe(300);
    const next = await get(app, `/v1/devices/status/list?limit=100&cursor=${page.page_info.next_cursor}`, {
      authorization,
    });
    expect(next.json<{ data: unknown[] }>().data).toHaveLength(100);
    expect((await get(app, '/health')).statusCode).toBe(200);
  });
});
