import { createReadStream } from 'node:fs';
import type { ClientBase } from 'pg';
import { refreshRollups } from '../database/rollups';
import {
  ColumnSpec,
  ENTITY_FORMATS,
  EntityFormat,
  EntityName,
  loadOrder,
  stagingTable,
} from './entity-formats';
import {
  checkSql,
  createStagingSql,
  dropStagingSql,
  ERRORS_TABLE,
  FILES_TABLE,
  mergeSql,
  stagingColumns,
} from './load-sql';
import { unescapeFormula } from './csv-cells';
import { LoadFile } from './load-files';
import { CsvRecordReader, JsonRecord, NdjsonRecordReader, SourceRecord } from './record-readers';
import { displayValue, RowProblem, validateRow } from './row-validator';
import { detectStagingMode, openStagingSink, StagedRow, StagingMode, StagingSink } from './staging-sink';
import { StrictTextDecoder } from './text-decoding';

export interface LoadProblem {
  file: string;
  line: number;
  column: string;
  value: string;
  rule: string;
}

export interface EntityCounts {
  entity: EntityName;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

export type LoadProgress =
  | { stage: 'reading'; file: string; rows: number; elapsedMs: number; done: boolean }
  | { stage: 'checking' | 'refreshing' | 'done'; elapsedMs: number }
  | { stage: 'merging'; entity: EntityName; elapsedMs: number };

export interface ImportOptions {
  /** How rows reach the staging tables; by default COPY, or batched INSERTs on the embedded PGlite. */
  staging?: StagingMode;
  /** Problems returned in the result (the report printed on the terminal); the total is always exact. */
  problemLimit: number;
  /** Receives every problem, in report order, when a load fails (`--report errors.csv`). */
  onEveryProblem?: (problem: LoadProblem) => void | Promise<void>;
  onProgress?: (progress: LoadProgress) => void;
  /**
   * The longest the load may run: file reads and COPY are abandoned when it passes, and PostgreSQL cancels any
   * statement (a wait for another load's lock included) that runs this long. Nothing is written either way.
   */
  timeoutMs: number;
}

/** The load ran past `timeoutMs`; it wrote nothing. */
export class LoadTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the load ran longer than ${timeoutMs} ms`);
  }
}

/**
 * Every load checks and merges under this transaction-scoped advisory lock, so two loads never check against a
 * registry the other is about to change (two loads of one credit block would otherwise both pass the ledger checks
 * and one end on a unique index). Reading and staging files, which touch no registry table, still run side by side.
 */
export const LOAD_LOCK_KEY = 1919248233;

export type ImportResult =
  | { ok: true; counts: EntityCounts[]; stagingMode: StagingMode }
  | { ok: false; problemCount: number; badRows: number; problems: LoadProblem[]; stagingMode: StagingMode };

// Problems found while reading are kept in memory up to this many, then written to the errors table between two
// COPY segments: a file where every row is bad costs no more memory than a good one.
const PROBLEM_BUFFER = 5000;
const READ_CHUNK = 1024 * 1024;
const PROGRESS_EVERY_ROWS = 8192;

/** The chunks of `source` until `signal` aborts; a read that never completes (a stalled pipe) is not awaited. */
async function* untilAborted<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted]);
      if (next.done) return;
      yield next.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** PostgreSQL ended a statement or the session on one of the timeouts the load set. */
function isLoadTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '25P03' ||
    (code === '57014' && error instanceof Error && error.message.includes('statement timeout'))
  );
}

/** PostgreSQL text holds no NUL: a problem quoting one shows it as ␀. */
const storable = (text: string): string => (text.includes('\0') ? text.replace(/\0/g, '\u2400') : text);

/** A file's rows go through here: parsed, validated, staged; problems buffered for the errors table. */
class FileStager {
  rows = 0;
  /** The file is not text (not UTF-8, or a NUL in it): reading stopped at the line named in the report. */
  refused = false;
  private sink: StagingSink;
  private problems: Array<[number, number, string, string, string]> = [];
  private readonly format: EntityFormat;
  private readonly columnNumbers: Map<string, number>;
  private header: Array<number> | undefined;
  private headerFailed = false;

  constructor(
    private readonly client: ClientBase,
    private readonly mode: StagingMode,
    private readonly file: LoadFile,
    private readonly fileNo: number,
  ) {
    this.format = ENTITY_FORMATS[file.entity];
    this.columnNumbers = new Map(this.format.columns.map((column, index) => [column.name, index]));
    this.sink = this.openSink();
  }

  async run(onRows: (rows: number) => void, signal: AbortSignal): Promise<void> {
    const records: Array<SourceRecord | JsonRecord> = [];
    const reader =
      this.file.format === 'csv'
        ? new CsvRecordReader((record) => records.push(record))
        : new NdjsonRecordReader((record) => records.push(record));
    const decoder = new StrictTextDecoder();
    let reported = 0;
    const stream = createReadStream(this.file.path, { highWaterMark: READ_CHUNK });
    try {
      for await (const chunk of untilAborted(stream as AsyncIterable<Buffer>, signal)) {
        const decoded = decoder.push(chunk);
        if (decoded.ok) reader.push(decoded.text);
        await this.take(records);
        if (!decoded.ok) return await this.refuse(decoded.line, decoded.rule);
        if (this.rows - reported >= PROGRESS_EVERY_ROWS) {
          reported = this.rows;
          onRows(this.rows);
        }
      }
    } catch (error) {
      stream.destroy();
      await this.sink.abort();
      throw error;
    }
    const last = decoder.end();
    if (!last.ok) return await this.refuse(last.line, last.rule);
    reader.end();
    await this.take(records);
    if (this.file.format === 'csv' && this.header === undefined && !this.headerFailed) {
      this.problem(1, '', '', 'the file is empty: a CSV file starts with a header row naming its columns');
    }
    await this.sink.end();
    await this.flushProblems();
    onRows(this.rows);
  }

  private async refuse(line: number, rule: string): Promise<void> {
    this.refused = true;
    this.problem(line, '', '', rule);
    await this.sink.end();
    await this.flushProblems();
  }

  private async take(records: Array<SourceRecord | JsonRecord>): Promise<void> {
    for (const record of records) {
      if (record.error !== undefined) {
        if (this.headerFailed) continue;
        if (this.file.format === 'csv' && this.header === undefined) this.headerFailed = true;
        else this.rows += 1;
        this.problem(record.line, '', '', record.error);
      } else if ('fields' in record) this.csvRecord(record.line, record.fields!);
      else this.jsonRecord(record.line, record.value!);
      if (this.pending) {
        await this.pending;
        this.pending = undefined;
      }
      if (this.problems.length >= PROBLEM_BUFFER) await this.flushProblems(true);
    }
    records.length = 0;
  }

  private csvRecord(line: number, fields: string[]): void {
    if (this.headerFailed) return;
    if (this.header === undefined) {
      this.readHeader(line, fields);
      return;
    }
    this.rows += 1;
    if (fields.length !== this.header.length) {
      this.problem(line, '', '', `has ${fields.length} fields, the header has ${this.header.length}`);
      return;
    }
    const positions = this.header;
    this.stage(
      line,
      validateRow(this.format, line, (_column, index) => {
        const position = positions[index]!;
        return position === -1 ? undefined : unescapeFormula(fields[position]!);
      }),
    );
  }

  private jsonRecord(line: number, value: Record<string, unknown>): void {
    this.rows += 1;
    const unknown = Object.keys(value).filter((key) => !this.columnNumbers.has(key));
    if (unknown.length > 0) {
      for (const key of unknown)
        this.problem(line, key, displayValue(value[key]), this.unknownColumnRule('field'));
      return;
    }
    this.stage(
      line,
      validateRow(this.format, line, (column: ColumnSpec) => value[column.name]),
    );
  }

  private unknownColumnRule(what: string): string {
    return `unknown ${what} (${this.file.entity} has ${this.format.columns.map((column) => column.name).join(', ')})`;
  }

  /** Columns may come in any order; optional ones may be left out. */
  private readHeader(line: number, fields: string[]): void {
    const positions = this.format.columns.map((column) => fields.indexOf(column.name));
    const before = this.problems.length;
    fields.forEach((name, index) => {
      if (!this.columnNumbers.has(name)) this.problem(line, name, name, this.unknownColumnRule('column'));
      else if (fields.indexOf(name) !== index) this.problem(line, name, name, 'column named twice');
    });
    this.format.columns.forEach((column, index) => {
      if (column.required && positions[index] === -1)
        this.problem(line, column.name, '', 'required column missing from the header');
    });
    if (this.problems.length > before) this.headerFailed = true;
    else this.header = positions;
  }

  private stage(line: number, check: ReturnType<typeof validateRow>): void {
    if (check.ok) {
      this.write([this.fileNo, line, false, ...check.values]);
      return;
    }
    for (const problem of check.problems) this.rowProblem(problem);
    // The key of a bad row is staged (and nothing else), so that rows naming it are not reported as naming nothing.
    if (check.key) {
      const row: Array<string | number | boolean | null> = [
        this.fileNo,
        line,
        true,
        ...this.format.columns.map(() => null),
      ];
      row[3 + this.columnNumbers.get(this.format.key[0]!)!] = check.key[0]!;
      this.write(row);
    }
  }

  /** At most one row is staged per record, so at most one write is waiting when take() looks. */
  private pending: Promise<void> | undefined;

  private write(row: StagedRow): void {
    const written = this.sink.write(row);
    if (written) this.pending = written;
  }

  private rowProblem(problem: RowProblem): void {
    this.problem(problem.line, problem.column, problem.value, problem.rule);
  }

  private problem(line: number, column: string, value: string, rule: string): void {
    this.problems.push([
      line,
      column === '' ? -1 : (this.columnNumbers.get(column) ?? -1),
      storable(column),
      storable(value),
      rule,
    ]);
  }

  /** Between two COPY segments the connection is free for the INSERT of the buffered problems. */
  private async flushProblems(reopen = false): Promise<void> {
    if (this.problems.length === 0) return;
    if (reopen) await this.sink.end();
    const batch = this.problems;
    this.problems = [];
    for (let start = 0; start < batch.length; start += 1000) {
      const slice = batch.slice(start, start + 1000);
      const values = slice.map(
        (_, index) =>
          `(${this.fileNo}, $${index * 5 + 1}, $${index * 5 + 2}, $${index * 5 + 3}, $${index * 5 + 4}, $${index * 5 + 5})`,
      );
      await this.client.query(
        `INSERT INTO ${ERRORS_TABLE} (file_no, line, col_no, col, value, rule) VALUES ${values.join(', ')}`,
        slice.flat(),
      );
    }
    if (reopen) this.sink = this.openSink();
  }

  private openSink(): StagingSink {
    return openStagingSink(
      this.mode,
      this.client,
      stagingTable(this.file.entity),
      stagingColumns(this.format),
    );
  }
}

/**
 * The first load into an empty table that declares `bulkLoadKeys` is the bulk case (millions of rows). Every
 * reference was already checked against the staged and stored rows, so, as the seeder does, the keys are dropped
 * for the insert and added back after it, which checks every row again in one join. Only on an empty table: there
 * the ACCESS EXCLUSIVE lock this takes (until commit) blocks no reader that had anything to read, and adding the keys
 * back costs no more than the load itself. Inside the load's transaction, so a failure restores them. Returns the
 * statement that adds them back, if they were dropped.
 */
async function liftKeysWhenEmpty(client: ClientBase, format: EntityFormat): Promise<string | undefined> {
  const keys = format.bulkLoadKeys;
  if (!keys) return undefined;
  const { rows } = await client.query<{ empty: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM ${format.table}) AS empty`,
  );
  if (!rows[0]!.empty) return undefined;
  await client.query(
    `ALTER TABLE ${format.table} ${keys.map(([name]) => `DROP CONSTRAINT ${name}`).join(', ')}`,
  );
  return `ALTER TABLE ${format.table} ${keys.map(([name, definition]) => `ADD CONSTRAINT ${name} ${definition}`).join(', ')}`;
}

