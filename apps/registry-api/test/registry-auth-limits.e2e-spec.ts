import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import * as credentials from '../src/auth/credentials';
import { createClient, CreatedClient } from '../src/cli/clients';
import { loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { changesApplied, startApp } from './registry-test-kit';

const WRONG_SECRET = 'x'.repeat(43);
const bearer = (clientId: string, secret: string): string => `Bearer ${clientId}.${secret}`;
const randomClientId = (): string => `rc_${randomBytes(8).toString('hex')}`;
const randomSecret = (): string => randomBytes(32).toString('base64url');

/** Counts scrypt runs, and can hold them all until the test lets them finish. */
class HashProbe {
  started = 0;
  running = 0;
  mostAtOnce = 0;
  private held: Promise<void> | null = null;
  private release: () => void = () => undefined;
  private readonly watchers = new Set<() => void>();
  private readonly spy: jest.SpyInstance;

  constructor() {
    const original = credentials.verifySecret;
    this.spy = jest.spyOn(credentials, 'verifySecret').mockImplementation(async (secret, stored) => {
      this.started += 1;
      this.running += 1;
      this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
      this.changed();
      try {
        if (this.held) await this.held;
        return await original(secret, stored);
      } finally {
        this.running -= 1;
      }
    });
  }

  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  letGo(): void {
    this.held = null;
    this.release();
  }

  reset(): void {
    this.started = 0;
    this.mostAtOnce = this.running;
  }

  /** Resolves once the condition holds; re-checked whenever a hash starts or the test calls `changed()`. */
  until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const watcher = (): void => {
        if (!condition()) return;
        this.watchers.delete(watcher);
        resolve();
      };
      this.watchers.add(watcher);
    });
  }

  changed(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  restore(): void {
    this.spy.mockRestore();
  }
}

// Every failed attempt costs a real scrypt run (~60 ms): the deadline is a failure bound for a loaded machine.
jest.setTimeout(60_000);

const countBy = (statuses: number[]): Record<number, number> =>
  statuses.reduce<Record<number, number>>(
    (counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }),
    {},
  );

/** One app under attack: requests from any address, clients created and known to its cache. */
class Target {
  private subnet = 0;

  constructor(
    readonly app: NestFastifyApplication,
    private readonly fixture: RegistryFixture,
    private readonly hashes: HashProbe,
  ) {}

  /** A fresh /24 per test: the limits are per address, and each test starts from a clean slate. */
  addresses(): (host: number) => string {
    this.subnet += 1;
    const subnet = this.subnet;
    return (host) => `10.9.${subnet}.${host}`;
  }

  async send(
    authorization: string,
    remoteAddress: string,
  ): Promise<{ status: number; body: unknown; retryAfter?: string }> {
    const response = await this.app.inject({
      method: 'GET',
      url: '/v1/households/stats',
      headers: { authorization },
      remoteAddress,
    });
    this.hashes.changed();
    return {
      status: response.statusCode,
      body: response.json<unknown>(),
      retryAfter: response.headers['retry-after'] as string | undefined,
    };
  }

  async newClient(name: string): Promise<CreatedClient> {
    const client = await createClient(this.fixture.dataSource, name);
    await changesApplied(this.app);
    return client;
  }
}

