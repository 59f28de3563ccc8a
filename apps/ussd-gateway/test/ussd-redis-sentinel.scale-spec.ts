import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startRedisSentinel, TestRedisSentinel } from '@dmrv/testing';
import {
  Backing,
  createAccount,
  createBacking,
  Handset,
  OPERATOR_TOKEN,
  servedAfterRetries,
  startApp,
} from './ussd-test-kit';

const PIN = '47213';
// A master, a replica and a sentinel are started and failed over: seconds, not milliseconds.
jest.setTimeout(180_000);

let sentinel: TestRedisSentinel;
let backing: Backing;
let app: NestFastifyApplication;

beforeAll(async () => {
  sentinel = await startRedisSentinel();
  backing = await createBacking('ussd-sentinel');
  ({ app } = await startApp(
    backing.env({
      REDIS_URL: undefined,
      REDIS_SENTINELS: sentinel.sentinels.join(','),
      REDIS_SENTINEL_NAME: sentinel.masterName,
      REDIS_KEY_PREFIX: 'ussd-sentinel:',
    }),
  ));
});

afterAll(async () => {
  await app?.close();
  await backing?.cleanup();
  await sentinel?.close();
});

describe('the USSD gateway through Redis Sentinel', () => {
  it('serves sessions on the master Sentinel names, and goes on with them after a failover', async () => {
    const { customerId } = await createAccount(app, { name: 'Sentinel Tester', pin: PIN });
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.sendAll('2', '1', customerId)).toMatch(/^CON Enter the 5-digit PIN for C/);

    const { from, to } = await sentinel.failover();
    expect(await sentinel.currentMaster()).toBe(to);
    expect(to).not.toBe(from);

    // The first hop may still reach the demoted master (READONLY, or a connection Sentinel's announcement closed)
    // and answer "unavailable"; the aggregator's retry goes on where the session stood, on the new master.
    expect(await servedAfterRetries(handset, await handset.send(PIN))).toMatch(/^CON Welcome, Sentinel/);
    expect(await handset.send('1')).toContain(`Customer ID: ${customerId}`);
    const list = await app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(list.json().activeSessions).toContain(handset.sessionId);
  });
});
