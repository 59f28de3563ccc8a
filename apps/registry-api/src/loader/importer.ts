import type { ClientBase } from 'pg';
import { refreshRollups } from '../database/rollups';
import { ENTITY_FORMATS, EntityName, loadOrder, stagingTable } from './entity-formats';
import { FileStager } from './file-stager';
import type { EntityCounts, ImportResult, LoadProblem, LoadProgress } from './import-result';
import { LoadFile } from './load-files';
import { createStagingSql, dropStagingSql, FILES_TABLE } from './load-sql';
import { checkStaged, fetchProblems } from './staged-checks';
import { mergeEntity } from './staged-merge';
import { detectStagingMode, StagingMode } from './staging-sink';

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

/** PostgreSQL ended a statement or the session on one of the timeouts the load set. */
function isLoadTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    code === '25P03' ||
    (code === '57014' && error instanceof Error && error.message.includes('statement timeout'))
  );
}

/** One load's course: its connection, files, options and deadline, and its progress as it goes. */
interface LoadRun {
  client: ClientBase;
  files: LoadFile[];
  options: ImportOptions;
  stagingMode: StagingMode;
  deadline: AbortSignal;
  progress: (progress: LoadProgress) => void;
  elapsedMs: () => number;
}

/** What staging the files found: rows read per entity, and whether a file was refused as not text. */
interface StagedFiles {
  rowsPerEntity: Map<EntityName, number>;
  refused: boolean;
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
  const started = Date.now();
  const run: LoadRun = {
    client,
    files,
    options,
    stagingMode,
    deadline,
    progress: options.onProgress ?? (() => undefined),
    elapsedMs: () => Date.now() - started,
  };
  try {
    return await applyStaged(run, await stageFiles(run));
  } catch (error) {
    if (deadline.aborted || isLoadTimeout(error)) throw new LoadTimeoutError(options.timeoutMs);
    throw error;
  } finally {
    await client.query(dropStagingSql()).catch(() => undefined);
  }
}

/** Reads, validates and stages every file in session temporary tables; nothing of the registry is touched. */
async function stageFiles(run: LoadRun): Promise<StagedFiles> {
  const { client, files, progress, elapsedMs } = run;
  for (const statement of createStagingSql()) await client.query(statement);
  await client.query(
    `INSERT INTO ${FILES_TABLE} (file_no, name) SELECT * FROM unnest($1::int[], $2::text[])`,
    [files.map((_, index) => index), files.map((file) => file.name)],
  );
  const staged: StagedFiles = { rowsPerEntity: new Map(), refused: false };
  for (const [fileNo, file] of files.entries()) {
    const stager = new FileStager(client, run.stagingMode, file, fileNo);
    const reading = (rows: number, done: boolean): void =>
      progress({ stage: 'reading', file: file.name, rows, elapsedMs: elapsedMs(), done });
    reading(0, false);
    await stager.run((rows) => reading(rows, false), run.deadline);
    staged.refused ||= stager.refused;
    reading(stager.rows, true);
    staged.rowsPerEntity.set(file.entity, (staged.rowsPerEntity.get(file.entity) ?? 0) + stager.rows);
  }
  return staged;
}

/** Checks the staged rows and either rolls back with the problems, or merges them and commits. */
async function applyStaged(run: LoadRun, staged: StagedFiles): Promise<ImportResult> {
  const { client, options, stagingMode } = run;
  const entities = loadOrder().filter((entity) => staged.rowsPerEntity.has(entity));
  // Staging tables are temporary: autovacuum never analyzes them, and the checks join them with large tables.
  for (const entity of entities) await client.query(`ANALYZE ${stagingTable(entity)}`);

  run.progress({ stage: 'checking', elapsedMs: run.elapsedMs() });
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${LOAD_LOCK_KEY})`);
    // Rows a refused file did not get to would only show up as references to nothing.
    const totals = await checkStaged(client, entities, { skipChecks: staged.refused });
    if (totals.problems > 0) {
      const problems = await fetchProblems(client, run.files, options.problemLimit, options.onEveryProblem);
      await client.query('ROLLBACK');
      return { ok: false, problemCount: totals.problems, badRows: totals.badRows, problems, stagingMode };
    }
    const counts = await mergeAndCommit(run, entities, staged.rowsPerEntity);
    run.progress({ stage: 'done', elapsedMs: run.elapsedMs() });
    return { ok: true, counts, stagingMode };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Merges entity by entity in load order, refreshes the rollups if anything changed, and commits. */
async function mergeAndCommit(
  run: LoadRun,
  entities: EntityName[],
  rowsPerEntity: Map<EntityName, number>,
): Promise<EntityCounts[]> {
  const { client } = run;
  const counts: EntityCounts[] = [];
  for (const entity of entities) {
    run.progress({ stage: 'merging', entity, elapsedMs: run.elapsedMs() });
    counts.push(await mergeEntity(client, entity, rowsPerEntity.get(entity)!));
  }
  const changed = counts.filter((entry) => entry.inserted + entry.updated > 0);
  if (changed.length > 0) {
    run.progress({ stage: 'refreshing', elapsedMs: run.elapsedMs() });
    await refreshRollups((sql, params) => client.query(sql, params));
  }
  run.deadline.throwIfAborted();
  await client.query('COMMIT');
  for (const entry of changed) await client.query(`ANALYZE ${ENTITY_FORMATS[entry.entity].table}`);
  return counts;
}
