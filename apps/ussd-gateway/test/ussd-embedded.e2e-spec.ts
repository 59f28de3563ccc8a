import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import { exampleEnv } from '@dmrv/testing';
import { runMigrations } from '../src/database/migrate';
import { Handset, startApp } from './ussd-test-kit';

jest.setTimeout(60_000);

/** What `npm start` runs with no DATABASE_URL and no REDIS_URL: embedded PostgreSQL, in-memory sessions. */
describe('zero-config stack: embedded PostgreSQL, no Redis', () => {
  let embedded: EmbeddedPostgres;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    embedded = await spawnEmbeddedPostgres();
    await runMigrations(embedded.url);
    ({ app } = await startApp({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: embedded.url,
      DATABASE_POOL_SIZE: '4',
      PIN_ENCRYPTION_KEY: exampleEnv().PIN_ENCRYPTION_KEY,
    }));
  });

  afterAll(async () => {
    await app?.close();
    await embedded?.stop();
  });

  it('creates an account, logs in and reports health', async () => {
    const creator = new Handset(app);
    await creator.dial();
    const created = await creator.sendAll('2', '2', 'Jane Wanjiku', '00', '47213', '47213');
    const customerId = /Your Customer ID is (C[0-9A-F]{8})\./.exec(created)?.[1];
    expect(customerId).toBeDefined();

    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '1', customerId!);
    expect(await handset.send('47213')).toMatch(/^CON Welcome, Jane\n/);
    expect(await handset.send('1')).toContain(`Customer ID: ${customerId}`);

    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toMatchObject({ database: 'connected', redis: 'not configured' });
  });

  it("closes the in-memory session on the aggregator's session-end notification and keeps it in the database", async () => {
    const handset = new Handset(app);
    await handset.dial();
    const notification = {
      sessionId: handset.sessionId,
      phoneNumber: handset.phoneNumber,
      serviceCode: '*384#',
      status: 'Incomplete',
      input: '',
    };
    const answer = await app.inject({ method: 'POST', url: '/api/ussd/events', payload: notification });
    expect(answer.json()).toEqual({ status: 'recorded' });
    expect(await handset.send('1')).toBe('END This session has ended. Please dial again.');
    const again = await app.inject({ method: 'POST', url: '/api/ussd/events', payload: notification });
    expect(again.json()).toEqual({ status: 'duplicate' });
  });

  it('hides the operator endpoints when no OPERATOR_TOKEN is configured, exactly like unknown routes', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/api/ussd/nothing-here' });
    for (const url of ['/api/ussd/sessions', '/api/ussd/debug/some-session', '/api/ussd/events']) {
      const response = await app.inject({
        method: 'GET',
        url,
        headers: { 'x-operator-token': 'any-token-at-all-long-enough' },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ message: `Cannot GET ${url}` });
      expect(Object.keys(response.json())).toEqual(Object.keys(unknown.json()));
    }
    expect(unknown.json()).toEqual({ message: 'Cannot GET /api/ussd/nothing-here' });
  });
});
