import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FaultProxy, startFaultProxy } from '@dmrv/testing';
import { Backing, createBacking, startApp } from './ussd-test-kit';

// Readiness (/health) pings PostgreSQL and Redis with a 2 s deadline each; the answers below wait for it.
jest.setTimeout(30_000);

let backing: Backing;

beforeAll(async () => {
  backing = await createBacking('ussd-liveness');
});

afterAll(async () => {
  await backing?.cleanup();
});

describe('GET /health/live', () => {
  let postgres: FaultProxy;
  let redis: FaultProxy;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const databaseUrl = new URL(backing.database.url);
    postgres = await startFaultProxy({ port: Number(databaseUrl.port || 5432) });
    redis = await startFaultProxy({ port: 6379 });
    databaseUrl.port = String(postgres.port);
    ({ app } = await startApp(
      backing.env({
        DATABASE_URL: databaseUrl.toString(),
        REDIS_URL: `redis://127.0.0.1:${redis.port}/0`,
        RATE_LIMIT_PER_IP: '1',
      }),
    ));
  });

  afterAll(async () => {
    await app?.close();
    await postgres?.close();
    await redis?.close();
  });

  const live = (remoteAddress = '10.9.0.1') =>
    app.inject({ method: 'GET', url: '/health/live', remoteAddress });

  it('says the process serves HTTP, never from a cache', async () => {
    const response = await live();
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = response.json<{ status: string; service: string; uptime: number }>();
    expect(body).toEqual({ status: 'ok', service: 'ussd-gateway', uptime: expect.any(Number) as number });
    expect(Number.isInteger(body.uptime)).toBe(true);
  });

  it('is never rate-limited: a probe must not be refused for probing', async () => {
    for (let probe = 0; probe < 5; probe += 1) expect((await live('10.9.0.2')).statusCode).toBe(200);
    // The same client is limited on the other endpoints (RATE_LIMIT_PER_IP=1).
    expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.9.0.2' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.9.0.2' })).statusCode).toBe(429);
  });

  it('stays 200 with PostgreSQL and Redis cut, while readiness answers 503', async () => {
    postgres.setMode({ kind: 'reset' });
    redis.setMode({ kind: 'reset' });
    const ready = await app.inject({ method: 'GET', url: '/health', remoteAddress: '10.9.0.3' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'error', database: 'disconnected', redis: 'disconnected' });
    const response = await live('10.9.0.4');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 'ok', service: 'ussd-gateway' });
  });
});