async function fetchProblems(
  client: ClientBase,
  files: LoadFile[],
  limit: number,
  onEvery: ImportOptions['onEveryProblem'],
): Promise<LoadProblem[]> {
  const kept: LoadProblem[] = [];
  const page = 5000;
  for (let offset = 0; ; offset += page) {
    if (!onEvery && offset >= limit) break;
    const { rows } = await client.query<{
      file_no: number;
      line: string;
      col: string;
      value: string;
      rule: string;
    }>(
      `SELECT file_no, line, col, value, rule FROM ${ERRORS_TABLE}
       ORDER BY file_no, line, col_no, col, rule, value LIMIT ${page} OFFSET ${offset}`,
    );
    for (const row of rows) {
      const problem: LoadProblem = {
        file: files[row.file_no]!.name,
        line: Number(row.line),
        column: row.col,
        value: row.value,
        rule: row.rule,
      };
      if (kept.length < limit) kept.push(problem);
      if (onEvery) await onEvery(problem);
    }
    if (rows.length < page) break;
  }
  return kept;
}

/**
 * Loads data files into the registry, all or nothing. Every row is read, validated and staged first (session
 * temporary tables, nothing of the registry touched); then one transaction checks the staged rows against each other
 * and the stored data (keys, references, ledger rules), and either rolls back with the report of every problem or
 * merges entity by entity in load order, refreshes the rollups and claims, and commits. Listeners of
 * `registry_rollups` hear of the refresh at commit, like after `cli.js refresh`.
 */
