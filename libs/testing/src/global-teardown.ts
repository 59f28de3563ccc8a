import { dropRunDatabases } from './database';
import { TEST_REDIS_URL } from './environment';
import { deleteKeysWithPrefix, TEST_REDIS_PREFIX } from './redis';

/** Safety net: whatever a test file forgot to remove, the run removes. */
export default async function globalTeardown(): Promise<void> {
  const runId = process.env.DMRV_TEST_RUN_ID;
  if (!runId) return;
  await dropRunDatabases(runId);
  await deleteKeysWithPrefix(TEST_REDIS_URL, `${TEST_REDIS_PREFIX}${runId}:`);
}
