import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Client } from 'pg';
import { deleteKeysWithPrefix } from '@dmrv/testing';
import { Janitor } from './janitor';

export interface ResourceSettings {
  /** Connection used only to create and drop the run's databases. */
  pgAdminUrl: string;
  redisUrl: string;
  /** Prefix of every database the run creates (the test suite passes its own so its teardown sweeps them). */
  databasePrefix: string;
  /** Prefix of every Redis key the run's processes write. */
  redisPrefix: string;
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function checkedName(name: string): string {
  if (!/^[a-z0-9_]{1,63}$/.test(name)) throw new Error(`unusable database name ${name}`);
  return name;
}

export function databaseUrl(settings: ResourceSettings, name: string): string {
  const url = new URL(settings.pgAdminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh database, empty or a copy of `template`, that is dropped (even with open connections) when the run ends
 * or fails.
 */
export async function createDatabase(
  settings: ResourceSettings,
  label: string,
  janitor: Janitor,
  template?: string,
): Promise<string> {
  const name = checkedName(
    `${settings.databasePrefix}${label.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}_${randomBytes(3).toString('hex')}`,
  );
  // FILE_COPY copies the template's files after one checkpoint: seconds for gigabytes, where the default WAL_LOG
  // strategy writes every block through the WAL.
  const from = template ? ` TEMPLATE "${checkedName(template)}" STRATEGY = FILE_COPY` : '';
  await withAdmin(settings.pgAdminUrl, (client) => client.query(`CREATE DATABASE "${name}"${from}`));
  janitor.defer(`drop database ${name}`, () => dropDatabase(settings, name));
  return databaseUrl(settings, name);
}

export async function dropDatabase(settings: ResourceSettings, name: string): Promise<void> {
  await withAdmin(settings.pgAdminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS "${checkedName(name)}" WITH (FORCE)`),
  );
}

export async function listDatabases(settings: ResourceSettings, prefix: string): Promise<string[]> {
  return withAdmin(settings.pgAdminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname`,
      [prefix],
    );
    return rows.map((row) => row.datname);
  });
}

/** Creates a named database that outlives the run (a seed cache); the caller fills it. */
export async function createPersistentDatabase(settings: ResourceSettings, name: string): Promise<string> {
  await withAdmin(settings.pgAdminUrl, (client) => client.query(`CREATE DATABASE "${checkedName(name)}"`));
  return databaseUrl(settings, name);
}

/** The same SCAN + DEL sweep the test suites use: never KEYS, never FLUSHDB on a shared Redis. */
export const deleteRedisKeys = deleteKeysWithPrefix;

/** A key prefix private to one process of this run; its keys are deleted when the run ends. */
export function redisNamespace(settings: ResourceSettings, label: string, janitor: Janitor): string {
  const prefix = `${settings.redisPrefix}${label}:${randomBytes(3).toString('hex')}:`;
  janitor.defer(`delete redis keys ${prefix}*`, () =>
    deleteRedisKeys(settings.redisUrl, prefix).then(() => undefined),
  );
  return prefix;
}

export async function assertReachable(settings: ResourceSettings): Promise<void> {
  try {
    await withAdmin(settings.pgAdminUrl, (client) => client.query('SELECT 1'));
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${new URL(settings.pgAdminUrl).host}: ${(error as Error).message} (set BENCH_PG_ADMIN_URL)`,
    );
  }
  const redis = new Redis(settings.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${new URL(settings.redisUrl).host}: ${(error as Error).message} (set BENCH_REDIS_URL)`,
    );
  } finally {
    redis.disconnect();
  }
}
