import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { TEST_REDIS_URL, testRunId } from './environment';

export const TEST_REDIS_PREFIX = 'dmrv_test:';

export interface TestRedisNamespace {
  url: string;
  /** Every key the code under test writes must start with this. */
  keyPrefix: string;
  /** Deletes every key under the prefix. */
  cleanup(): Promise<void>;
}

export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
  return deleted;
}

/** A key prefix private to one test file within this run. */
export function createTestRedisNamespace(label: string): TestRedisNamespace {
  const keyPrefix = `${TEST_REDIS_PREFIX}${testRunId()}:${label}:${randomBytes(3).toString('hex')}:`;
  return {
    url: TEST_REDIS_URL,
    keyPrefix,
    cleanup: async () => {
      await deleteKeysWithPrefix(TEST_REDIS_URL, keyPrefix);
    },
  };
}

export async function assertRedisReachable(): Promise<void> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${TEST_REDIS_URL} (${(error as Error).message}). ` +
        'Start it (see README "Running the tests") or set TEST_REDIS_URL.',
    );
  } finally {
    client.disconnect();
  }
}
