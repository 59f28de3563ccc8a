import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Cluster } from 'ioredis';
import { parseExposition, startRedisCluster, TestRedisCluster } from '@dmrv/testing';
import { clusterLayout } from '../src/redis/key-layout';
import { createRedisClient } from '../src/redis/redis-client';
import { describePhoneLanguageCopyContract } from '../src/phone-languages/phone-language-copy.contract';
import { RedisPhoneLanguageCopyStore } from '../src/phone-languages/redis-phone-language-copy';
import { RedisSessionStore } from '../src/sessions/redis-session.store';
import { describeSessionStoreContract } from '../src/sessions/session-store.contract';
import { describeHopOpenerContract } from '../src/ussd/hop-opener.contract';
import { redisSessionRooms } from '../src/ussd/session-rooms';
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
const PREFIX = 'ussd-cluster:';
const METRICS_TOKEN = 'ussd-cluster-metrics-token';
// A real cluster of six redis-server processes is created, failed over and removed: seconds, not milliseconds.
jest.setTimeout(180_000);

let cluster: TestRedisCluster;
let backing: Backing;
let app: NestFastifyApplication;
/** The test's own view of the cluster, to look at keys and slots. */
let redis: Cluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
  backing = await createBacking('ussd-cluster');
  redis = createRedisClient(
    { kind: 'cluster', nodes: cluster.nodes.map((node) => `redis://${node}`) },
    5000,
  ) as Cluster;
  await new Promise((resolve) => redis.once('ready', resolve));
  ({ app } = await startApp(
    backing.env({
      REDIS_URL: undefined,
      REDIS_CLUSTER_NODES: cluster.nodes.map((node) => `redis://${node}`).join(','),
      REDIS_KEY_PREFIX: PREFIX,
      // The test's requests come from 127.0.0.1: counted per phone, as an aggregator's.
      RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1/32',
      RATE_LIMIT_PER_PHONE: '20',
      METRICS_TOKEN,
    }),
  ));
});

afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await backing?.cleanup();
  await cluster?.close();
});

let isolated = 0;
describeSessionStoreContract('RedisSessionStore on a 3-master Redis Cluster', () => ({
  create: (now) => new RedisSessionStore(redis, 'contract:', now),
}));
describePhoneLanguageCopyContract('RedisPhoneLanguageCopyStore on a 3-master Redis Cluster', () => ({
  isolated: (now) => new RedisPhoneLanguageCopyStore(redis, `contract-isolated${(isolated += 1)}:`, now),
}));
describeHopOpenerContract('RedisHopOpener on a 3-master Redis Cluster', () => ({
  create: () => redisSessionRooms(redis, 'contract:'),
  isolated: () => redisSessionRooms(redis, `contract-isolated${(isolated += 1)}:`),
}));

describe('the USSD gateway on a 3-master Redis Cluster', () => {
  const layout = clusterLayout(PREFIX);
  const slotOf = (key: string): Promise<number> => redis.cluster('KEYSLOT', key);

  it('creates an account and logs in, answers retries from memory, and keeps each session in one slot', async () => {
    const { customerId, handset: creator } = await createAccount(app, { name: 'Cluster Tester', pin: PIN });
    // An aggregator retry of the last hop: the same answer, nothing done twice.
    expect((await creator.repeat()).body).toBe(
      `END Account created. Your Customer ID is ${customerId}. Keep it safe: you need it and your PIN to log in.`,
    );

    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.sendAll('2', '1', customerId, PIN)).toMatch(/^CON Welcome, Cluster/);
    const slot = await slotOf(layout.session(handset.sessionId));
    expect(await redis.exists(layout.session(handset.sessionId))).toBe(1);
    expect(
      await Promise.all([slotOf(layout.lock(handset.sessionId)), slotOf(layout.index(handset.sessionId))]),
    ).toEqual([slot, slot]);
    expect(await redis.zscore(layout.index(handset.sessionId), handset.sessionId)).not.toBeNull();
  });

  it('spends four scripts per hop: the two counts beside the lock-and-read, then the write', async () => {
    const scripts = async (): Promise<Record<string, number>> => {
      const scraped = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const exposition = parseExposition(scraped.body);
      const count = (script: string): number =>
        exposition.value('dmrv_ussd_redis_script_duration_seconds_count', { script });
      return Object.fromEntries(
        [
          'ussdCountLockAndRead',
          'ussdRateLimitIncrement',
          'ussdLockAndRead',
          'ussdWriteAndUnlock',
          'ussdReleaseLock',
        ].map((script) => [script, count(script)]),
      );
    };
    const handset = new Handset(app);
    const before = await scripts();
    expect(await handset.dial()).toMatch(/^CON Welcome/);
    const after = await scripts();
    const spent = Object.fromEntries(
      Object.entries(after).map(([script, count]) => [script, count - before[script]!]),
    );
    // Two counts: the caller's limit (per phone here) and the session's own (RATE_LIMIT_PER_SESSION).
    expect(spent).toEqual({
      ussdCountLockAndRead: 0,
      ussdRateLimitIncrement: 2,
      ussdLockAndRead: 1,
      ussdWriteAndUnlock: 1,
      ussdReleaseLock: 0,
    });
  });

  it('lists the active sessions of every master', async () => {
    const handsets = Array.from({ length: 24 }, () => new Handset(app));
    for (const handset of handsets) expect(await handset.dial()).toMatch(/^CON Welcome/);
    const masters = new Set(
      await Promise.all(handsets.map((handset) => cluster.masterOf(layout.session(handset.sessionId)))),
    );
    expect(masters.size).toBe(3);
    const list = await app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().activeSessions).toEqual(
      expect.arrayContaining(handsets.map((handset) => handset.sessionId)),
    );
  });

  it('counts the per-phone limit in one slot of its own and refuses past it', async () => {
    const handset = new Handset(app);
    for (let hop = 1; hop <= 20; hop += 1) expect(await handset.dial()).toMatch(/^CON Welcome/);
    const refused = await handset.repeat();
    expect(refused.body).toBe('END Too many requests from your phone. Please try again in a minute.');
    const [counter, block] = layout.rateLimit(`phone:${handset.phoneNumber}`);
    expect(await redis.get(counter)).toBe('21');
    expect(await slotOf(block)).toBe(await slotOf(counter));
    // The refused hop took no lock, even for a moment that outlived it.
    expect(await redis.exists(layout.lock(handset.sessionId))).toBe(0);
  });

  it('continues a session across a failover of the master that holds it', async () => {
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.sendAll('2', '2', 'Failover Tester')).toMatch(/^CON Enter your e-mail/);
    const { from, to } = await cluster.failover(layout.session(handset.sessionId));
    expect(await cluster.masterOf(layout.session(handset.sessionId))).toBe(to);
    expect(to).not.toBe(from);

    // The first hop may meet the old master's redirection or a slot refresh and answer "unavailable"; the
    // aggregator's retry (the same text) then goes on where the session stood.
    expect(await servedAfterRetries(handset, await handset.send('00'))).toMatch(/^CON Choose a 5-digit PIN/);
    expect(await handset.send(PIN)).toMatch(/^CON Enter the same PIN again/);
    expect(await handset.send(PIN)).toMatch(/^END Account created\. Your Customer ID is C[0-9A-F]{8}\./);
  });
});
