import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { createTestDatabase, TEST_PG_ADMIN_URL, TestDatabase } from '@dmrv/testing';
import { createClient, revokeClient } from '../src/cli/clients';
import { ChangeListener } from '../src/database/change-listener';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, get, startApp } from './registry-test-kit';

// Production runs the service as a role that may only SELECT (migrations, seed and refresh run as the owner).
describe('registry-api under a read-only role', () => {
  const role = `dmrv_test_ro_${randomBytes(4).toString('hex')}`;
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let admin: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('registry_readonly');
    fixture = await loadFixture(database.url);
    admin = await new DataSource({ type: 'postgres', url: TEST_PG_ADMIN_URL }).initialize();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await fixture.dataSource.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await fixture.dataSource.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    const url = new URL(database.url);
    url.username = role;
    app = await startApp({ DATABASE_URL: url.toString() });
    // A fixture, a role and a service started against real PostgreSQL: jest's 5 s was hit on a loaded machine.
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await fixture?.close();
    await database?.drop();
    await admin?.query(`DROP ROLE IF EXISTS ${role}`);
    await admin?.destroy();
  });

  it('serves aggregates, records, pages and authentication with SELECT alone', async () => {
    const authorization = basicAuth(fixture.client);
    for (const url of [
      '/v1/households/stats',
      '/v1/households/stove-stacking',
      '/v1/fuel-usage?region=East%20Region',
      '/v1/credits/issued?project_id=project-a&time_period=2024-Q1',
      '/v1/claims/emission-reduction?project_id=project-a&period=2024',
      '/v1/credits/retired',
      '/v1/claims/fuel-purchase/list?limit=5',
    ]) {
      expect({ url, status: (await get(app, url, { authorization })).statusCode }).toEqual({
        url,
        status: 200,
      });
    }
    expect((await get(app, '/health')).statusCode).toBe(200);
  });

  it('listens for changes with SELECT alone (LISTEN needs no privilege) and sees a revocation by the owner', async () => {
    expect(app.get(ChangeListener).state).toBe('live');
    const client = await createClient(fixture.dataSource, 'revoked by the owner');
    await changesApplied(app);
    const authorization = `Bearer ${client.bearerKey}`;
    expect((await get(app, '/v1/households/stats', { authorization })).statusCode).toBe(200);
    expect(await revokeClient(fixture.dataSource, client.clientId)).toBe(true);
    await changesApplied(app);
    const refused = await get(app, '/v1/households/stats', { authorization });
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 401,
      body: { message: 'Invalid or revoked credentials' },
    });
  });

  it('really is read-only', async () => {
    const url = new URL(database.url);
    url.username = role;
    const reader = await new DataSource({ type: 'postgres', url: url.toString() }).initialize();
    try {
      await expect(reader.query("UPDATE api_clients SET revoked_at = now() WHERE id = 'x'")).rejects.toThrow(
        /permission denied/,
      );
    } finally {
      await reader.destroy();
    }
  });
});
