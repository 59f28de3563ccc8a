import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  FaultProxy,
  ReplicatedPostgres,
  startFaultProxy,
  startReplicatedPostgres,
  withPgClient,
} from '@dmrv/testing';
import { SteadyUssdLoad } from './steady-ussd-load';
import { Backing, createBacking, startApp, viaProxy, within } from './ussd-test-kit';

// A real primary and standby are started, the primary crashed and the standby promoted under load.
jest.setTimeout(120_000);

const SUBSCRIBERS = 6;
const HOP_TIMEOUT_MS = 5000;
/** An answer later than this is a hang: the hop budget plus room for a busy test machine's event loop. */
const HOP_BOUND_MS = HOP_TIMEOUT_MS + 2000;
/** How soon after the Service points at the promoted standby whole order and account sessions run again. */
const BACK_TO_NORMAL_MS = 15_000;
/** Sessions run under load before the crash, so that sessions are mid-flow when the primary dies. */
const SESSIONS_BEFORE_FAULT = 12;

async function health(app: NestFastifyApplication): Promise<{ status: number; database: unknown }> {
  const response = await app.inject({ method: 'GET', url: '/health/ready' });
  return { status: response.statusCode, database: (response.json() as { database: unknown }).database };
}

/**
 * `crash`: the primary's process dies and its host resets the connections (a pod killed on a live node).
 * `vanish`: the primary's host drops off the network (a node lost): open connections go silent, nothing resets them.
 */
type PrimaryLoss = 'crash' | 'vanish';

describe.each<[PrimaryLoss, string]>([
  ['crash', 'crashed'],
  ['vanish', 'gone silent with its node'],
])(
  'PostgreSQL primary lost (%s): %s, the standby promoted and the Service re-pointed while USSD hops arrive',
  (loss) => {
    let cluster: ReplicatedPostgres;
    // Stands in for the Kubernetes Service (CloudNativePG's `-rw`): the app knows only its address.
    let service: FaultProxy;
    let backing: Backing;
    let app: NestFastifyApplication;

    beforeAll(async () => {
      // Every commit waits for the standby to flush it, so each acknowledged order or account survives the promotion.
      cluster = await startReplicatedPostgres({ synchronousCommit: 'on' });
      await withPgClient(cluster.primary.url(), (client) => client.query('CREATE DATABASE ussd'));
      service = await startFaultProxy({ port: cluster.primary.port });
      const url = viaProxy(cluster.primary.url('ussd'), service);
      backing = await createBacking('ussd-pg-failover', { name: 'ussd', url, drop: () => Promise.resolve() });
      ({ app } = await startApp(
        backing.env({
          HOP_TIMEOUT_MS: String(HOP_TIMEOUT_MS),
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
      await service?.close();
      await cluster?.close();
    });

    it('writes answer "unavailable" while there is no primary, whole sessions run again within 15 s of the re-pointing, nothing acknowledged is lost or doubled', async () => {
      const load = await SteadyUssdLoad.prepare(app, SUBSCRIBERS, loss === 'crash' ? 'F' : 'V', {
        accountCreations: true,
        retryOnce: true,
        hopBoundMs: HOP_BOUND_MS,
      });
      load.start();
      try {
        await load.sessionsCompleted(SESSIONS_BEFORE_FAULT);
        if (loss === 'vanish') service.setMode({ kind: 'stale' });
        await cluster.primary.stop('immediate');

        // No primary: account and order hops answer the documented text; readiness says the database is down and keeps
        // the instance in the Service, which still serves the screens that need only Redis.
        await within(HOP_BOUND_MS * 2, load.unavailableAnswers(SUBSCRIBERS));
        expect(await health(app)).toEqual({ status: 200, database: 'disconnected' });
        // Screens that need only Redis go on: a whole information walk runs with no primary.
        await within(BACK_TO_NORMAL_MS, load.sessionsCompleted(1, 'info'));

        await cluster.replica.promote();
        service.setTarget({ port: cluster.replica.port });
        service.setMode({ kind: 'pass' });
        await within(
          BACK_TO_NORMAL_MS,
          Promise.all([load.sessionsCompleted(SUBSCRIBERS, 'order'), load.sessionsCompleted(2, 'account')]),
        );
      } finally {
        await load.stop();
      }
      expect(await health(app)).toEqual({ status: 200, database: 'connected' });
      // The aggregator's late retries of confirmations cut by the crash: the committed ones answer what they made.
      await load.retryCutWrites();

      expect(load.ledger.wrongScreens).toEqual([]);
      expect(load.ledger.foreignData).toEqual([]);
      expect(load.ledger.slowHops).toEqual([]);
      expect(load.ledger.unavailable).toBeGreaterThan(0);
      expect(load.ledger.retries).toBeGreaterThan(0);
      const orders = await load.checkOrders(cluster.replica.url('ussd'));
      const accounts = await load.checkAccounts(cluster.replica.url('ussd'));
      expect(orders.told).toBeGreaterThan(0);
      expect(accounts.told).toBeGreaterThan(0);
      expect({
        orders: { missing: orders.missing, duplicated: orders.duplicated, phantom: orders.phantom },
        accounts: { missing: accounts.missing, duplicated: accounts.duplicated, phantom: accounts.phantom },
      }).toEqual({
        orders: { missing: [], duplicated: [], phantom: [] },
        accounts: { missing: [], duplicated: [], phantom: [] },
      });
    });
  },
);