export async function importFiles(
  client: ClientBase,
  files: LoadFile[],
  options: ImportOptions,
): Promise<ImportResult> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  await client.query(`SET statement_timeout = ${options.timeoutMs}`);
  await client.query(`SET idle_in_transaction_session_timeout = ${options.timeoutMs}`);
  const stagingMode = options.staging ?? (await detectStagingMode(client));
  await client.query(dropStagingSql());
  try {
    return await loadStaged(client, files, options, stagingMode, deadline);
  } catch (error) {
    if (deadline.aborted || isLoadTimeout(error)) throw new LoadTimeoutError(options.timeoutMs);
    throw error;
  } finally {
    await client.query(dropStagingSql()).catch(() => undefined);
  }
}

async function loadStaged(
  client: ClientBase,
  files: LoadFile[],
  options: ImportOptions,
  stagingMode: StagingMode,
  deadline: AbortSignal,
): Promise<ImportResult> {
  const started = Date.now();
  const elapsedMs = (): number => Date.now() - started;
  const progress = options.onProgress ?? (() => undefined);
  for (const statement of createStagingSql()) await client.query(statement);
  await client.query(
    `INSERT INTO ${FILES_TABLE} (file_no, name) SELECT * FROM unnest($1::int[], $2::text[])`,
    [files.map((_, index) => index), files.map((file) => file.name)],
  );
  const rowsPerEntity = new Map<EntityName, number>();
  let refused = false;
  for (const [fileNo, file] of files.entries()) {
    const stager = new FileStager(client, stagingMode, file, fileNo);
    progress({ stage: 'reading', file: file.name, rows: 0, elapsedMs: elapsedMs(), done: false });
    await stager.run(
      (rows) => progress({ stage: 'reading', file: file.name, rows, elapsedMs: elapsedMs(), done: false }),
      deadline,
    );
    refused ||= stager.refused;
    progress({ stage: 'reading', file: file.name, rows: stager.rows, elapsedMs: elapsedMs(), done: true });
    rowsPerEntity.set(file.entity, (rowsPerEntity.get(file.entity) ?? 0) + stager.rows);
  }
  const entities = loadOrder().filter((entity) => rowsPerEntity.has(entity));
  // Staging tables are temporary: autovacuum never analyzes them, and the checks join them with large tables.
  for (const entity of entities) await client.query(`ANALYZE ${stagingTable(entity)}`);

  progress({ stage: 'checking', elapsedMs: elapsedMs() });
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${LOAD_LOCK_KEY})`);
    // Rows a refused file did not get to would only show up as references to nothing.
    if (!refused)
      for (const entity of entities) for (const statement of checkSql(entity)) await client.query(statement);
    const { rows: totals } = await client.query<{ problems: string; rows: string }>(
      `SELECT count(*) AS problems, count(DISTINCT (file_no, line)) AS rows FROM ${ERRORS_TABLE}`,
    );
    const problemCount = Number(totals[0]!.problems);
    if (problemCount > 0) {
      const problems = await fetchProblems(client, files, options.problemLimit, options.onEveryProblem);
      await client.query('ROLLBACK');
      return { ok: false, problemCount, badRows: Number(totals[0]!.rows), problems, stagingMode };
    }
    const counts: EntityCounts[] = [];
    for (const entity of entities) {
      progress({ stage: 'merging', entity, elapsedMs: elapsedMs() });
      const entry: EntityCounts = {
        entity,
        rows: rowsPerEntity.get(entity)!,
        inserted: 0,
        updated: 0,
        unchanged: 0,
      };
      const restoreKeys = await liftKeysWhenEmpty(client, ENTITY_FORMATS[entity]);
      for (const statement of mergeSql(entity)) {
        const result = await client.query(statement.sql);
        if (statement.counts) entry[statement.counts] += result.rowCount ?? 0;
      }
      if (restoreKeys) await client.query(restoreKeys);
      entry.unchanged = Math.max(0, entry.rows - entry.inserted - entry.updated);
      counts.push(entry);
    }
    if (counts.some((entry) => entry.inserted + entry.updated > 0)) {
      progress({ stage: 'refreshing', elapsedMs: elapsedMs() });
      await refreshRollups((sql, params) => client.query(sql, params));
    }
    deadline.throwIfAborted();
    await client.query('COMMIT');
    for (const entry of counts) {
      if (entry.inserted + entry.updated > 0)
        await client.query(`ANALYZE ${ENTITY_FORMATS[entry.entity].table}`);
    }
    progress({ stage: 'done', elapsedMs: elapsedMs() });
    return { ok: true, counts, stagingMode };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
