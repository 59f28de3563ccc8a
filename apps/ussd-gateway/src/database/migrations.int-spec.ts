import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { AccountsRepository, CustomerIdTakenError } from '../accounts/accounts.repository';
import { PinGuardsRepository } from '../accounts/pin-guards.repository';
import { PinVault } from '../accounts/pin-vault';
import { dataSourceOptions, MIGRATIONS } from './data-source';
import { CreateAccounts1763780000000 } from './migrations/1763780000000-create-accounts';
import { runMigrations } from './migrate';

/** Every migration, in order: each new one is added to MIGRATIONS, not to every test here. */
const MIGRATION_NAMES = MIGRATIONS.map((migration) => new migration().name!);

jest.setTimeout(60_000);

/** The same checks on a real server and on the embedded one `npm start` uses when DATABASE_URL is absent. */
describe.each([
  ['PostgreSQL', 'real'],
  ['embedded PostgreSQL (PGlite)', 'embedded'],
] as const)('migrations and account queries on %s', (_label, kind) => {
  let database: TestDatabase | undefined;
  let embedded: EmbeddedPostgres | undefined;
  let dataSource: DataSource;
  let repository: AccountsRepository;
  let guards: PinGuardsRepository;
  const vault = new PinVault({ id: 'k1', key: randomBytes(32) });

  beforeAll(async () => {
    let url: string;
    if (kind === 'real') {
      database = await createTestDatabase('ussd-migrations');
      url = database.url;
    } else {
      embedded = await spawnEmbeddedPostgres();
      url = embedded.url;
    }
    expect(await runMigrations(url)).toEqual(MIGRATION_NAMES);
    // A second run finds nothing to do: `migrate` is safe on every start-up.
    expect(await runMigrations(url)).toEqual([]);
    dataSource = new DataSource(dataSourceOptions(url, 2));
    await dataSource.initialize();
    repository = new AccountsRepository(dataSource);
    guards = new PinGuardsRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
    await embedded?.stop();
  });

  it('keeps its own migrations table', async () => {
    const rows: Array<{ name: string }> = await dataSource.query('SELECT name FROM ussd_migrations');
    expect(rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);
  });

  it('creates accounts once per creation key, and refuses a taken Customer ID', async () => {
    const pinHash = await vault.seal('24680');
    const account = {
      customerId: 'C0A1B2C3D',
      fullName: 'Jane Smith',
      email: null,
      phoneNumber: '+254700000001',
      pinHash,
      pinKeyId: 'k1',
      creationKey: 'hop-1',
    };
    expect(await repository.create(account)).toBe('C0A1B2C3D');
    // The same hop replayed (another Customer ID drawn): the account it already created.
    expect(await repository.create({ ...account, customerId: 'C0A1B2C3F' })).toBe('C0A1B2C3D');
    expect(
      await repository.create({
        ...account,
        customerId: 'C0A1B2C3E',
        fullName: 'Second Account',
        creationKey: 'hop-2',
      }),
    ).toBe('C0A1B2C3E');
    await expect(
      repository.create({ ...account, phoneNumber: '+254700000002', creationKey: 'hop-3' }),
    ).rejects.toBeInstanceOf(CustomerIdTakenError);
    expect(await repository.findByCustomerId('C0A1B2C3F')).toBeNull();

    const found = await repository.findByCustomerId('C0A1B2C3D');
    expect(found).toMatchObject({
      fullName: 'Jane Smith',
      email: null,
      phoneNumber: '+254700000001',
      pinKeyId: 'k1',
    });
    await expect(vault.verify('24680', found!.pinHash)).resolves.toBe(true);
    expect(await repository.findByCustomerId('CFFFFFFFF')).toBeNull();
  });

  it('reserves PIN attempts to a lock, for a Customer ID with or without an account, and replays a retried attempt', async () => {
    for (const customerId of ['C0A1B2C3D', 'CFFFFFFF1']) {
      const first = await guards.reservePinAttempt(customerId, `${customerId}-a`, 3, 600);
      expect(first).toMatchObject({ kind: 'reserved', ticket: 1, position: 1 });
      expect(await guards.reservePinAttempt(customerId, `${customerId}-a`, 3, 600)).toEqual(first);
      expect(await guards.reservePinAttempt(customerId, `${customerId}-b`, 3, 600)).toMatchObject({
        kind: 'reserved',
        ticket: 2,
        position: 2,
      });
      expect(await guards.reservePinAttempt(customerId, `${customerId}-c`, 3, 600)).toMatchObject({
        kind: 'reserved',
        ticket: 3,
        position: 3,
      });
      // Locked by the third attempt at once, pending while its PIN is being checked: later ones wait for it.
      expect(await guards.reservePinAttempt(customerId, `${customerId}-d`, 3, 600)).toEqual({
        kind: 'pending',
      });
      expect(await guards.lockSecondsLeft(customerId)).toBe(0);
      // Its PIN was wrong: the lock is settled.
      await guards.confirmLock(customerId, 3);
      expect(await guards.lockSecondsLeft(customerId)).toBeGreaterThan(590);
      const refused = await guards.reservePinAttempt(customerId, `${customerId}-d`, 3, 600);
      expect(refused).toMatchObject({ kind: 'locked' });
      expect((refused as { lockSecondsLeft: number }).lockSecondsLeft).toBeGreaterThan(590);
      // The attempt that locked, replayed, is its own reservation again, not a refusal.
      expect(await guards.reservePinAttempt(customerId, `${customerId}-c`, 3, 600)).toMatchObject({
        kind: 'reserved',
        ticket: 3,
        position: 3,
      });
    }
    const known = await guards.reservePinAttempt('C0A1B2C3E', 'e-1', 3, 600);
    expect(known).toMatchObject({
      kind: 'reserved',
      account: { fullName: 'Second Account', phoneNumber: '+254700000001', pinKeyId: 'k1' },
    });
    expect(await guards.reservePinAttempt('CFFFFFFF2', 'f-1', 3, 600)).toMatchObject({
      kind: 'reserved',
      account: null,
    });
  });

  it('clears with a right PIN only the attempts reserved up to it, and lifts the lock it no longer justifies', async () => {
    const reserve = async (key: string) => guards.reservePinAttempt('C0A1B2C3E', key, 3, 600);
    // 'e-1' (ticket 1) is already reserved above.
    const second = await reserve('e-2');
    const third = await reserve('e-3');
    expect(third).toMatchObject({ ticket: 3, position: 3 });
    expect(await reserve('e-x')).toEqual({ kind: 'pending' });
    // The second attempt was the right PIN: the lock goes, the third attempt still counts.
    await guards.recordRightPin('C0A1B2C3E', (second as { ticket: number }).ticket, 3, null);
    expect(await reserve('e-4')).toMatchObject({ ticket: 4, position: 2 });
    await guards.recordRightPin('C0A1B2C3E', 4, 3, null);
    await guards.recordRightPin('C0A1B2C3E', 2, 3, null);
    expect(await reserve('e-5')).toMatchObject({ ticket: 5, position: 1 });
  });

  it('records a log-in from another phone once per attempt', async () => {
    const account = await repository.findByCustomerId('C0A1B2C3E');
    const visit = {
      accountId: account!.id,
      phoneNumber: '+254711000111',
      sessionId: 'session-9',
      attemptKey: 'visit-1',
    };
    await guards.recordRightPin('C0A1B2C3E', 5, 3, visit);
    await guards.recordRightPin('C0A1B2C3E', 5, 3, visit);
    const rows: Array<{ phone_number: string; session_id: string }> = await dataSource.query(
      'SELECT phone_number, session_id FROM ussd_other_phone_logins WHERE account_id = $1',
      [account!.id],
    );
    expect(rows).toEqual([{ phone_number: '+254711000111', session_id: 'session-9' }]);
  });

  it('changes a PIN once per change key, and finds PINs sealed under another key', async () => {
    const found = await repository.findByCustomerId('C0A1B2C3E');
    const newHash = await vault.seal('97531');
    expect(await repository.changePin('C0A1B2C3E', 'change-1', newHash, 'k0', 1)).toEqual({
      kind: 'replaced',
      pinVersion: 2,
    });
    expect(await repository.changePin('C0A1B2C3E', 'change-1', found!.pinHash, 'k1', 1)).toEqual({
      kind: 'replayed',
      pinVersion: 2,
    });
    // Another change checked against the version before: the PIN moved since, nothing written.
    expect(await repository.changePin('C0A1B2C3E', 'change-3', found!.pinHash, 'k1', 1)).toEqual({
      kind: 'stale',
    });
    expect(await guards.signedInStanding('C0A1B2C3E')).toEqual({ lockSecondsLeft: 0, pinVersion: 2 });
    expect(await repository.changePin('CFFFFFFF3', 'change-2', newHash, 'k1', 1)).toEqual({
      kind: 'missing',
    });
    expect(await repository.findSealedUnderOtherKeys('k1', 10)).toEqual([
      { id: found!.id, pinHash: newHash },
    ]);
    await repository.rewrapPin(found!.id, found!.pinHash, 'k1');
    expect(await repository.findSealedUnderOtherKeys('k1', 10)).toEqual([]);
  });
});

