import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { FaultMode, FaultProxy, startFaultProxy } from '@dmrv/testing';
import {
  Backing,
  createAccount,
  createBacking,
  eventually,
  Handset,
  OPERATOR_TOKEN,
  redisReady,
  startApp,
  viaProxy,
  within,
} from './ussd-test-kit';

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.';
const PIN = '47213';
/**
 * Smaller than the default, so that a failing hop costs less test time (the dependency time-outs are fractions of
 * it), yet roomy enough that a healthy hop on a loaded machine does not time out.
 */
const HOP_BUDGET_MS = 3000;
/** A hop answers by its budget; this much more is only a failure bound against a hang, not a speed check. */
const HANG_BOUND_MS = HOP_BUDGET_MS + 5000;
/** Failure bound of the recovery polls; the README states the bound the service keeps. */
const RECOVERY_DEADLINE_MS = 30_000;

jest.setTimeout(120_000);

let backing: Backing;
let redisProxy: FaultProxy;
let postgresProxy: FaultProxy;
let app: NestFastifyApplication;

beforeAll(async () => {
  backing = await createBacking('ussd-faults');
  redisProxy = await startFaultProxy({ port: 6379 });
  const database = new URL(backing.database.url);
  postgresProxy = await startFaultProxy({ port: Number(database.port || 5432) });
  ({ app } = await startApp(
    backing.env({
      REDIS_URL: viaProxy('redis://127.0.0.1:6379/0', redisProxy),
      DATABASE_URL: viaProxy(backing.database.url, postgresProxy),
      HOP_TIMEOUT_MS: String(HOP_BUDGET_MS),
      RATE_LIMIT_PER_IP: '100000',
      // One connection: a dead one cannot hide behind a healthy one, every query finds out.
      DATABASE_POOL_SIZE: '1',
    }),
  ));
});

afterAll(async () => {
  await app?.close();
  await redisProxy?.close();
  await postgresProxy?.close();
  await backing?.cleanup();
});

const health = () => app.inject({ method: 'GET', url: '/health' });
const operator = (url: string) =>
  app.inject({ method: 'GET', url, headers: { 'x-operator-token': OPERATOR_TOKEN } });

/** A hop that needs Redis only: a fresh dial. */
const dial = async (): Promise<string> => (await new Handset(app).repeat()).body;

/** A signed-in subscriber: "1" (account details) reads the account from PostgreSQL. */
async function signedIn(): Promise<{ details(): Promise<string> }> {
  const { customerId } = await createAccount(app, { name: 'Fault Tester', pin: PIN });
  const handset = new Handset(app);
  await handset.dial();
  expect(await handset.sendAll('2', '1', customerId, PIN)).toMatch(/^CON Welcome, Fault/);
  handset['inputs'].push('1');
  // Every call is the same request again (the aggregator's retry): it reads, it changes nothing.
  return { details: async () => (await handset.repeat()).body };
}

const MODES: Array<[string, FaultMode]> = [
  ['reset', { kind: 'reset' }],
  ['stale', { kind: 'stale' }],
  ['delay', { kind: 'delay', ms: 4 * HOP_BUDGET_MS }],
];

describe.each(MODES)('Redis %s', (_label, mode) => {
  afterEach(() => redisProxy.setMode({ kind: 'pass' }));

  it('hops answer the unavailable text by their budget, and the service recovers once Redis answers again', async () => {
    expect(await dial()).toMatch(/^CON Welcome/);
    redisProxy.setMode(mode);
    for (let hop = 0; hop < 2; hop += 1) expect(await within(HANG_BOUND_MS, dial())).toBe(UNAVAILABLE);
    const down = await within(HANG_BOUND_MS, health());
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'error', redis: 'disconnected' });

    redisProxy.setMode({ kind: 'pass' });
    await eventually(RECOVERY_DEADLINE_MS, async () => expect(await dial()).toMatch(/^CON Welcome/));
    await eventually(RECOVERY_DEADLINE_MS, async () => expect((await health()).statusCode).toBe(200));
  });
});

