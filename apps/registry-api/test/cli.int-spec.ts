import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { createDataSource } from '../src/database/data-source';

// The CLI is a contract with the local stack and the benchmark: exact commands, exact stdout. It runs from dist/,
// as they run it (the workspace is built before the test tiers run).
// Each test starts one or more Node processes; on a loaded machine that alone can pass jest's 5 s default.
jest.setTimeout(60_000);

const CLI = join(__dirname, '..', 'dist', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('registry-api CLI (dist/cli.js)', () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build the workspace first (pnpm run build)`);
    database = await createTestDatabase('registry_cli');
    env = { DATABASE_URL: database.url };
  });

  afterAll(async () => {
    await database?.drop();
  });

  it('migrates, and a second migrate is a no-op', async () => {
    const first = await cli(['migrate'], env);
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(first.stderr).toContain(
      'applied: RegistrySchema1732240000000, TouchUpdatedAt1732240100000, ChangeNotifications1732240200000, ReadingNaturalKey1732240300000',
    );
    const second = await cli(['migrate'], env);
    expect(second).toMatchObject({ code: 0, stdout: '', stderr: 'schema is up to date\n' });
    const dataSource = await createDataSource(database.url, 1).initialize();
    try {
      const rows = await dataSource.query<Array<{ name: string }>>('SELECT name FROM registry_migrations');
      expect(rows.map((row) => row.name)).toEqual([
        'RegistrySchema1732240000000',
        'TouchUpdatedAt1732240100000',
        'ChangeNotifications1732240200000',
        'ReadingNaturalKey1732240300000',
        'RecordChangeNotifications1732240400000',
      ]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('applies every migration exactly once when six migrators start together on a fresh database', async () => {
    // What the init containers of a Deployment's pods do when they start at once.
    const fresh = await createTestDatabase('registry_cli_race');
    try {
      const runs = await Promise.all(
        Array.from({ length: 6 }, () => cli(['migrate'], { DATABASE_URL: fresh.url })),
      );
      expect(runs.map((run) => ({ code: run.code, stdout: run.stdout }))).toEqual(
        Array.from({ length: 6 }, () => ({ code: 0, stdout: '' })),
      );
      expect(runs.map((run) => run.stderr).sort()).toEqual([
        'applied: RegistrySchema1732240000000, TouchUpdatedAt1732240100000, ChangeNotifications1732240200000, ReadingNaturalKey1732240300000, RecordChangeNotifications1732240400000\n',
        ...Array.from({ length: 5 }, () => 'schema is up to date\n'),
      ]);
      const dataSource = await createDataSource(fresh.url, 1).initialize();
      try {
        const rows = await dataSource.query<Array<{ name: string }>>(
          'SELECT name FROM registry_migrations ORDER BY id',
        );
        expect(rows.map((row) => row.name)).toEqual([
          'RegistrySchema1732240000000',
          'TouchUpdatedAt1732240100000',
          'ChangeNotifications1732240200000',
          'ReadingNaturalKey1732240300000',
          'RecordChangeNotifications1732240400000',
        ]);
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('seeds with progress on stderr and nothing on stdout, then refuses to seed again', async () => {
    const seeded = await cli(['seed', '--households', '400', '--seed', '3', '--batch', '150'], env);
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toBe('');
    expect(seeded.stderr).toMatch(/\[#+\] 100% 400\/400 households/);
    expect(seeded.stderr).toContain('seeded 400 households in 5 projects');
    const again = await cli(['seed', '--households', '10'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds households');
    expect((await cli(['refresh'], env)).code).toBe(0);
  }, 60_000);

  it('creates a client printing exactly one JSON line, lists it and revokes it', async () => {
    const created = await cli(['clients', 'create', '--name', 'local dev', '--json'], env);
    expect(created.code).toBe(0);
    const lines = created.stdout.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    const credentials = JSON.parse(lines[0]!) as Record<string, string>;
    expect(Object.keys(credentials)).toEqual(['client_id', 'secret']);
    expect(credentials.client_id).toMatch(/^rc_[0-9a-f]{16}$/);
    expect(credentials.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const human = await cli(['clients', 'create', '--name', 'other'], env);
    expect(human.stdout).toMatch(
      /client_id: +rc_[0-9a-f]{16}\nsecret: +\S{43}\nbearer key: +rc_[0-9a-f]{16}\.\S{43}\n/,
    );

    const listed = await cli(['clients', 'list', '--json'], env);
    const list = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(list.map((client) => client.name)).toEqual(['local dev', 'other']);
    expect(JSON.stringify(list)).not.toContain(credentials.secret);

    expect(await cli(['clients', 'revoke', credentials.client_id!], env)).toMatchObject({ code: 0 });
    expect(await cli(['clients', 'revoke', credentials.client_id!], env)).toMatchObject({ code: 1 });
    const after = JSON.parse((await cli(['clients', 'list', '--json'], env)).stdout) as Array<
      Record<string, unknown>
    >;
    expect(after.find((client) => client.client_id === credentials.client_id)!.revoked_at).toEqual(
      expect.any(String),
    );
  });

  it.each([
    [[], /no command given/],
    [['frobnicate'], /unknown command frobnicate/],
    [['seed'], /--households is required/],
    [['seed', '--households', 'many'], /--households must be a positive integer/],
    [['seed', '--households', '5', '--colour', 'red'], /colour/],
    [['clients', 'create'], /--name is required/],
    [['clients', 'revoke'], /needs a client_id/],
  ])('exits 2 with usage for %j', async (args, message) => {
    const run = await cli(args, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('usage:');
  });

  it('names DATABASE_URL when it is missing, and never prints a password', async () => {
    expect(await cli(['migrate'], {})).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('DATABASE_URL') as string,
    });
    const refused = await cli(['migrate'], {
      DATABASE_URL: 'postgres://someone:hunter2@127.0.0.1:1/nowhere',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain('hunter2');
  });

  it('reads DATABASE_URL from the file DATABASE_URL_FILE names (compose secrets), and refuses both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'registry-cli-'));
    try {
      const file = join(dir, 'database_url');
      writeFileSync(file, `${database.url}\n`);
      expect(await cli(['migrate'], { DATABASE_URL_FILE: file })).toMatchObject({
        code: 0,
        stderr: 'schema is up to date\n',
      });
      const both = await cli(['migrate'], { DATABASE_URL: database.url, DATABASE_URL_FILE: file });
      expect(both.code).toBe(2);
      expect(both.stderr).toMatch(
        /^registry-api: invalid configuration\n {2}- DATABASE_URL: set either DATABASE_URL or DATABASE_URL_FILE, not both\n\nusage:/,
      );
      const absent = await cli(['migrate'], { DATABASE_URL_FILE: join(dir, 'absent') });
      expect(absent.code).toBe(2);
      expect(absent.stderr).toContain(`DATABASE_URL_FILE: cannot read ${join(dir, 'absent')} (ENOENT)`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
