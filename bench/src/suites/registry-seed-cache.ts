import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Janitor } from '../harness/janitor';
import { repoPath } from '../harness/paths';
import { runToCompletion } from '../harness/processes';
import {
  createDatabase,
  createPersistentDatabase,
  dropDatabase,
  listDatabases,
  ResourceSettings,
} from '../harness/resources';
import { baseEnv, SERVICE_BUILDS } from './services';

export const SEED = 42;

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.js') ? [path] : [];
    });
}

/** The built files that generate the data: the seeder and the rollups it refreshes. */
const SEEDER_FILE = /^\/(seed|rollups)[^/]*\.js$/;

/**
 * What the seeded data depends on: the registry's built seeder and rollups, the size and the seed. A changed
 * seeder gives another name, so stale data is never used; a new migration or a change to the service's own data
 * access does not, because every copy is migrated before use, as a production database would be.
 */
export function seedFingerprint(
  households: number,
  databaseDist = repoPath('apps', 'registry-api', 'dist', 'database'),
): string {
  const hash = createHash('sha256').update(`${households}:${SEED}\n`);
  for (const file of filesUnder(databaseDist)) {
    const relative = file.slice(databaseDist.length);
    if (SEEDER_FILE.test(relative)) hash.update(relative).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 10);
}

export function cacheName(settings: ResourceSettings, households: number, fingerprint: string): string {
  return `${cachePrefix(settings)}${households}_${fingerprint}`;
}

function cachePrefix(settings: ResourceSettings): string {
  return `${settings.databasePrefix}seed_`;
}

async function migrateAndSeed(databaseUrl: string, households: number, janitor: Janitor): Promise<void> {
  const env = baseEnv({ DATABASE_URL: databaseUrl });
  await runToCompletion(SERVICE_BUILDS.registry.cli, ['migrate'], env, janitor);
  await runToCompletion(
    SERVICE_BUILDS.registry.cli,
    ['seed', '--households', String(households), '--seed', String(SEED)],
    env,
    janitor,
  );
}

/**
 * A migrated, seeded registry database for this run (dropped at its end). With the cache on, seeding happens once
 * per size into a template database that later runs copy in seconds; an interrupted seeding leaves no template.
 */
export async function seededDatabase(
  settings: ResourceSettings,
  households: number,
  janitor: Janitor,
  useCache: boolean,
  progress: (line: string) => void,
): Promise<string> {
  if (!useCache) {
    const url = await createDatabase(settings, `registry_${households}`, janitor);
    await migrateAndSeed(url, households, janitor);
    return url;
  }
  const name = cacheName(settings, households, seedFingerprint(households));
  const existing = await listDatabases(settings, cachePrefix(settings));
  if (existing.includes(name)) {
    progress(`  using the cached seed ${name}`);
  } else {
    for (const stale of existing.filter((db) => db.startsWith(`${cachePrefix(settings)}${households}_`))) {
      progress(`  dropping the stale seed cache ${stale}`);
      await dropDatabase(settings, stale);
    }
    progress(
      `  seeding ${households.toLocaleString('en-US')} households once into the cache ${name} (later runs reuse it)`,
    );
    const partial = `${name}_partial`;
    await dropDatabase(settings, partial);
    const guard = janitor.defer(`drop unfinished seed ${partial}`, () => dropDatabase(settings, partial));
    const url = await createPersistentDatabase(settings, partial);
    await migrateAndSeed(url, households, janitor);
    await renameDatabase(settings, partial, name);
    guard.dismiss();
  }
  const url = await createDatabase(settings, `registry_${households}`, janitor, name);
  await runToCompletion(SERVICE_BUILDS.registry.cli, ['migrate'], baseEnv({ DATABASE_URL: url }), janitor);
  return url;
}

async function renameDatabase(settings: ResourceSettings, from: string, to: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: settings.pgAdminUrl });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE "${from}" RENAME TO "${to}"`);
  } finally {
    await client.end();
  }
}

export async function clearSeedCache(
  settings: ResourceSettings,
  progress: (line: string) => void,
): Promise<void> {
  for (const name of await listDatabases(settings, cachePrefix(settings))) {
    await dropDatabase(settings, name);
    progress(`dropped ${name}`);
  }
}
