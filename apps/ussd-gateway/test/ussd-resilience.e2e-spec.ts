import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  Backing,
  captureLogs,
  createBacking,
  Handset,
  post,
  redisReady,
  SERVICE_CODE,
  startApp,
  startTcpRelay,
  TcpRelay,
} from './ussd-test-kit';

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.';
const PIN = '47213';

// Outages are real (connections refused) and each costs the hop its dependency time-outs (seconds).
jest.setTimeout(60_000);

let backing: Backing;

beforeAll(async () => {
  backing = await createBacking('ussd-resilience');
});

afterAll(async () => {
  await backing?.cleanup();
});

describe('two instances on one Redis', () => {
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;

  beforeAll(async () => {
    ({ app: first } = await startApp(backing.env({ REDIS_KEY_PREFIX: `${backing.redis.keyPrefix}pair:` })));
    ({ app: second } = await startApp(backing.env({ REDIS_KEY_PREFIX: `${backing.redis.keyPrefix}pair:` })));
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('serve alternate hops of the same session, signed-in state included', async () => {
    const creator = new Handset(first);
    const hops: Array<[NestFastifyApplication, string, RegExp]> = [
      [first, '2', /^CON Account Menu/],
      [second, '2', /^CON Enter your full name/],
      [first, 'Wanjiru Kamau', /^CON Enter your e-mail/],
      [second, '00', /^CON Choose a 5-digit PIN/],
      [first, PIN, /^CON Enter the same PIN again/],
      [second, PIN, /^END Account created\. Your Customer ID is C[0-9A-F]{8}\./],
    ];
    expect(await creator.dial()).toMatch(/^CON Welcome/);
    let last = '';
    for (const [app, input, expected] of hops) {
      creator.app = app;
      last = await creator.send(input);
      expect(last).toMatch(expected);
    }
    const customerId = /C[0-9A-F]{8}/.exec(last)![0];

    const handset = new Handset(second);
    await handset.dial();
    handset.app = first;
    await handset.sendAll('2', '1', customerId);
    handset.app = second;
    expect(await handset.send(PIN)).toMatch(/^CON Welcome, Wanjiru/);
    handset.app = first;
    expect(await handset.send('1')).toContain(`Customer ID: ${customerId}`);
    handset.app = second;
    expect(await handset.send('0')).toMatch(/^CON Welcome, Wanjiru/);
  });

  it('continue a session after the instance that started it is gone', async () => {
    const handset = new Handset(first);
    await handset.dial();
    await handset.send('1');
    await first.close();
    ({ app: first } = await startApp(backing.env({ REDIS_KEY_PREFIX: `${backing.redis.keyPrefix}pair:` })));
    handset.app = first;
    expect(await handset.send('3')).toMatch(/^CON Delivery\n/);
  });
});

describe('a dependency stopped mid-session', () => {
  let redisRelay: TcpRelay;
  let postgresRelay: TcpRelay;
  let app: NestFastifyApplication;
  const logs = captureLogs();

  beforeAll(async () => {
    redisRelay = await startTcpRelay(6379);
    const databaseUrl = new URL(backing.database.url);
    postgresRelay = await startTcpRelay(Number(databaseUrl.port || 5432));
    databaseUrl.port = String(postgresRelay.port);
    ({ app } = await startApp(
      backing.env({
        REDIS_URL: `redis://127.0.0.1:${redisRelay.port}/0`,
        REDIS_KEY_PREFIX: `${backing.redis.keyPrefix}outage:`,
        DATABASE_URL: databaseUrl.toString(),
        LOG_LEVEL: 'info',
      }),
      { logDestination: logs.stream },
    ));
  });

  afterAll(async () => {
    await app?.close();
    await redisRelay?.close();
    await postgresRelay?.close();
  });

  const health = () => app.inject({ method: 'GET', url: '/health' });
  const ready = () => app.inject({ method: 'GET', url: '/health/ready' });

  it('Redis: the unavailable text, a 503 health and not ready, then the session goes on', async () => {
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.send('1')).toMatch(/^CON Know More/);

    await redisRelay.stop();
    expect(await handset.send('2')).toBe(UNAVAILABLE);
    const down = await health();
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'error', database: 'connected', redis: 'disconnected' });
    // Without its session store an instance can serve nothing: readiness takes it out of the Service.
    const notReady = await ready();
    expect({ status: notReady.statusCode, body: notReady.json() }).toMatchObject({
      status: 503,
      body: { status: 'error', database: 'connected', redis: 'disconnected' },
    });

    await redisRelay.start();
    await redisReady(app);
    expect((await health()).statusCode).toBe(200);
    // The aggregator's retry of the failed hop: nothing of it was applied, so it now lands on Know More.
    expect((await handset.repeat()).body).toMatch(/^CON Pricing\n/);
    expect(await handset.send('0')).toMatch(/^CON Know More/);
  });

  it('PostgreSQL: the unavailable text, a 503 health but still ready, then the session goes on', async () => {
    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '2', 'Outage Tester', '00');
    expect(await handset.send(PIN)).toMatch(/^CON Enter the same PIN again/);

    await postgresRelay.stop();
    const failed = await post(
      app,
      {
        sessionId: handset.sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: handset.phoneNumber,
        text: `${handset.text}*${PIN}`,
      },
      { headers: { 'x-request-id': 'outage-hop-1' } },
    );
    expect(failed.body).toBe(UNAVAILABLE);
    handset['inputs'].push(PIN);
    // The operator sees why, tied to the request; nobody sees the PIN or the subscriber's input.
    const errorLine = logs.lines.find((line) => line.requestId === 'outage-hop-1' && line.level === 50);
    expect(errorLine).toMatchObject({
      msg: 'session hop failed: a dependency is unavailable',
      sessionId: handset.sessionId,
      err: expect.any(Object),
    });
    expect(logs.raw.join('')).not.toContain(PIN);
    expect(logs.raw.join('')).not.toContain('Outage Tester');
    const down = await health();
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'error', database: 'disconnected', redis: 'connected' });
    // Without PostgreSQL it still serves the menus that need only Redis and the unavailable text: it stays ready, and
    // says what is down.
    const stillReady = await ready();
    expect({ status: stillReady.statusCode, body: stillReady.json() }).toMatchObject({
      status: 200,
      body: { status: 'ok', database: 'disconnected', redis: 'connected' },
    });

    await postgresRelay.start();
    expect((await health()).statusCode).toBe(200);
    expect((await handset.repeat()).body).toMatch(
      /^END Account created\. Your Customer ID is C[0-9A-F]{8}\./,
    );
  });
});
