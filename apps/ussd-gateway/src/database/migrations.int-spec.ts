import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { AccountsRepository, CustomerIdTakenError } from '../accounts/accounts.repository';
import { PinVault } from '../accounts/pin-vault';
import { dataSourceOptions } from './data-source';
import { runMigrations } from './migrate';

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
    expect(await runMigrations(url)).toEqual(['CreateAccounts1763780000000']);
    // A second run finds nothing to do: `migrate` is safe on every start-up.
    expect(await runMigrations(url)).toEqual([]);
    dataSource = new DataSource(dataSourceOptions(url, 2));
    await dataSource.initialize();
    repository = new AccountsRepository(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
    await embedded?.stop();
  });

  it('keeps its own migrations table', async () => {
    const rows: Array<{ name: string }> = await dataSource.query('SELECT name FROM ussd_migrations');
    expect(rows.map((row) => row.name)).toEqual(['CreateAccounts1763780000000']);
  });

  it('creates accounts, refuses a taken Customer ID, and counts failures to a lock', async () => {
    const pinHash = await vault.seal('24680');
    const account = { customerId: 'C0A1B2C3D', fullName: 'Jane Smith', email: null, phoneNumber: '+254700000001', pinHash, pinKeyId: 'k1' };
    await repository.create(account);
    await repository.create({ ...account, customerId: 'C0A1B2C3E', fullName: 'Second Account' });
    await expect(repository.create({ ...account, phoneNumber: '+254700000002' })).rejects.toBeInstanceOf(CustomerIdTakenError);

    const found = await repository.findByCustomerId('C0A1B2C3D');
    expect(found).toMatchObject({ fullName: 'Jane Smith', email: null, phoneNumber: '+254700000001', pinKeyId: 'k1', lockSecondsLeft: 0 });
    await expect(vault.verify('24680', found!.pinHash)).resolves.toBe(true);
    expect(await repository.findByCustomerId('CFFFFFFFF')).toBeNull();

    expect(await repository.recordFailure(found!.id, 3, 600)).toEqual({ attempts: 1, lockSeconds: 0 });
    expect(await repository.recordFailure(found!.id, 3, 600)).toEqual({ attempts: 2, lockSeconds: 0 });
    expect(await repository.recordFailure(found!.id, 3, 600)).toEqual({ attempts: 3, lockSeconds: 600 });
    const locked = await repository.findByCustomerId('C0A1B2C3D');
    expect(locked!.lockSecondsLeft).toBeGreaterThan(590);
    await repository.recordSuccess(found!.id);
    expect((await repository.findByCustomerId('C0A1B2C3D'))!.lockSecondsLeft).toBe(0);
  });

  it('replaces a PIN and finds PINs sealed under another key', async () => {
    const found = await repository.findByCustomerId('C0A1B2C3E');
    await repository.replacePin(found!.id, found!.pinHash, 'k0');
    expect(await repository.findSealedUnderOtherKeys('k1', 10)).toEqual([{ id: found!.id, pinHash: found!.pinHash }]);
  });
});
