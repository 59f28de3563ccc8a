import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Admin connection used only to create and drop throwaway databases. */
export const TEST_PG_ADMIN_URL =
  process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** Identifies this `jest` run; every database and Redis key it makes carries it, so teardown finds them. */
export function testRunId(): string {
  const id = process.env.DMRV_TEST_RUN_ID;
  if (!id)
    throw new Error(
      'DMRV_TEST_RUN_ID is not set: integration and e2e tests run through the jest global setup',
    );
  return id;
}

/** Values of the committed `.env.example` (tests use them, never real secrets). */
export function exampleEnv(path = join(REPO_ROOT, '.env.example')): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const match = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) values[match[1]!] = match[2]!.trim();
  }
  return values;
}
