import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { Client } from 'pg';
import { STOPPED_PORT, startBlackhole, TEST_PG_ADMIN_URL, TEST_REDIS_URL } from '@dmrv/testing';
import { HealthModule } from './health.module';
import { DependencyProbe, postgresProbe, redisProbe } from './probes';
import { ReadinessService } from './readiness.service';

async function readinessOf(probes: DependencyProbe[]): Promise<ReadinessService> {
  const moduleRef = await Test.createTestingModule({
    imports: [HealthModule.forRoot({ service: 'probe-test', probes: () => probes })],
  })
    .setLogger({ log: () => undefined, error: () => undefined, warn: () => undefined })
    .compile();
  return moduleRef.get(ReadinessService);
}

function pgRunner(url: string): { run: (sql: string) => Promise<unknown>; close: () => Promise<void> } {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  let connected: Promise<void> | undefined;
  return {
    run: async (sql) => {
      connected ??= client.connect();
      await connected;
      return client.query(sql);
    },
    close: async () => {
      if (connected) await client.end().catch(() => undefined);
    },
  };
}

describe('readiness probes against real and stopped dependencies', () => {
  it('reports PostgreSQL and Redis up when they answer', async () => {
    const pg = pgRunner(TEST_PG_ADMIN_URL);
    const redis = new Redis(TEST_REDIS_URL);
    const readiness = await readinessOf([postgresProbe(pg.run), redisProbe(redis)]);
    const body = await readiness.check();
    await pg.close();
    redis.disconnect();
    expect(body.status).toBe('ok');
    expect(body.checks.database).toMatchObject({ status: 'up' });
    expect(body.checks.redis).toMatchObject({ status: 'up' });
  });

  it('reports PostgreSQL down when nothing listens on its port, and hides credentials', async () => {
    const port = STOPPED_PORT;
    const pg = pgRunner(`postgres://app:s3cret@127.0.0.1:${port}/app`);
    const readiness = await readinessOf([postgresProbe(pg.run)]);
    const body = await readiness.check();
    await pg.close();
    expect(body.status).toBe('error');
    expect(body.checks.database?.status).toBe('down');
    expect(body.checks.database?.error).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(body)).not.toContain('s3cret');
  });

  it('reports Redis down when nothing listens on its port', async () => {
    const port = STOPPED_PORT;
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const readiness = await readinessOf([redisProbe(redis)]);
    const body = await readiness.check();
    redis.disconnect();
    expect(body).toMatchObject({ status: 'error', checks: { redis: { status: 'down' } } });
  });

  it('reports a dependency that accepts connections but never answers as down after the probe deadline', async () => {
    const blackhole = await startBlackhole();
    const redis = new Redis({
      port: blackhole.port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    const readiness = await readinessOf([redisProbe(redis, 'redis', 200)]);
    const body = await readiness.check();
    redis.disconnect();
    await blackhole.close();
    expect(body.checks.redis).toMatchObject({ status: 'down', error: 'redis did not answer within 200 ms' });
  });

  it('is ok only when every dependency is up', async () => {
    const pg = pgRunner(TEST_PG_ADMIN_URL);
    const port = STOPPED_PORT;
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const readiness = await readinessOf([postgresProbe(pg.run), redisProbe(redis)]);
    const body = await readiness.check();
    await pg.close();
    redis.disconnect();
    expect(body.status).toBe('error');
    expect(body.checks.database?.status).toBe('up');
    expect(body.checks.redis?.status).toBe('down');
  });

  it('reports an optional dependency that is down without making the instance unready', async () => {
    const pg = pgRunner(TEST_PG_ADMIN_URL);
    const replica = pgRunner(`postgres://reader:s3cret@127.0.0.1:${STOPPED_PORT}/app`);
    const readiness = await readinessOf([
      postgresProbe(pg.run),
      { ...postgresProbe(replica.run, 'database-replica-1'), required: false },
    ]);
    const body = await readiness.check();
    await pg.close();
    await replica.close();
    expect(body.status).toBe('ok');
    expect(body.checks.database?.status).toBe('up');
    expect(body.checks['database-replica-1']).toMatchObject({
      status: 'down',
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    expect(JSON.stringify(body)).not.toContain('s3cret');
  });
});
