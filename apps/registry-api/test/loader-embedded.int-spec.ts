import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { runMigrations } from '../src/database/data-source';
import {
  assertCliBuilt,
  cli,
  EXAMPLES,
  exampleWithOneBadRowPerFile,
  ONE_BAD_ROW_PER_FILE_REPORT,
  snapshot,
} from './loader-test-kit';

jest.setTimeout(180_000);

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

/** The data files of an export (its manifest.json names the time of the export, which differs between exports). */
function exportedFiles(directory: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(directory)
      .filter((file) => file !== 'manifest.json')
      .map((file) => [file, readFileSync(join(directory, file), 'utf8')]),
  );
}

// `npm start` runs on PGlite, whose wire server drops the connection on COPY FROM STDIN: the loader stages rows with
// batched INSERTs there instead (detected from version()), behind the same interface. Both paths must store the
// same rows and report the same problems; `--staging insert` runs the fallback on PostgreSQL too.
describe('cli.js import on the embedded PGlite (batched INSERT staging) and with --staging on PostgreSQL', () => {
  let embedded: EmbeddedPostgres;
  let copyDb: TestDatabase;
  let insertDb: TestDatabase;
  const scratch: string[] = [];

  const exportOf = async (url: string): Promise<Record<string, string>> => {
    const directory = mkdtempSync(join(tmpdir(), 'registry-export-'));
    scratch.push(directory);
    expect((await cli(['export', directory, '--quiet'], url)).code).toBe(0);
    return exportedFiles(directory);
  };

  beforeAll(async () => {
    assertCliBuilt();
    embedded = await spawnEmbeddedPostgres();
    [copyDb, insertDb] = await Promise.all([
      createTestDatabase('loader_copy'),
      createTestDatabase('loader_insert'),
    ]);
    for (const url of [embedded.url, copyDb.url, insertDb.url]) await runMigrations(url);
  });

  afterAll(async () => {
    await embedded?.stop();
    await Promise.all([copyDb?.drop(), insertDb?.drop()]);
    for (const directory of scratch) rmSync(directory, { recursive: true, force: true });
  });

  it('loads the examples on PGlite through batched INSERTs, and on PostgreSQL through COPY or, when asked, INSERTs', async () => {
    const onPglite = await cli(['import', EXAMPLES], embedded.url);
    expect(onPglite.code).toBe(0);
    expect(lines(onPglite.stderr).pop()).toMatch(
      /^loaded 35 rows in \d+\.\d s \(staged by batched INSERTs: COPY FROM STDIN is not available\)$/,
    );
    const byCopy = await cli(['import', EXAMPLES], copyDb.url);
    expect(lines(byCopy.stderr).pop()).toMatch(/^loaded 35 rows in \d+\.\d s \(staged by COPY\)$/);
    const byInsert = await cli(['import', EXAMPLES, '--staging', 'insert'], insertDb.url);
    expect(lines(byInsert.stderr).pop()).toMatch(
      /\(staged by batched INSERTs: COPY FROM STDIN is not available\)$/,
    );
    expect(onPglite.stdout).toBe(byCopy.stdout);
    expect(byInsert.stdout).toBe(byCopy.stdout);

    const reference = await exportOf(copyDb.url);
    expect(Object.keys(reference)).toHaveLength(8);
    expect(await exportOf(embedded.url)).toEqual(reference);
    expect(await exportOf(insertDb.url)).toEqual(reference);
  });

  it('reports the same bad rows on PGlite and writes nothing there either', async () => {
    const directory = exampleWithOneBadRowPerFile();
    scratch.push(directory);
    const before = await snapshot(embedded.url);
    const run = await cli(['import', directory, '--quiet'], embedded.url);
    expect({ code: run.code, stdout: run.stdout, stderr: lines(run.stderr) }).toEqual({
      code: 1,
      stdout: '',
      stderr: ONE_BAD_ROW_PER_FILE_REPORT,
    });
    expect(await snapshot(embedded.url)).toEqual(before);
    const again = await cli(['import', directory, '--quiet', '--staging', 'insert'], copyDb.url);
    expect(lines(again.stderr)).toEqual(ONE_BAD_ROW_PER_FILE_REPORT);
  });
});
