import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startRedisCluster, startRedisSentinel, TestRedisCluster, TestRedisSentinel } from '@dmrv/testing';
import { clusterLayout } from '../src/redis/key-layout';
import { SteadyUssdLoad } from './steady-ussd-load';
import { Backing, createBacking, startApp, within } from './ussd-test-kit';

// Real topologies are started, crashed and resharded under load: tens of seconds each.
jest.setTimeout(240_000);

const SUBSCRIBERS = 6;
/** How soon after the promotion (or the last slot moved) whole sessions run again: the bound this tier holds. */
const BACK_TO_NORMAL_MS = 10_000;
/** Sessions run under load before the fault, so that sessions are mid-flow on the node that dies. */
const SESSIONS_BEFORE_FAULT = 12;

/** What must hold after every fault: only the documented answers, nothing lost, doubled or shown to someone else. */
async function expectNothingWrong(load: SteadyUssdLoad, backing: Backing): Promise<void> {
  expect(load.ledger.wrongScreens).toEqual([]);
  expect(load.ledger.foreignData).toEqual([]);
  const orders = await load.checkOrders(backing.database.url);
  expect(orders.told).toBeGreaterThan(0);
  expect({ missing: orders.missing, duplicated: orders.duplicated, phantom: orders.phantom }).toEqual({
    missing: [],
    duplicated: [],
    phantom: [],
  });
}

describe('Redis Cluster, unplanned: a master killed and slots moved while USSD hops arrive', () => {
  let cluster: TestRedisCluster;
  let backing: Backing;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    backing = await createBacking('ussd-cluster-unplanned');
    ({ app } = await startApp(
      backing.env({
        REDIS_URL: undefined,
        REDIS_CLUSTER_NODES: cluster.nodes.map((node) => `redis://${node}`).join(','),
        REDIS_KEY_PREFIX: 'ussd-unplanned:',
        // Every request comes from 127.0.0.1 and each subscriber's phone dials far faster than a person: the limits
        // are not what is under test.
        RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1/32',
        RATE_LIMIT_PER_PHONE: '100000',
      }),
    ));
  });

  afterAll(async () => {
    await app?.close();
    await backing?.cleanup();
    await cluster?.close();
  });

  it('slots holding live sessions migrated to another master while their hops keep arriving (ASK, TRYAGAIN, MOVED)', async () => {
    const load = await SteadyUssdLoad.prepare(app, SUBSCRIBERS, 'M');
    const layout = clusterLayout('ussd-unplanned:');
    load.start();
    let moved = 0;
    try {
      await load.sessionsCompleted(SESSIONS_BEFORE_FAULT);
      // Whatever sessions are open now: move each one's slot to another master while it is being used.
      for (const sessionId of load.openSessionIds().slice(0, 4)) {
        const key = layout.session(sessionId);
        const owner = await cluster.masterOf(key);
        // Runs before the kill below: the three first masters are all alive.
        const target = cluster.masters.map((master) => master.port).find((port) => port !== owner)!;
        const migrated = await cluster.migrateSlotOf(key, target);
        moved += migrated.keys;
      }
      await within(BACK_TO_NORMAL_MS, load.sessionsCompleted(SUBSCRIBERS));
    } finally {
      await load.stop();
    }
    expect(moved).toBeGreaterThan(0);
    await expectNothingWrong(load, backing);
  });

  it('a master killed with SIGKILL: the cluster promotes its replica, hops answer their screen or "unavailable", and whole sessions run again within 10 s', async () => {
    const load = await SteadyUssdLoad.prepare(app, SUBSCRIBERS, 'K');
    load.start();
    try {
      await load.sessionsCompleted(SESSIONS_BEFORE_FAULT);
      // The master of a live session's slot: sessions are mid-flow on it when it dies.
      const layout = clusterLayout('ussd-unplanned:');
      const { from, to } = await cluster.killMaster(layout.session(load.openSessionIds()[0]!));
      expect(to).not.toBe(from);
      await within(BACK_TO_NORMAL_MS, load.sessionsCompleted(SUBSCRIBERS));
    } finally {
      await load.stop();
    }
    await expectNothingWrong(load, backing);
  });
});

describe('Redis Sentinel, unplanned: the master process killed', () => {
  let sentinel: TestRedisSentinel;
  let backing: Backing;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
    backing = await createBacking('ussd-sentinel-unplanned');
    ({ app } = await startApp(
      backing.env({
        REDIS_URL: undefined,
        REDIS_SENTINELS: sentinel.sentinels.join(','),
        REDIS_SENTINEL_NAME: sentinel.masterName,
        REDIS_KEY_PREFIX: 'ussd-sentinel-unplanned:',
        RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1/32',
        RATE_LIMIT_PER_PHONE: '100000',
      }),
    ));
  });

  afterAll(async () => {
    await app?.close();
    await backing?.cleanup();
    await sentinel?.close();
  });

  it('Sentinel elects the replica; hops answer their screen or "unavailable", and whole sessions run again within 10 s', async () => {
    const load = await SteadyUssdLoad.prepare(app, SUBSCRIBERS, 'S');
    load.start();
    try {
      await load.sessionsCompleted(SESSIONS_BEFORE_FAULT);
      const { from, to } = await sentinel.killMaster();
      expect(to).not.toBe(from);
      await within(BACK_TO_NORMAL_MS, load.sessionsCompleted(SUBSCRIBERS));
    } finally {
      await load.stop();
    }
    await expectNothingWrong(load, backing);
  });
});