// The failed-authentication limits and the hash bound under real concurrency: requests are injected all at once and
// interleave on their awaits (client lookup in PostgreSQL, scrypt on the libuv pool) as they do in production.
describe('registry-api authentication under concurrent attack', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let hashes: HashProbe;

  beforeAll(async () => {
    database = await createTestDatabase('registry_authattack');
    fixture = await loadFixture(database.url);
    hashes = new HashProbe();
  });

  beforeEach(() => {
    hashes.reset();
  });

  afterAll(async () => {
    hashes?.letGo();
    hashes?.restore();
    await fixture?.close();
    await database?.drop();
  });

  describe('failed-authentication limits (per address and client id, per address)', () => {
    let target: Target;

    beforeAll(async () => {
      const app = await startApp({
        DATABASE_URL: database.url,
        RATE_LIMIT_PER_MINUTE: '0',
        AUTH_FAILURES_PER_MINUTE: '30',
        AUTH_ADDRESS_FAILURES_PER_MINUTE: '60',
        // Room for every attempt the limits let through: here the limits are under test, the hash gate below.
        AUTH_HASH_QUEUE: '1000',
      });
      target = new Target(app, fixture, hashes);
    });

    afterAll(async () => {
      await target?.app.close();
    });

    it('hashes 30 of 200 parallel different wrong secrets for one client from one address and refuses the rest', async () => {
      const at = target.addresses();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () =>
          target.send(bearer(fixture.client.clientId, randomSecret()), at(1)),
        ),
      );
      expect(countBy(answers.map((a) => a.status))).toEqual({ 401: 30, 429: 170 });
      expect(hashes.started).toBe(30);
      const refused = answers.find((a) => a.status === 429)!;
      expect(refused.body).toEqual({
        message: 'Too many failed authentication attempts from this address; retry later',
      });
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    });

    it('counts 200 parallel copies of one wrong secret as 200 attempts, though they share their hashes', async () => {
      const at = target.addresses();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => target.send(bearer(fixture.client.clientId, WRONG_SECRET), at(1))),
      );
      expect(countBy(answers.map((a) => a.status))).toEqual({ 401: 30, 429: 170 });
      expect(hashes.started).toBeGreaterThanOrEqual(1);
      expect(hashes.started).toBeLessThanOrEqual(30);
    });

    it('hashes 60 (the address limit) of 200 parallel attempts with random client ids from one address', async () => {
      const at = target.addresses();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => target.send(bearer(randomClientId(), WRONG_SECRET), at(1))),
      );
      expect(countBy(answers.map((a) => a.status))).toEqual({ 401: 60, 429: 140 });
      expect(hashes.started).toBe(60);
    });

    it('counts only failures: 60 parallel first requests of an honest client all pass, on one hash', async () => {
      const at = target.addresses();
      const client = await target.newClient('busy but honest');
      const answers = await Promise.all(
        Array.from({ length: 60 }, () => target.send(bearer(client.clientId, client.secret), at(1))),
      );
      expect(countBy(answers.map((a) => a.status))).toEqual({ 200: 60 });
      expect(hashes.started).toBe(1);
    });

    it("keeps serving, behind the attacker's address, the client whose id it hammers and a neighbour", async () => {
      const nat = target.addresses()(1);
      const victim = await target.newClient('victim');
      const neighbour = await target.newClient('neighbour, first request during the attack');
      expect((await target.send(bearer(victim.clientId, victim.secret), nat)).status).toBe(200);

      const attack = Array.from({ length: 100 }, () =>
        target.send(bearer(victim.clientId, randomSecret()), nat),
      );
      const victimDuring = Array.from({ length: 5 }, () =>
        target.send(bearer(victim.clientId, victim.secret), nat),
      );
      const neighbourDuring = target.send(bearer(neighbour.clientId, neighbour.secret), nat);
      expect(countBy((await Promise.all(attack)).map((a) => a.status))).toEqual({ 401: 30, 429: 70 });
      // The victim proved its secret before: checked without a hash, so the limit does not apply to it.
      expect((await Promise.all(victimDuring)).map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      // Another client id has its own budget, and the attacker's 30 failures are below the address limit.
      expect((await neighbourDuring).status).toBe(200);
      expect((await target.send(bearer(victim.clientId, victim.secret), nat)).status).toBe(200);
      expect((await target.send(bearer(victim.clientId, WRONG_SECRET), nat)).status).toBe(429);
    });

    it('keeps serving a proven client behind an address that sprays random ids; a first-time one there waits out the window', async () => {
      const nat = target.addresses()(1);
      const proven = await target.newClient('proven before the spray');
      const newcomer = await target.newClient('first request during the spray');
      expect((await target.send(bearer(proven.clientId, proven.secret), nat)).status).toBe(200);

      const spray = await Promise.all(
        Array.from({ length: 100 }, () => target.send(bearer(randomClientId(), WRONG_SECRET), nat)),
      );
      expect(countBy(spray.map((a) => a.status))).toEqual({ 401: 60, 429: 40 });
      expect((await target.send(bearer(proven.clientId, proven.secret), nat)).status).toBe(200);
      // Indistinguishable from the sprayer until its secret is hashed, which the address has no budget left for.
      expect((await target.send(bearer(newcomer.clientId, newcomer.secret), nat)).status).toBe(429);
      expect(
        (await target.send(bearer(newcomer.clientId, newcomer.secret), target.addresses()(1))).status,
      ).toBe(200);
    });
  });

  describe('hash gate (AUTH_HASH_CONCURRENCY=2, AUTH_HASH_QUEUE=16)', () => {
    let target: Target;

    beforeAll(async () => {
      const app = await startApp({
        DATABASE_URL: database.url,
        RATE_LIMIT_PER_MINUTE: '0',
        AUTH_HASH_CONCURRENCY: '2',
        AUTH_HASH_QUEUE: '16',
      });
      target = new Target(app, fixture, hashes);
    });

    afterAll(async () => {
      hashes.letGo();
      await target?.app.close();
    });

    it('runs 2 hashes, queues 16, and answers the rest of a 500-request burst from 250 addresses 503 at once', async () => {
      const at = target.addresses();
      const newcomer = await target.newClient('first request during the burst');
      hashes.hold();
      let answered = 0;
      const burst = Array.from({ length: 500 }, (_, index) =>
        target.send(bearer(randomClientId(), WRONG_SECRET), at((index % 250) + 1)).then((answer) => {
          answered += 1;
          hashes.changed();
          return answer;
        }),
      );
      // Settled: every request is answered, hashing, or queued. Without a bound all 500 hashes would start.
      await hashes.until(() => answered + hashes.started >= 500 || answered >= 500 - 2 - 16);
      expect({ started: hashes.started, answered }).toEqual({ started: 2, answered: 482 });
      // A legitimate client arriving now is told to retry at once instead of waiting behind the burst.
      const late = await target.send(bearer(newcomer.clientId, newcomer.secret), target.addresses()(1));
      expect(late).toEqual({
        status: 503,
        body: { message: 'Too many authentications in progress; retry shortly' },
        retryAfter: '1',
      });
      expect(hashes.started).toBe(2);

      hashes.letGo();
      const answers = await Promise.all(burst);
      expect(countBy(answers.map((a) => a.status))).toEqual({ 401: 18, 503: 482 });
      expect(hashes.mostAtOnce).toBe(2);
      expect(answers.find((a) => a.status === 503)).toEqual(late);
      // The 503s were not failed authentications: the newcomer's address has its whole budget.
      expect(
        (await target.send(bearer(newcomer.clientId, newcomer.secret), target.addresses()(1))).status,
      ).toBe(200);
    });
  });
});
