import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, exampleEnv, TestDatabase } from '@dmrv/testing';
import { AccountsRepository } from './accounts/accounts.repository';
import { PinVault } from './accounts/pin-vault';
import { runCli, USAGE } from './cli';
import { dataSourceOptions, MIGRATIONS } from './database/data-source';

jest.setTimeout(30_000);

function io(env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { env, out: (line: string) => void out.push(line), err: (text: string) => void err.push(text) },
  };
}

describe('cli', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('ussd-cli');
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('migrate applies the migrations once, then reports up to date', async () => {
    const first = io({ DATABASE_URL: database.url });
    await expect(runCli(['migrate'], first.io)).resolves.toBe(0);
    expect(first.out).toEqual([
      `migrations applied: ${MIGRATIONS.map((migration) => new migration().name).join(', ')}`,
    ]);
    const second = io({ DATABASE_URL: database.url });
    await expect(runCli(['migrate'], second.io)).resolves.toBe(0);
    expect(second.out).toEqual(['migrations: up to date']);
  });

  it('applies every migration exactly once when six migrators run together on a fresh database', async () => {
    // What the init containers of a Deployment's pods do when they start at once; each run opens its own connection.
    const fresh = await createTestDatabase('ussd-cli-race');
    try {
      const runs = Array.from({ length: 6 }, () => io({ DATABASE_URL: fresh.url }));
      await expect(Promise.all(runs.map((run) => runCli(['migrate'], run.io)))).resolves.toEqual([
        0, 0, 0, 0, 0, 0,
      ]);
      expect(runs.map((run) => run.err)).toEqual(Array.from({ length: 6 }, () => []));
      const names = MIGRATIONS.map((migration) => new migration().name);
      expect(runs.map((run) => run.out.join('\n')).sort()).toEqual([
        `migrations applied: ${names.join(', ')}`,
        ...Array.from({ length: 5 }, () => 'migrations: up to date'),
      ]);
      const dataSource = new DataSource(dataSourceOptions(fresh.url, 1));
      await dataSource.initialize();
      try {
        const rows = await dataSource.query<Array<{ name: string }>>(
          'SELECT name FROM ussd_migrations ORDER BY id',
        );
        expect(rows.map((row) => row.name)).toEqual(names);
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('names a missing DATABASE_URL, hides passwords of failing connections, and prints usage', async () => {
    const missing = io({});
    await expect(runCli(['migrate'], missing.io)).resolves.toBe(1);
    expect(missing.err.join('')).toContain('DATABASE_URL: is required');
    const refused = io({ DATABASE_URL: 'postgres://someone:hunter2secret@127.0.0.1:1/none' });
    await expect(runCli(['migrate'], refused.io)).resolves.toBe(1);
    expect(refused.err.join('')).not.toContain('hunter2secret');
    const usage = io({});
    await expect(runCli(['frobnicate'], usage.io)).resolves.toBe(2);
    expect(usage.err).toEqual([USAGE]);
  });

  it('rewrap-pins moves PINs sealed under a retired key to the current one', async () => {
    const oldKey = { id: 'k0', key: randomBytes(32) };
    const dataSource = new DataSource(dataSourceOptions(database.url, 1));
    await dataSource.initialize();
    try {
      const repository = new AccountsRepository(dataSource);
      const sealed = await new PinVault(oldKey).seal('24680');
      await repository.create({
        customerId: 'C00000001',
        fullName: 'Old Key',
        email: null,
        phoneNumber: '+254700000009',
        pinHash: sealed,
        pinKeyId: 'k0',
        creationKey: 'cli-test',
      });
      const run = io({
        DATABASE_URL: database.url,
        PIN_ENCRYPTION_KEY: exampleEnv().PIN_ENCRYPTION_KEY,
        PIN_ENCRYPTION_KEY_ID: 'k1',
        PIN_PREVIOUS_KEYS: `k0:${oldKey.key.toString('hex')}`,
      });
      await expect(runCli(['rewrap-pins'], run.io)).resolves.toBe(0);
      expect(run.out).toEqual(['rewrapped 1 PIN(s) under key k1']);
      const row = await repository.findByCustomerId('C00000001');
      expect(row!.pinKeyId).toBe('k1');
      const current = new PinVault({ id: 'k1', key: Buffer.from(exampleEnv().PIN_ENCRYPTION_KEY!, 'hex') });
      await expect(current.verify('24680', row!.pinHash)).resolves.toBe(true);
    } finally {
      await dataSource.destroy();
    }
  });
});
