import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, startLocalPostgres, withPgClient } from '@dmrv/testing';

// deploy/postgres/10-databases.sh, as compose's PostgreSQL runs it on its first start and as an operator runs it against
// an existing or managed server: on a PostgreSQL server of this test's own, since the roles are cluster-wide and the
// databases have fixed names. The services' own CLIs (dist/) then migrate and load as the owners.

const run = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'deploy', 'postgres', '10-databases.sh');
const PASSWORDS = {
  REGISTRY_OWNER_PASSWORD: 'registry-owner-pw',
  REGISTRY_READER_PASSWORD: 'registry-reader-pw',
  USSD_DATABASE_PASSWORD: 'ussd-gateway-pw',
};
const PIN_ENCRYPTION_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

type Server = Awaited<ReturnType<typeof startLocalPostgres>>;

const urlOf = (server: Server, role: string, database: string): string =>
  `postgres://${role}@127.0.0.1:${server.port}/${database}`;

function roles(server: Server): Promise<{ stdout: string; stderr: string }> {
  return run('sh', [SCRIPT], {
    env: {
      PATH: process.env.PATH,
      PGHOST: '127.0.0.1',
      PGPORT: String(server.port),
      POSTGRES_USER: 'postgres',
      ...PASSWORDS,
    },
  });
}

function cli(app: string, args: string[], url: string): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(REPO_ROOT, 'apps', app, 'dist', 'cli.js'), ...args], {
    env: { PATH: process.env.PATH, DATABASE_URL: url, PIN_ENCRYPTION_KEY },
    timeout: 120_000,
  });
}

/** The SQLSTATE and message a statement fails with as `role`, or `ok`. */
async function attempt(url: string, sql: string): Promise<string> {
  try {
    await withPgClient(url, (client) => client.query(sql));
    return 'ok';
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return `${code}: ${message}`;
  }
}

/** Owner of every table, sequence, view and function in `public`, as `name → owner`. */
async function owners(url: string): Promise<Record<string, string>> {
  return withPgClient(url, async (client) => {
    const { rows } = await client.query<{ name: string; owner: string }>(
      `SELECT c.relname AS name, pg_get_userbyid(c.relowner) AS owner FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'S', 'v', 'm')
       UNION ALL
       SELECT p.proname, pg_get_userbyid(p.proowner) FROM pg_proc p
         JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'`,
    );
    return Object.fromEntries(rows.map(({ name, owner }) => [name, owner]));
  });
}

jest.setTimeout(180_000);

