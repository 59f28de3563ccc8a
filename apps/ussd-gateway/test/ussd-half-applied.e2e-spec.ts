import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import { Client } from 'pg';
import { FaultProxy, startFaultProxy, TEST_REDIS_URL } from '@dmrv/testing';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import {
  Backing,
  createAccount as createAccountIn,
  captureLogs,
  createBacking,
  eventually,
  Handset,
  redisReady,
  startApp,
  viaProxy,
} from './ussd-test-kit';

const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.';
const PIN = '47213';
const NEW_PIN = '80642';
const HOP_BUDGET_MS = 2000;

jest.setTimeout(60_000);

let backing: Backing;
let redisProxy: FaultProxy;
let app: NestFastifyApplication;
let db: Client;
let redis: Redis;
const logs = captureLogs();

beforeAll(async () => {
  backing = await createBacking('ussd-half-applied');
  redisProxy = await startFaultProxy({ port: 6379 });
  ({ app } = await startApp(
    backing.env({
      REDIS_URL: viaProxy(TEST_REDIS_URL, redisProxy),
      HOP_TIMEOUT_MS: String(HOP_BUDGET_MS),
      RATE_LIMIT_PER_IP: '100000',
      LOG_LEVEL: 'warn',
    }),
    { logDestination: logs.stream },
  ));
  db = new Client({ connectionString: backing.database.url });
  await db.connect();
  redis = new Redis(TEST_REDIS_URL);
});

afterAll(async () => {
  redis?.disconnect();
  await db?.end();
  await app?.close();
  await redisProxy?.close();
  await backing?.cleanup();
});

afterEach(() => redisProxy.setMode({ kind: 'pass' }));

/**
 * A transaction of the test's own that holds a row the gateway's next statement needs: PostgreSQL made slow for
 * real, for exactly as long as the test wants. `waiting()` resolves once a gateway statement is blocked on it.
 */
async function blockRow(
  sql: string,
  params: unknown[],
): Promise<{ waiting(): Promise<void>; release(): Promise<void> }> {
  const blocker = new Client({ connectionString: backing.database.url });
  await blocker.connect();
  await blocker.query('BEGIN');
  await blocker.query(sql, params);
  return {
    waiting: async () => {
      await eventually(10_000, async () => {
        const { rows } = await db.query<{ blocked: string }>(
          "SELECT count(*) AS blocked FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (rows[0]!.blocked === '0') throw new Error('no statement is waiting for the row yet');
      });
    },
    release: async () => {
      await blocker.query('COMMIT');
      await blocker.end();
    },
  };
}

/** Cuts Redis (connections reset), then lets it back and waits until the gateway has reconnected. */
async function cutRedis(): Promise<() => Promise<void>> {
  redisProxy.setMode({ kind: 'reset' });
  return async () => {
    redisProxy.setMode({ kind: 'pass' });
    await eventually(10_000, () => redisReady(app));
  };
}

/**
 * Sends `input` while the test holds a row its hop needs (`lockSql`), cuts Redis once the hop waits on that row, then
 * lets the row go: the hop's PostgreSQL write commits, its session write fails. Returns the hop's answer and how to
 * bring Redis back.
 */
async function sendWithSessionWriteCut(
  handset: Handset,
  input: string,
  lockSql: string,
  params: unknown[],
): Promise<{ body: string; restoreRedis: () => Promise<void> }> {
  const row = await blockRow(lockSql, params);
  handset['inputs'].push(input);
  const hop = handset.repeat();
  await row.waiting();
  const restoreRedis = await cutRedis();
  await row.release();
  return { body: (await hop).body, restoreRedis };
}

const sessionOf = async (sessionId: string) =>
  JSON.parse((await redis.get(`${backing.redis.keyPrefix}session:${sessionId}`))!) as {
    state: { screen: string };
  };

const createAccount = (name: string) => createAccountIn(app, { name, pin: PIN });

describe('a hop whose side effect committed but whose session write failed', () => {
  it('account creation: the retry answers the account already created, and no second one is made', async () => {
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.sendAll('2', '2', 'Cut After Insert', '00', PIN)).toMatch(
      /^CON Enter the same PIN again/,
    );
    const cut = await sendWithSessionWriteCut(
      handset,
      PIN,
      'INSERT INTO ussd_phones (phone_number) VALUES ($1)',
      [handset.phoneNumber],
    );
    expect(cut.body).toBe(UNAVAILABLE);
    const committed = await db.query<{ customer_id: string }>(
      "SELECT customer_id FROM ussd_accounts WHERE full_name = 'Cut After Insert'",
    );
    expect(committed.rows).toHaveLength(1);

    await cut.restoreRedis();
    const retry = await handset.repeat();
    expect(retry.body).toBe(
      `END Account created. Your Customer ID is ${committed.rows[0]!.customer_id}. Keep it safe: you need it and your PIN to log in.`,
    );
    expect(
      (await db.query("SELECT 1 FROM ussd_accounts WHERE full_name = 'Cut After Insert'")).rowCount,
    ).toBe(1);
  });

  it('fuel order: the retry answers the order already placed, with its number, and no second one is made', async () => {
    const { customerId } = await createAccount('Cut After Order');
    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '1', customerId, PIN, '4', '1', '2');
    expect(await handset.send('Kibera market')).toMatch(/^CON 2 x Pellets 10 kg\nTotal: KES 500\n/);
    // The order's foreign key check waits for the account row (FOR KEY SHARE against FOR UPDATE).
    const cut = await sendWithSessionWriteCut(
      handset,
      PIN,
      'SELECT 1 FROM ussd_accounts WHERE customer_id = $1 FOR UPDATE',
      [customerId],
    );
    expect(cut.body).toBe(UNAVAILABLE);
    const ordersOf = () =>
      db.query<{ id: string; quantity: number; delivery_point: string }>(
        `SELECT o.id, o.quantity, o.delivery_point
           FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id WHERE a.customer_id = $1`,
        [customerId],
      );
    const placed = await ordersOf();
    expect(placed.rows).toEqual([{ id: expect.any(String), quantity: 2, delivery_point: 'Kibera market' }]);

    await cut.restoreRedis();
    const orderNumber = `F${placed.rows[0]!.id.padStart(6, '0')}`;
    expect((await handset.repeat()).body).toBe(
      `END Order ${orderNumber} placed: KES 500. We will call you before delivery.`,
    );
    expect((await ordersOf()).rows).toEqual(placed.rows);
  });

  it('PIN change: the retry answers "changed" without writing the PIN again', async () => {
    const { customerId } = await createAccount('Cut After Change');
    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '1', customerId, PIN, '2', PIN);
    expect(await handset.send(NEW_PIN)).toMatch(/^CON Enter the new PIN again/);
    const cut = await sendWithSessionWriteCut(
      handset,
      NEW_PIN,
      'SELECT 1 FROM ussd_accounts WHERE customer_id = $1 FOR UPDATE',
      [customerId],
    );
    expect(cut.body).toBe(UNAVAILABLE);
    const pinHash = async () =>
      (
        await db.query<{ pin_hash: string }>('SELECT pin_hash FROM ussd_accounts WHERE customer_id = $1', [
          customerId,
        ])
      ).rows[0]!.pin_hash;
    const written = await pinHash();

    await cut.restoreRedis();
    expect((await handset.repeat()).body).toMatch(/^CON Your PIN has been changed\.\nWelcome, Cut/);
    expect(await pinHash()).toBe(written);
    const changes = await db.query(
      'SELECT 1 FROM ussd_pin_changes c JOIN ussd_accounts a ON a.id = c.account_id WHERE a.customer_id = $1',
      [customerId],
    );
    expect(changes.rowCount).toBe(1);
    const login = new Handset(app);
    await login.dial();
    expect(await login.sendAll('2', '1', customerId, NEW_PIN)).toMatch(/^CON Welcome, Cut/);
  });

  it('wrong PIN: the retry answers the same count, the attempt is not charged twice', async () => {
    const { customerId } = await createAccount('Cut After Charge');
    const handset = new Handset(app);
    await handset.dial();
    await handset.sendAll('2', '1', customerId);
    expect(await handset.send('11112')).toMatch(/^CON Customer ID or PIN is wrong\. 2 tries left\./);
    const cut = await sendWithSessionWriteCut(
      handset,
      '11113',
      'SELECT 1 FROM ussd_pin_guards WHERE customer_id = $1 FOR UPDATE',
      [customerId],
    );
    expect(cut.body).toBe(UNAVAILABLE);

    await cut.restoreRedis();
    expect((await handset.repeat()).body).toMatch(/^CON Customer ID or PIN is wrong\. 1 try left\./);
    expect(await handset.send(PIN)).toMatch(/^CON Welcome, Cut/);
  });
});

