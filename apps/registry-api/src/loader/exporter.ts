import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import {
  constants,
  createWriteStream,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import type { ClientBase } from 'pg';
import { csvField } from './csv-cells';
import { ColumnSpec, ENTITY_FORMATS, EntityName, loadOrder } from './entity-formats';
import { FileFormat } from './load-files';

const day = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;
const decimal = (column: string): string => `trim_scale(${column})::text`;
// Milliseconds as the API prints them, unless the stored value has microseconds: then all six, so nothing is lost.
const instant = (column: string): string =>
  `CASE WHEN extract(microseconds FROM ${column})::bigint % 1000 = 0
        THEN to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        ELSE to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END`;

/** The stored value of a column as the file's text, the form its type parses back to the same value. */
function exportSql(column: ColumnSpec): string {
  if (column.elsewhere) return column.elsewhere.exportSql;
  switch (column.type.kind) {
    case 'id':
    case 'text':
    case 'enum':
      return column.name;
    case 'date':
      return day(column.name);
    case 'timestamp':
      return instant(column.name);
    case 'decimal':
      return decimal(column.name);
    case 'integer':
      return `${column.name}::text`;
    case 'fuels':
      throw new Error(`${column.name}: a list column is stored elsewhere and needs its exportSql`);
  }
}

interface ExportQuery {
  /** Text of each column of the entity's format, in its order. */
  select: string[];
  from: string;
  /** Keyset paging: a unique, indexed column. */
  key: string;
  keyType: 'text' | 'bigint';
}

/**
 * Pages go by the table's `id`: the format's own `id` column, or else (a table keyed by its natural key) the
 * table's bigint identity.
 */
function exportQuery(entity: EntityName): ExportQuery {
  const format = ENTITY_FORMATS[entity];
  const id = format.columns.find((column) => column.name === 'id');
  return {
    select: format.columns.map(exportSql),
    from: `${format.table} t`,
    key: 't.id',
    keyType: id?.sqlType === 'text' ? 'text' : 'bigint',
  };
}

function ndjsonValue(entity: EntityName, column: number, value: string | null): unknown {
  const type = ENTITY_FORMATS[entity].columns[column]!.type;
  if (type.kind === 'fuels') return value === null ? [] : value.split(' + ');
  if (value === null) return null;
  return type.kind === 'decimal' || type.kind === 'integer' ? Number(value) : value;
}

export interface ExportSummary {
  entity: EntityName;
  file: string;
  rows: number;
  /** SHA-256 of the bytes written, hex: what the export manifest states. */
  sha256: string;
  bytes: number;
}

const PAGE = 10_000;

/** The export would have written through a link or over something that is not a file; it wrote nothing. */
export class ExportTargetError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

/** The directory entry at `path` itself (a link is not followed), or undefined when there is none. */
function entryAt(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * What stands at a target name today. Whoever can write to the directory could plant a link there to make the export
 * overwrite a file elsewhere (or create one), with the operator's rights: such a name is refused, not followed.
 */
function targetProblem(file: string): string | undefined {
  const stat = entryAt(file);
  if (stat === undefined) return undefined;
  if (stat.isSymbolicLink())
    return `${file}: a symbolic link; export never writes through one (remove it, or export into another directory)`;
  if (!stat.isFile()) return `${file}: not a regular file; export only replaces files`;
  return undefined;
}

/**
 * What stands at the export directory's name: the files are written into it by name, so a link there (planted by
 * whoever can write to its parent) would have every file written into the link's target. Refused like a link at a
 * file's name; a directory that does not exist yet is made.
 */
function directoryProblem(directory: string): string | undefined {
  const stat = entryAt(directory);
  if (stat === undefined) return undefined;
  if (stat.isSymbolicLink())
    return `${directory}: a symbolic link; export never writes through one (name the directory it points to, or another one)`;
  if (!stat.isDirectory()) return `${directory}: not a directory`;
  return undefined;
}

// A new file only: fails on any existing name, a link included (O_EXCL), and never follows one (O_NOFOLLOW).
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes every entity to `<dir>/<entity>.csv` (or `.ndjson`), in the formats `importFiles` reads, from one
 * consistent snapshot (a read-only REPEATABLE READ transaction), page by page so memory stays flat. Each file is
 * written under a new temporary name and renamed over its target once all are written: rename replaces the
 * directory entry (a link planted after the check included) and never follows it, and a failed export replaces
 * nothing.
 */
export async function exportFiles(
  client: ClientBase,
  directory: string,
  format: FileFormat,
  onFile: (summary: ExportSummary) => void = () => undefined,
  /** Names the caller writes into the directory after the export (the manifest): checked with the data files. */
  alsoWritten: readonly string[] = [],
): Promise<ExportSummary[]> {
  const refused = directoryProblem(directory);
  if (refused !== undefined) throw new ExportTargetError([refused]);
  mkdirSync(directory, { recursive: true });
  const targets = loadOrder().map((entity) => ({ entity, file: join(directory, `${entity}.${format}`) }));
  const names = [...targets.map(({ file }) => file), ...alsoWritten.map((name) => join(directory, name))];
  const problems = names.flatMap((file) => targetProblem(file) ?? []);
  if (problems.length > 0) throw new ExportTargetError(problems);
  const suffix = `${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const written: Array<{ temporary: string; file: string }> = [];
  const summaries: ExportSummary[] = [];
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      for (const { entity, file } of targets) {
        const temporary = join(directory, `.${entity}.${format}.${suffix}`);
        written.push({ temporary, file });
        summaries.push({ ...(await exportEntity(client, temporary, format, entity)), file });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    for (const { temporary, file } of written) renameSync(temporary, file);
  } catch (error) {
    for (const { temporary } of written) rmSync(temporary, { force: true });
    throw error;
  }
  for (const summary of summaries) onFile(summary);
  return summaries;
}

async function exportEntity(
  client: ClientBase,
  file: string,
  format: FileFormat,
  entity: EntityName,
): Promise<ExportSummary> {
  const query = exportQuery(entity);
  const columns = ENTITY_FORMATS[entity].columns.map((column) => column.name);
  const out = createWriteStream(file, { encoding: 'utf8', fd: openSync(file, NEW_FILE, 0o666) });
  const closed = once(out, 'close');
  const digest = createHash('sha256');
  let bytes = 0;
  const write = async (text: string): Promise<void> => {
    digest.update(text, 'utf8');
    bytes += Buffer.byteLength(text, 'utf8');
    if (!out.write(text)) await once(out, 'drain');
  };
  let rows = 0;
  try {
    if (format === 'csv') await write(`${columns.join(',')}\r\n`);
    let after: string = query.keyType === 'text' ? '' : '0';
    for (;;) {
      const { rows: page } = await client.query<{ values: Array<string | null> }>({
        text: `SELECT ${query.key}::text AS key, ARRAY[${query.select.join(', ')}]::text[] AS values
               FROM ${query.from} WHERE ${query.key} > $1::${query.keyType} ORDER BY ${query.key} LIMIT ${PAGE}`,
        values: [after],
      });
      let text = '';
      for (const row of page as Array<{ key: string; values: Array<string | null> }>) {
        if (format === 'csv') text += `${row.values.map(csvField).join(',')}\r\n`;
        else {
          const record: Record<string, unknown> = {};
          row.values.forEach((value, index) => (record[columns[index]!] = ndjsonValue(entity, index, value)));
          text += `${JSON.stringify(record)}\n`;
        }
      }
      if (text !== '') await write(text);
      rows += page.length;
      if (page.length < PAGE) break;
      after = (page[page.length - 1] as unknown as { key: string }).key;
    }
  } finally {
    out.end();
    await closed;
  }
  return { entity, file, rows, sha256: digest.digest('hex'), bytes };
}
