import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ConfigValidationError } from '@dmrv/config';
import {
  createTestRedisNamespace,
  REPO_ROOT,
  startLocalPostgres,
  TEST_REDIS_URL,
  TestRedisNamespace,
  withPgClient,
} from '@dmrv/testing';
import { createClient } from '../apps/registry-api/src/cli/clients';
import { createDataSource } from '../apps/registry-api/src/database/data-source';
import { get, startApp as startRegistry } from '../apps/registry-api/test/registry-test-kit';
import { bootstrap as bootstrapUssd } from '../apps/ussd-gateway/src/bootstrap';
import { createAccount, Handset, startApp as startUssd } from '../apps/ussd-gateway/test/ussd-test-kit';

// The procedure of docs/operations.md, end to end, on PostgreSQL servers of the test's own: an installation set up
// with deploy/postgres/10-databases.sh, data in both databases, `pg_dump -Fc` of each, the server lost, a new one set up
// the same way, `pg_restore` as each database's owner role, and the services started on the restored databases with
// the escrowed PIN key. What the registry answered before, it answers byte for byte after; an account created before
// the dump logs in with its PIN; the wrong PIN key stops the gateway at start-up, saying so.

const run = promisify(execFile);
const PASSWORDS = {
  REGISTRY_OWNER_PASSWORD: 'registry-owner-pw',
  REGISTRY_READER_PASSWORD: 'registry-reader-pw',
  USSD_DATABASE_PASSWORD: 'ussd-gateway-pw',
};
/** The installation's PIN key: escrowed, and given again to the restored gateway. */
const PIN_KEY = randomBytes(32).toString('hex');
const PIN = '58214';

type Server = Awaited<ReturnType<typeof startLocalPostgres>>;

const roleUrl = (server: Server, role: string, database: string): string =>
  `postgres://${role}@127.0.0.1:${server.port}/${database}`;
const pg = (server: Server) => ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres'];

async function install(server: Server): Promise<void> {
  await run('sh', [join(REPO_ROOT, 'deploy', 'postgres', '10-databases.sh')], {
    env: {
      PATH: process.env.PATH,
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      POSTGRES_USER: 'postgres',
      ...PASSWORDS,
    },
  });
}

function migrate(app: string, url: string): Promise<unknown> {
  return run(process.execPath, [join(REPO_ROOT, 'apps', app, 'dist', 'cli.js'), 'migrate'], {
    env: { PATH: process.env.PATH, DATABASE_URL: url, PIN_ENCRYPTION_KEY: PIN_KEY },
  });
}

function ussdEnv(server: Server, redis: TestRedisNamespace, key = PIN_KEY): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: roleUrl(server, 'ussd_gateway', 'dmrv_ussd'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.keyPrefix,
    PIN_ENCRYPTION_KEY: key,
  };
}

/** Registry pages: every endpoint without parameters, some with, and the first two pages of each collection. */
async function pages(app: NestFastifyApplication, authorization: string): Promise<Map<string, string>> {
  const answers = new Map<string, string>();
  const ask = async (url: string) => {
    const response = await get(app, url, { authorization });
    answers.set(url, `${response.statusCode} ${response.body}`);
    return response;
  };
  for (const url of [
    '/v1/households/stats',
    '/v1/households/stove-stacking',
    '/v1/devices/status',
    '/v1/fuel-usage',
    '/v1/fuel-usage?from=2024-01-01&to=2024-06-30',
    '/v1/credits/cancelled',
    '/v1/credits/retired',
    '/v1/claims/emission-reduction',
    '/v1/claims/household-onboarding',
  ])
    await ask(url);
  for (const collection of [
    '/v1/devices/status/list',
    '/v1/credits/retired/list',
    '/v1/claims/fuel-purchase/list',
  ]) {
    const first = await ask(`${collection}?limit=5`);
    const cursor = first.json<{ page_info?: { next_cursor: string | null } }>().page_info?.next_cursor;
    if (cursor) await ask(`${collection}?limit=5&cursor=${encodeURIComponent(cursor)}`);
  }
  return answers;
}

jest.setTimeout(300_000);