describe('the pin-guard migration on a database with accounts', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('ussd-guard-migration');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('carries over the wrong-PIN counts and locks of the previous version', async () => {
    const before = new DataSource({
      ...dataSourceOptions(database.url, 1),
      migrations: [CreateAccounts1763780000000],
    });
    await before.initialize();
    try {
      await before.runMigrations();
      const [phone]: Array<{ id: string }> = await before.query(
        "INSERT INTO ussd_phones (phone_number) VALUES ('+254700000001') RETURNING id",
      );
      const account = (customerId: string, attempts: number, lockedUntil: string | null) =>
        before.query(
          `INSERT INTO ussd_accounts (customer_id, full_name, phone_id, pin_hash, pin_key_id, failed_pin_attempts, locked_until)
           VALUES ($1, 'Old', $2, 'v1.k1.x.y.z', 'k1', $3, $4::timestamptz)`,
          [customerId, phone!.id, attempts, lockedUntil],
        );
      await account('C00000001', 2, null);
      await account('C00000002', 0, new Date(Date.now() + 600_000).toISOString());
      await account('C00000003', 0, null);
    } finally {
      await before.destroy();
    }
    expect(await runMigrations(database.url)).toEqual(MIGRATION_NAMES.slice(1));
    const after = new DataSource(dataSourceOptions(database.url, 1));
    await after.initialize();
    try {
      const guards = new PinGuardsRepository(after);
      // Two wrong PINs carried over: the next one locks.
      expect(await guards.reservePinAttempt('C00000001', 'a', 3, 600)).toMatchObject({
        kind: 'reserved',
        position: 3,
      });
      expect(await guards.lockSecondsLeft('C00000002')).toBeGreaterThan(500);
      expect(await guards.reservePinAttempt('C00000003', 'b', 3, 600)).toMatchObject({
        kind: 'reserved',
        position: 1,
      });
    } finally {
      await after.destroy();
    }
  });
});
