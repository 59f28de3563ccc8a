import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { TEST_PG_ADMIN_URL, testRunId } from './environment';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export const TEST_DATABASE_PREFIX = 'dmrv_test_';

/** One connection to `url` for the length of `work`, closed whatever happens. */
export async function withPgClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function withAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  return withPgClient(TEST_PG_ADMIN_URL, work);
}

function databaseUrl(name: string): string {
  const url = new URL(TEST_PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh, empty database for one test file; `drop()` removes it even if connections are still open. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const safeLabel = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  const name = `${TEST_DATABASE_PREFIX}${testRunId()}_${safeLabel}_${randomBytes(3).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

/** Drops every database a run created; used by the global teardown as a safety net. */
export async function dropRunDatabases(runId: string): Promise<string[]> {
  return withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${TEST_DATABASE_PREFIX}${runId}\\_%`],
    );
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    return rows.map((row) => row.datname);
  });
}

export async function assertPostgresReachable(): Promise<void> {
  try {
    await withAdmin((client) => client.query('SELECT 1'));
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${new URL(TEST_PG_ADMIN_URL).host} (${(error as Error).message}). ` +
        'Start it (see README "Running the tests") or set TEST_PG_ADMIN_URL.',
    );
  }
}
