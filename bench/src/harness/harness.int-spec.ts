import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import {
  createTestRedisNamespace,
  testRunId,
  TEST_PG_ADMIN_URL,
  TEST_REDIS_URL,
  TestRedisNamespace,
} from '@dmrv/testing';
import { startFloor } from '../suites/services';
import { SuiteContext } from '../suites/suite';
import { sessionIdentity, sessionSteps } from '../suites/ussd-sessions';
import { Janitor } from './janitor';
import { measure, problemsOf } from './load';
import { PeakMemory } from './memory';
import { parseOptions } from './options';
import { assertBuilt, floorScript } from './paths';
import { createDatabase } from './resources';

describe('harness against a real floor process, Redis and PostgreSQL', () => {
  let janitor: Janitor;
  let redis: TestRedisNamespace;
  let logDir: string;
  let ctx: SuiteContext;

  beforeAll(() => assertBuilt([floorScript('ussd')]));

  beforeEach(() => {
    janitor = new Janitor();
    redis = createTestRedisNamespace('bench-harness');
    logDir = mkdtempSync(join(tmpdir(), 'dmrv-bench-test-'));
    ctx = {
      options: parseOptions(['--smoke']),
      janitor,
      logDir,
      progress: () => undefined,
      results: [],
      batches: [],
      resources: {
        pgAdminUrl: TEST_PG_ADMIN_URL,
        redisUrl: TEST_REDIS_URL,
        databasePrefix: `dmrv_test_${testRunId()}_`,
        redisPrefix: redis.keyPrefix,
      },
    };
  });

  afterEach(async () => {
    await janitor.cleanAll();
    await redis.cleanup();
    rmSync(logDir, { recursive: true, force: true });
  });

  it('drives whole USSD sessions through the floor and reports throughput, latency and peak memory', async () => {
    const floor = await startFloor(ctx, 'ussd', {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redis.keyPrefix,
    });
    const plan = {
      steps: sessionSteps(
        {
          name: 'three hops',
          hops: [
            { input: '', expect: 'CON' },
            { input: '1', expect: 'CON' },
            { input: '2', expect: 'CON' },
          ],
        },
        sessionIdentity('harness'),
        false,
      ),
      connections: 4,
    };

    const memory = new PeakMemory(floor.process.pid);
    const result = await measure(floor.baseUrl, plan, 0.5);
    const peak = memory.stop();

    expect(problemsOf(result)).toEqual([]);
    expect(result.ok).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
    expect(peak).toBeGreaterThan(1024 * 1024);
    const client = new Redis(TEST_REDIS_URL);
    const keys = await client.keys(`${redis.keyPrefix}floor:session:harness-*`);
    client.disconnect();
    expect(keys.length).toBeGreaterThan(0);
  });

  it('stops every process and drops every database it started when cleaned up', async () => {
    const floor = await startFloor(ctx, 'ussd', {
      REDIS_URL: TEST_REDIS_URL,
      REDIS_KEY_PREFIX: redis.keyPrefix,
    });
    const databaseUrl = await createDatabase(ctx.resources, 'harness', janitor);

    const failures = await janitor.cleanAll();

    expect(failures).toEqual([]);
    expect(floor.process.hasExited).toBe(true);
    const admin = new (await import('pg')).Client({ connectionString: TEST_PG_ADMIN_URL });
    await admin.connect();
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      new URL(databaseUrl).pathname.slice(1),
    ]);
    await admin.end();
    expect(rowCount).toBe(0);
  });

  it('fails with the process output when a process dies during start-up', async () => {
    await expect(startFloor(ctx, 'ussd', { REDIS_KEY_PREFIX: redis.keyPrefix })).rejects.toThrow(
      /ussd-floor stopped before .*REDIS_URL is required/s,
    );
  });
});