describe.each(MODES)('PostgreSQL %s', (_label, mode) => {
  afterEach(() => postgresProxy.setMode({ kind: 'pass' }));

  it('account hops answer the unavailable text by their budget, and the service recovers once PostgreSQL answers again', async () => {
    const subscriber = await signedIn();
    postgresProxy.setMode(mode);
    for (let hop = 0; hop < 2; hop += 1)
      expect(await within(HANG_BOUND_MS, subscriber.details())).toBe(UNAVAILABLE);
    // Hops without account work do not need PostgreSQL.
    expect(await within(HANG_BOUND_MS, dial())).toMatch(/^CON Welcome/);
    const down = await within(HANG_BOUND_MS, health());
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'error', database: 'disconnected' });

    postgresProxy.setMode({ kind: 'pass' });
    await eventually(RECOVERY_DEADLINE_MS, async () =>
      expect(await subscriber.details()).toMatch(/^CON Your account\n/),
    );
    await eventually(RECOVERY_DEADLINE_MS, async () => expect((await health()).statusCode).toBe(200));
  });
});

describe('a connection that died while idle (no reset, nobody used it during the outage)', () => {
  it('Redis: the first hops after it may fail, then the connection is replaced', async () => {
    expect(await dial()).toMatch(/^CON Welcome/);
    redisProxy.setMode({ kind: 'stale' });
    redisProxy.setMode({ kind: 'pass' });
    await eventually(RECOVERY_DEADLINE_MS, async () => expect(await dial()).toMatch(/^CON Welcome/));
  });

  it('PostgreSQL: the first account hops after it may fail, then the connection is replaced', async () => {
    const subscriber = await signedIn();
    postgresProxy.setMode({ kind: 'stale' });
    postgresProxy.setMode({ kind: 'pass' });
    await eventually(RECOVERY_DEADLINE_MS, async () =>
      expect(await subscriber.details()).toMatch(/^CON Your account\n/),
    );
  });
});

describe('after a Redis outage', () => {
  afterEach(() => redisProxy.setMode({ kind: 'pass' }));

  it('does not replay the commands of hops that failed during it (a replayed lock-and-read would block the next hop)', async () => {
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.send('1')).toMatch(/^CON Know More/);
    // The hop's lock-and-read goes out and no answer comes back: the hop answers "unavailable".
    redisProxy.setMode({ kind: 'delay', ms: 60_000 });
    handset['inputs'].push('2');
    expect((await handset.repeat()).body).toBe(UNAVAILABLE);
    // Then the connection drops and the next one works.
    const before = redisProxy.acceptedConnections;
    redisProxy.setMode({ kind: 'reset' });
    redisProxy.setMode({ kind: 'pass' });
    await redisProxy.waitForConnections(before + 1);
    await redisReady(app);
    // The aggregator's retry of the failed hop is served at once: no replayed command holds its session.
    expect((await handset.repeat()).body).toMatch(/^CON Pricing\n/);
  });
});

describe('operator endpoints during a Redis outage', () => {
  afterEach(() => redisProxy.setMode({ kind: 'pass' }));

  it('answer 503 with the {message} body, then 200 again', async () => {
    const handset = new Handset(app);
    await handset.dial();
    redisProxy.setMode({ kind: 'reset' });
    for (const url of ['/api/ussd/sessions', `/api/ussd/debug/${handset.sessionId}`]) {
      const response = await within(HANG_BOUND_MS, operator(url));
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({ message: 'Session store unavailable. Please try again later.' });
    }
    redisProxy.setMode({ kind: 'pass' });
    await eventually(RECOVERY_DEADLINE_MS, async () =>
      expect((await operator('/api/ussd/sessions')).statusCode).toBe(200),
    );
    expect((await operator(`/api/ussd/debug/${handset.sessionId}`)).json()).toMatchObject({
      sessionId: handset.sessionId,
    });
  });
});