describe('a hop that outlives HOP_TIMEOUT_MS', () => {
  it('answers "unavailable" at its budget, saves no session afterwards, and its late account is the one the retry finds', async () => {
    const handset = new Handset(app);
    await handset.dial();
    expect(await handset.sendAll('2', '2', 'Past Deadline', '00', PIN)).toMatch(
      /^CON Enter the same PIN again/,
    );
    // A slow step past the budget (a lock wait, then a statement that is slow to come back): the account's INSERT,
    // already on its way, is held at a gate until both the hop and the aggregator's retry have answered. (A query
    // itself cannot outlast its share of the budget, so the gate stands in for the sum of slow steps.)
    const accounts = app.get(AccountsRepository);
    const create = accounts.create.bind(accounts);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = jest.spyOn(accounts, 'create').mockImplementation(async (...args) => {
      await gate;
      return create(...args);
    });
    const abandoned = () =>
      logs.lines.filter(
        (line) => line.msg === 'session hop finished after its deadline: nothing of it was saved',
      );
    try {
      handset['inputs'].push(PIN);
      expect((await handset.repeat()).body).toBe(UNAVAILABLE);
      // The retry is served at once (the late hop gave its lock back), and is itself held past its budget.
      expect((await handset.repeat()).body).toBe(UNAVAILABLE);
      expect(held).toHaveBeenCalledTimes(2);
      open();
      await eventually(10_000, async () => expect(abandoned()).toHaveLength(2));
    } finally {
      held.mockRestore();
    }
    expect((await sessionOf(handset.sessionId)).state.screen).toBe('createPinConfirm');
    const accountsMade = await db.query<{ customer_id: string }>(
      "SELECT customer_id FROM ussd_accounts WHERE full_name = 'Past Deadline'",
    );
    expect(accountsMade.rows).toHaveLength(1);
    expect((await handset.repeat()).body).toContain(
      `Your Customer ID is ${accountsMade.rows[0]!.customer_id}.`,
    );
  });
});