describe('deploy/postgres/10-databases.sh on an empty server', () => {
  let server: Server;
  let exported: string;

  beforeAll(async () => {
    server = await startLocalPostgres();
    exported = mkdtempSync(join(tmpdir(), 'dmrv-roles-export-'));
    await roles(server);
    await cli('registry-api', ['migrate'], urlOf(server, 'registry_owner', 'dmrv_registry'));
    await cli('ussd-gateway', ['migrate'], urlOf(server, 'ussd_gateway', 'dmrv_ussd'));
    // Data files to import: generated in a scratch database of the admin's, exported in the formats import reads.
    await withPgClient(server.url(), (client) => client.query('CREATE DATABASE scratch'));
    await cli('registry-api', ['migrate'], server.url('scratch'));
    await cli('registry-api', ['seed', '--households', '40', '--seed', '3'], server.url('scratch'));
    await cli('registry-api', ['export', exported], server.url('scratch'));
  });

  afterAll(async () => {
    await server?.close();
    if (exported) rmSync(exported, { recursive: true, force: true });
  });

  it('creates three login roles, none a superuser nor able to create databases or roles', async () => {
    const rows = await withPgClient(
      server.url(),
      async (client) =>
        (
          await client.query<{ rolname: string; flags: string }>(
            `SELECT rolname, concat_ws(',', rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin) AS flags
             FROM pg_roles WHERE rolname IN ('registry_owner', 'registry_reader', 'ussd_gateway') ORDER BY rolname`,
          )
        ).rows,
    );
    expect(rows).toEqual([
      { rolname: 'registry_owner', flags: 'f,f,f,f,f,t' },
      { rolname: 'registry_reader', flags: 'f,f,f,f,f,t' },
      { rolname: 'ussd_gateway', flags: 'f,f,f,f,f,t' },
    ]);
    // And the admin is not left a member of them.
    expect(
      await withPgClient(
        server.url(),
        async (client) =>
          (
            await client.query(
              "SELECT count(*)::int AS n FROM pg_auth_members WHERE member = 'postgres'::regrole",
            )
          ).rows,
      ),
    ).toEqual([{ n: 0 }]);
  });

  it('keeps each role to its own database: the USSD role reaches neither the registry nor the server’s programs', async () => {
    expect(await attempt(urlOf(server, 'ussd_gateway', 'dmrv_registry'), 'SELECT 1')).toMatch(
      /^42501: permission denied for database "dmrv_registry"/,
    );
    expect(await attempt(urlOf(server, 'registry_owner', 'dmrv_ussd'), 'SELECT 1')).toMatch(/^42501: /);
    expect(await attempt(urlOf(server, 'registry_reader', 'dmrv_ussd'), 'SELECT 1')).toMatch(/^42501: /);
    expect(
      await attempt(urlOf(server, 'ussd_gateway', 'dmrv_ussd'), "COPY (SELECT 1) TO PROGRAM 'id'"),
    ).toMatch(/^42501: permission denied to COPY to or from an external program|^42501: must be superuser/);
    expect(
      await attempt(urlOf(server, 'ussd_gateway', 'dmrv_ussd'), "SELECT pg_read_file('/etc/passwd')"),
    ).toMatch(/^42501: /);
    expect(await attempt(urlOf(server, 'ussd_gateway', 'dmrv_ussd'), 'CREATE DATABASE other')).toMatch(
      /^42501: /,
    );
  });

  it('lets the USSD role work its own tables', async () => {
    const url = urlOf(server, 'ussd_gateway', 'dmrv_ussd');
    expect(await attempt(url, 'SELECT count(*) FROM ussd_accounts')).toBe('ok');
    expect(Object.values(await owners(url)).every((owner) => owner === 'ussd_gateway')).toBe(true);
  });

  it('loads data files as the registry owner (cli.js import: COPY, staging tables) and serves them SELECT-only', async () => {
    const owner = urlOf(server, 'registry_owner', 'dmrv_registry');
    const imported = await cli('registry-api', ['import', exported, '--quiet'], owner);
    expect(imported.stderr).toBe('');
    const reader = urlOf(server, 'registry_reader', 'dmrv_registry');
    const count = (url: string) =>
      withPgClient(
        url,
        async (client) => (await client.query('SELECT count(*)::int AS n FROM households')).rows[0],
      );
    expect(await count(reader)).toEqual({ n: 40 });
    expect(await count(reader)).toEqual(await count(server.url('scratch')));
    expect(await attempt(reader, 'DELETE FROM households')).toMatch(
      /^42501: permission denied for table households/,
    );
    expect(await attempt(reader, "UPDATE api_clients SET name = 'x'")).toMatch(/^42501: /);
    expect(await attempt(reader, 'CREATE TABLE mine (id int)')).toMatch(
      /^42501: permission denied for schema public/,
    );
    expect(await attempt(reader, 'CREATE TEMP TABLE mine (id int)')).toMatch(/^42501: /);
    expect(Object.values(await owners(owner)).every((role) => role === 'registry_owner')).toBe(true);
  });

  it('runs again without changing anything that works', async () => {
    await roles(server);
    expect(
      await attempt(urlOf(server, 'registry_reader', 'dmrv_registry'), 'SELECT count(*) FROM households'),
    ).toBe('ok');
    const again = await cli('ussd-gateway', ['migrate'], urlOf(server, 'ussd_gateway', 'dmrv_ussd'));
    expect(again.stdout.trim()).toBe('migrations: up to date');
  });
});

describe('deploy/postgres/10-databases.sh on a server an earlier version set up (everything the superuser’s)', () => {
  let server: Server;

  beforeAll(async () => {
    server = await startLocalPostgres();
    // What the previous init script did: both databases and every object owned by the cluster's superuser, which the
    // services connected as.
    await withPgClient(server.url(), async (client) => {
      await client.query('CREATE DATABASE dmrv_registry');
      await client.query('CREATE DATABASE dmrv_ussd');
    });
    await cli('registry-api', ['migrate'], server.url('dmrv_registry'));
    await cli('registry-api', ['seed', '--households', '10', '--seed', '5'], server.url('dmrv_registry'));
    await cli('ussd-gateway', ['migrate'], server.url('dmrv_ussd'));
    await roles(server);
  });

  afterAll(() => server?.close());

  it('hands every object to its database’s owner role, which then migrates and writes as before', async () => {
    for (const [role, database] of [
      ['registry_owner', 'dmrv_registry'],
      ['ussd_gateway', 'dmrv_ussd'],
    ] as const) {
      const url = urlOf(server, role, database);
      const found = await owners(url);
      expect(Object.keys(found).length).toBeGreaterThan(3);
      expect({ database, others: Object.entries(found).filter(([, owner]) => owner !== role) }).toEqual({
        database,
        others: [],
      });
    }
    const migrated = await cli('ussd-gateway', ['migrate'], urlOf(server, 'ussd_gateway', 'dmrv_ussd'));
    expect(migrated.stdout.trim()).toBe('migrations: up to date');
    expect(
      await attempt(
        urlOf(server, 'registry_owner', 'dmrv_registry'),
        'UPDATE households SET id = id WHERE false',
      ),
    ).toBe('ok');
    expect(
      await attempt(urlOf(server, 'registry_reader', 'dmrv_registry'), 'SELECT count(*) FROM households'),
    ).toBe('ok');
    expect(await attempt(urlOf(server, 'ussd_gateway', 'dmrv_registry'), 'SELECT 1')).toMatch(/^42501: /);
  });
});
