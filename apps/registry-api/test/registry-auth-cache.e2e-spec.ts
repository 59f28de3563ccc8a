import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { ApiClientCache } from '../src/auth/api-client-cache';
import { ApiClientsRepository } from '../src/auth/api-clients.repository';
import { generateClientCredentials, hashSecret } from '../src/auth/credentials';
import { createClient, CreatedClient, revokeClient } from '../src/cli/clients';
import { ChangeListener, LISTENER_APPLICATION_NAME } from '../src/database/change-listener';
import { loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, get, startApp } from './registry-test-kit';

const CLI = join(__dirname, '..', 'dist', 'cli.js');
const REFUSED = { message: 'Invalid or revoked credentials' };

function runCli(args: string[], databaseUrl: string): Promise<number | null> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
}

// Authentication reads API clients from memory while the change listener is live; every change to api_clients
// reaches the service as a notification. Real PostgreSQL throughout: the triggers, LISTEN and the reconnection are
// what is under test.
describe('registry-api authentication from memory (LISTEN/NOTIFY on api_clients)', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let listener: ChangeListener;
  let cache: ApiClientCache;
  let lookups: jest.SpyInstance;

  const bearer = (client: CreatedClient) => ({ authorization: `Bearer ${client.bearerKey}` });

  async function expectRefused(client: CreatedClient): Promise<void> {
    const response = await get(app, '/v1/households/stats', bearer(client));
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status: 401, body: REFUSED });
    expect(response.headers['www-authenticate']).toBe(
      'Basic realm="registry", charset="UTF-8", Bearer realm="registry"',
    );
  }

  async function expectServed(client: CreatedClient): Promise<void> {
    expect((await get(app, '/v1/households/stats', bearer(client))).statusCode).toBe(200);
  }

  /** A new client, its insert notification already applied (else it would refuse to cache the first lookup). */
  async function newClient(name: string): Promise<CreatedClient> {
    const client = await createClient(fixture.dataSource, name);
    await changesApplied(app);
    return client;
  }

  async function listenerBackends(): Promise<Array<{ pid: number; query: string }>> {
    return fixture.dataSource.query(
      'SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
      [LISTENER_APPLICATION_NAME],
    );
  }

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the workspace first (pnpm run build)`);
    database = await createTestDatabase('registry_authcache');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url });
    listener = app.get(ChangeListener);
    cache = app.get(ApiClientCache, { strict: false });
    lookups = jest.spyOn(app.get(ApiClientsRepository, { strict: false }), 'findActive');
  });

  beforeEach(() => {
    lookups.mockClear();
  });

  afterAll(async () => {
    lookups?.mockRestore();
    await app?.close();
    await fixture?.close();
    await database?.drop();
  });

  it('listens on a dedicated connection, outside the request pool', async () => {
    expect(listener.state).toBe('live');
    expect(cache.isTrusted).toBe(true);
    const backends = await listenerBackends();
    expect(backends).toHaveLength(1);
    expect(backends[0]!.query).toMatch(/^(LISTEN|SELECT 1)/);
  });

  it('reads a client from the database once, then answers from memory', async () => {
    const client = await newClient('memory');
    for (let i = 0; i < 3; i += 1) await expectServed(client);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it.each([
    [
      'revokeClient (what cli.js clients revoke runs)',
      (client: CreatedClient) => revokeClient(fixture.dataSource, client.clientId),
    ],
    [
      'a plain SQL UPDATE',
      (client: CreatedClient) =>
        fixture.dataSource.query('UPDATE api_clients SET revoked_at = now() WHERE id = $1', [
          client.clientId,
        ]),
    ],
    [
      'a DELETE of the row',
      (client: CreatedClient) =>
        fixture.dataSource.query('DELETE FROM api_clients WHERE id = $1', [client.clientId]),
    ],
    [
      'an UPDATE in a transaction that commits after other work',
      (client: CreatedClient) =>
        fixture.dataSource.transaction(async (manager) => {
          await manager.query('UPDATE api_clients SET revoked_at = now() WHERE id = $1', [client.clientId]);
          await manager.query('SELECT count(*) FROM households');
        }),
    ],
  ])('refuses a cached client on the first request after %s commits', async (_how, revoke) => {
    const client = await newClient('to be revoked');
    await expectServed(client);
    expect(cache.get(client.clientId)).toBeDefined();
    await revoke(client);
    await changesApplied(app);
    expect(cache.get(client.clientId)).toBeUndefined();
    await expectRefused(client);
  });

  it('refuses a client revoked by the cli.js process', async () => {
    const client = await newClient('revoked by the CLI');
    await expectServed(client);
    expect(await runCli(['clients', 'revoke', client.clientId], database.url)).toBe(0);
    await changesApplied(app);
    await expectRefused(client);
  });

  it('keeps a client whose revocation rolled back', async () => {
    const client = await newClient('kept');
    await expectServed(client);
    await fixture.dataSource
      .transaction(async (manager) => {
        await manager.query('UPDATE api_clients SET revoked_at = now() WHERE id = $1', [client.clientId]);
        throw new Error('changed my mind');
      })
      .catch(() => undefined);
    await changesApplied(app);
    expect(cache.get(client.clientId)).toBeDefined();
    await expectServed(client);
  });

  it('lets a client created after a failed attempt in at once (misses are not cached)', async () => {
    const credentials = generateClientCredentials();
    const client: CreatedClient = {
      ...credentials,
      bearerKey: `${credentials.clientId}.${credentials.secret}`,
    };
    await expectRefused(client);
    await fixture.dataSource.query(
      "INSERT INTO api_clients (id, name, secret_hash) VALUES ($1, 'late', $2)",
      [credentials.clientId, await hashSecret(credentials.secret)],
    );
    // No barrier here: the insert's notification is not needed for a client the cache never held.
    await expectServed(client);
  });

  it('checks a rotated secret against the new hash', async () => {
    const client = await newClient('rotated');
    await expectServed(client);
    const secret = generateClientCredentials().secret;
    await fixture.dataSource.query('UPDATE api_clients SET secret_hash = $2 WHERE id = $1', [
      client.clientId,
      await hashSecret(secret),
    ]);
    await changesApplied(app);
    await expectRefused(client);
    await expectServed({ ...client, secret, bearerKey: `${client.clientId}.${secret}` });
  });

  it('drops the cache when the listener connection is lost, and starts empty again after reconnecting', async () => {
    const client = await newClient('survives the outage');
    await expectServed(client);
    const [before] = await listenerBackends();
    const seenWhenDown: Array<{ trusted: boolean; size: number }> = [];
    const seenWhenLive: Array<{ trusted: boolean; size: number }> = [];
    listener.once('down', () => seenWhenDown.push({ trusted: cache.isTrusted, size: cache.size }));
    listener.once('live', () => seenWhenLive.push({ trusted: cache.isTrusted, size: cache.size }));
    const down = once(listener, 'down');
    const live = once(listener, 'live');

    await fixture.dataSource.query('SELECT pg_terminate_backend($1)', [before!.pid]);
    await down;
    // Listeners run in registration order: the cache's own handler ran before this snapshot.
    expect(seenWhenDown).toEqual([{ trusted: false, size: 0 }]);
    expect(cache.get(client.clientId)).toBeUndefined();

    // Revoked while nobody listens (or just after the listener is back): refused all the same.
    const revoked = await newClient('revoked during the outage');
    await expectServed(revoked);
    expect(await revokeClient(fixture.dataSource, revoked.clientId)).toBe(true);
    await changesApplied(app);
    await expectRefused(revoked);

    await live;
    expect(seenWhenLive).toEqual([{ trusted: true, size: 0 }]);
    const after = await listenerBackends();
    expect(after).toHaveLength(1);
    expect(after[0]!.pid).not.toBe(before!.pid);

    lookups.mockClear();
    await expectServed(client);
    await expectServed(client);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(await revokeClient(fixture.dataSource, client.clientId)).toBe(true);
    await changesApplied(app);
    await expectRefused(client);
  });
});