describe('backup and restore (docs/operations.md): pg_dump -Fc, a new server, pg_restore, the services on it', () => {
  let scratch: string;
  let redis: TestRedisNamespace;
  let restored: Server;
  let before: Map<string, string>;
  let authorization: string;
  let customerId: string;
  let phoneNumber: string;
  let dumps: { registry: string; ussd: string };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-backup-'));
    dumps = { registry: join(scratch, 'dmrv_registry.dump'), ussd: join(scratch, 'dmrv_ussd.dump') };
    redis = createTestRedisNamespace('backup');

    // The installation that is lost: both databases with data written as the services write it.
    const lost = await startLocalPostgres();
    try {
      await install(lost);
      const owner = roleUrl(lost, 'registry_owner', 'dmrv_registry');
      await migrate('registry-api', owner);
      await run(
        process.execPath,
        [
          join(REPO_ROOT, 'apps', 'registry-api', 'dist', 'cli.js'),
          'seed',
          '--households',
          '120',
          '--seed',
          '7',
        ],
        { env: { PATH: process.env.PATH, DATABASE_URL: owner } },
      );
      const dataSource = await createDataSource(owner, 1).initialize();
      authorization = `Bearer ${(await createClient(dataSource, 'backup test')).bearerKey}`;
      await dataSource.destroy();
      const registry = await startRegistry({
        DATABASE_URL: roleUrl(lost, 'registry_reader', 'dmrv_registry'),
      });
      before = await pages(registry, authorization);
      await registry.close();

      await migrate('ussd-gateway', roleUrl(lost, 'ussd_gateway', 'dmrv_ussd'));
      const { app: gateway } = await startUssd(ussdEnv(lost, redis));
      ({
        customerId,
        handset: { phoneNumber },
      } = await createAccount(gateway, { name: 'Amina Njeri', pin: PIN }));
      await gateway.close();

      // The backup: each database in the custom format, as the admin (the roles' objects, their grants, the data).
      await run('pg_dump', [...pg(lost), '-Fc', '-d', 'dmrv_registry', '-f', dumps.registry]);
      await run('pg_dump', [...pg(lost), '-Fc', '-d', 'dmrv_ussd', '-f', dumps.ussd]);
    } finally {
      await lost.close();
    }

    // A new server, set up as the first was, then the dumps restored as each database's owner.
    restored = await startLocalPostgres();
    await install(restored);
    for (const [database, role, dump] of [
      ['dmrv_registry', 'registry_owner', dumps.registry],
      ['dmrv_ussd', 'ussd_gateway', dumps.ussd],
    ] as const)
      await run('pg_restore', [
        ...pg(restored),
        '--exit-on-error',
        '--single-transaction',
        '--no-owner',
        '--no-privileges',
        `--role=${role}`,
        '-d',
        database,
        dump,
      ]);
    await install(restored);
  });

  afterAll(async () => {
    await restored?.close();
    await redis?.cleanup();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('dumped both databases', () => {
    for (const dump of Object.values(dumps)) expect(statSync(dump).size).toBeGreaterThan(1000);
    expect(before.size).toBeGreaterThanOrEqual(12);
    expect([...before.values()].every((answer) => answer.startsWith('200 '))).toBe(true);
  });

  it('serves the registry from the restored database byte for byte as before, to the API client created before', async () => {
    const migrated = (await migrate(
      'registry-api',
      roleUrl(restored, 'registry_owner', 'dmrv_registry'),
    )) as {
      stdout: string;
      stderr: string;
    };
    expect(`${migrated.stdout}${migrated.stderr}`.trim()).toBe('schema is up to date');
    const registry = await startRegistry({
      DATABASE_URL: roleUrl(restored, 'registry_reader', 'dmrv_registry'),
    });
    try {
      const after = await pages(registry, authorization);
      expect([...after.keys()]).toEqual([...before.keys()]);
      for (const [url, answer] of before) expect({ url, answer: after.get(url) }).toEqual({ url, answer });
    } finally {
      await registry.close();
    }
    // Still SELECT-only for the server's role, and its own database only.
    await expect(
      withPgClient(roleUrl(restored, 'registry_reader', 'dmrv_registry'), (client) =>
        client.query('DELETE FROM api_clients'),
      ),
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('logs in an account created before the dump with its PIN, on the escrowed key', async () => {
    const { app: gateway } = await startUssd(ussdEnv(restored, redis));
    try {
      const handset = new Handset(gateway, phoneNumber);
      await handset.dial();
      await handset.sendAll('2', '1', customerId);
      expect(await handset.send(PIN)).toMatch(/^CON Welcome, Amina\n/);
    } finally {
      await gateway.close();
    }
  });

  it('refuses to start on the restored database with another key, naming PIN_ENCRYPTION_KEY and the backup’s key', async () => {
    const other = randomBytes(32).toString('hex');
    const { app } = await bootstrapUssd(ussdEnv(restored, redis, other));
    const failure = await app.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    await app.close();
    expect(failure).toBeInstanceOf(ConfigValidationError);
    expect((failure as Error).message).toBe(
      'ussd-gateway: invalid configuration\n' +
        '  - PIN_ENCRYPTION_KEY: does not open the PINs in this database, sealed under key "k1": the key configured ' +
        'under that id is not the one they were written with. Give the key this database was written with (a ' +
        'database restored from a backup needs the escrowed key of the installation it came from: docs/operations.md)',
    );
    expect((failure as Error).message).not.toContain(other);
    expect((failure as Error).message).not.toContain(PIN_KEY);
  });
});
