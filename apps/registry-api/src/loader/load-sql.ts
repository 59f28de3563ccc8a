import {
  ENTITY_FORMATS,
  ENTITY_NAMES,
  EntityFormat,
  EntityName,
  MergeStatement,
  stagingTable,
} from './entity-formats';

/**
 * The SQL half of a load. Rows sit in session-local staging tables (one per entity, the registry table's column
 * types plus where each row came from); these statements check them against each other and against the stored
 * registry, then merge them. Checks write into `registry_load_errors` with the file and line of the row at fault,
 * so a reference or ledger problem is reported exactly like a malformed date.
 */
export const FILES_TABLE = 'registry_load_files';
export const ERRORS_TABLE = 'registry_load_errors';

const SOURCE_COLUMNS = ['file_no', 'line', 'bad'];

export function stagingColumns(format: EntityFormat): string[] {
  return [...SOURCE_COLUMNS, ...format.columns.map((column) => column.name)];
}

export function createStagingSql(): string[] {
  const statements = [
    `CREATE TEMP TABLE ${FILES_TABLE} (file_no integer PRIMARY KEY, name text NOT NULL)`,
    `CREATE TEMP TABLE ${ERRORS_TABLE} (file_no integer NOT NULL, line bigint NOT NULL, col_no integer NOT NULL,
       col text NOT NULL, value text NOT NULL, rule text NOT NULL)`,
  ];
  for (const name of ENTITY_NAMES) {
    const format = ENTITY_FORMATS[name];
    const columns = format.columns.map((column) => `${column.name} ${column.sqlType}`).join(', ');
    statements.push(
      `CREATE TEMP TABLE ${stagingTable(name)} (file_no integer NOT NULL, line bigint NOT NULL, bad boolean NOT NULL, ${columns})`,
    );
  }
  return statements;
}

export function dropStagingSql(): string {
  const scratch = ENTITY_NAMES.flatMap((name) => ENTITY_FORMATS[name].merge?.scratchTables ?? []);
  return `DROP TABLE IF EXISTS ${[FILES_TABLE, ERRORS_TABLE, ...ENTITY_NAMES.map(stagingTable), ...scratch].join(', ')}`;
}

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const columnNo = (format: EntityFormat, name: string): number =>
  format.columns.findIndex((column) => column.name === name);

function errorInsert(format: EntityFormat, column: string, select: string): string {
  return `INSERT INTO ${ERRORS_TABLE} (file_no, line, col_no, col, value, rule)
    SELECT file_no, line, ${columnNo(format, column)}, ${quote(column)}, coalesce(value, ''), rule FROM (${select}) problems`;
}

/** A key that appears twice in one load: every repeat is reported, pointing at the first occurrence. */
function duplicateCheck(format: EntityFormat): string {
  const stage = stagingTable(format.name);
  const key = format.key.join(', ');
  const required = (name: string): boolean => format.columns.find((column) => column.name === name)!.required;
  const join = format.key
    .map((column) =>
      required(column) ? `s.${column} = d.${column}` : `s.${column} IS NOT DISTINCT FROM d.${column}`,
    )
    .join(' AND ');
  const shown =
    format.key.length === 1
      ? `s.${format.key[0]}::text`
      : format.key.map((column) => `coalesce(s.${column}::text, '')`).join(` || ', ' || `);
  const column = format.key.length === 1 ? format.key[0]! : format.key.join(', ');
  const select = `
    SELECT r.file_no, r.line, r.shown AS value,
           'duplicate key: the same ' || ${quote(column)} || ' as line ' || r.first_line || ' of ' || f.name AS rule
    FROM (
      SELECT s.file_no, s.line, ${shown} AS shown,
             row_number() OVER w AS n, first_value(s.line) OVER w AS first_line, first_value(s.file_no) OVER w AS first_file
      FROM ${stage} s JOIN (SELECT ${key} FROM ${stage} WHERE ${format.key[0]} IS NOT NULL GROUP BY ${key} HAVING count(*) > 1) d ON ${join}
      WINDOW w AS (PARTITION BY ${format.key.map((name) => `s.${name}`).join(', ')} ORDER BY s.file_no, s.line)
    ) r JOIN ${FILES_TABLE} f ON f.file_no = r.first_file
    WHERE r.n > 1`;
  return `INSERT INTO ${ERRORS_TABLE} (file_no, line, col_no, col, value, rule)
    SELECT file_no, line, ${columnNo(format, format.key[0]!)}, ${quote(column)}, value, rule FROM (${select}) problems`;
}

function referenceChecks(format: EntityFormat): string[] {
  const stage = stagingTable(format.name);
  return format.references.map((reference) => {
    const parentStage = stagingTable(reference.entity);
    return errorInsert(
      format,
      reference.column,
      `SELECT s.file_no, s.line, s.${reference.column} AS value,
              ${quote(`no ${reference.what} with this id, in this load or in the database`)} AS rule
       FROM ${stage} s
       WHERE NOT s.bad AND s.${reference.column} IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM ${parentStage} p WHERE p.id = s.${reference.column})
         AND NOT EXISTS (SELECT 1 FROM ${reference.table} p WHERE p.id = s.${reference.column})`,
    );
  });
}

/** A row as it will be once the load is merged: the good staged rows, and the stored rows the load does not replace. */
function finalRows(name: EntityName, columns: string): string {
  const stage = stagingTable(name);
  const table = ENTITY_FORMATS[name].table;
  return `(SELECT ${columns} FROM ${stage} WHERE NOT bad
           UNION ALL
           SELECT ${columns} FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM ${stage} s WHERE s.id = t.id))`;
}

/** Every check of one entity's staged rows, in the order their problems are most useful to read. */
export function checkSql(name: EntityName): string[] {
  const format = ENTITY_FORMATS[name];
  const context = {
    stage: stagingTable(name),
    problem: (column: string, select: string) => errorInsert(format, column, select),
    finalRows,
  };
  return [duplicateCheck(format), ...referenceChecks(format), ...(format.checks?.(context) ?? [])];
}

/**
 * Updates the stored rows whose values differ (the touch trigger moves `updated_at`, and only there), then inserts
 * the rows that are new. Two statements instead of `ON CONFLICT DO UPDATE` so that a ledger event changing kind
 * is updated before a new event on the same block is inserted, never the other way round.
 */
function upsert(
  name: EntityName,
  columns: Array<{ target: string; source: string }>,
  from: string,
  key: Array<{ target: string; source: string; nullable?: boolean }>,
): MergeStatement[] {
  const table = ENTITY_FORMATS[name].table;
  const stage = stagingTable(name);
  const match = key
    .map(({ target, source, nullable }) =>
      nullable ? `t.${target} IS NOT DISTINCT FROM ${source}` : `t.${target} = ${source}`,
    )
    .join(' AND ');
  const keyTargets = new Set(key.map(({ target }) => target));
  const changing = columns.filter(({ target }) => !keyTargets.has(target));
  return [
    {
      counts: 'updated',
      sql: `UPDATE ${table} t SET ${changing.map(({ target, source }) => `${target} = ${source}`).join(', ')}
            FROM ${stage} s ${from}
            WHERE ${match}
              AND (${changing.map(({ target }) => `t.${target}`).join(', ')}) IS DISTINCT FROM (${changing.map(({ source }) => source).join(', ')})`,
    },
    {
      counts: 'inserted',
      sql: `INSERT INTO ${table} (${columns.map(({ target }) => target).join(', ')})
            SELECT ${columns.map(({ source }) => source).join(', ')} FROM ${stage} s ${from}
            WHERE NOT EXISTS (SELECT 1 FROM ${table} t WHERE ${match})
            ORDER BY s.file_no, s.line`,
    },
  ];
}

/** The statements that merge one entity's staged rows, run in load order inside the load's transaction. */
export function mergeSql(name: EntityName): MergeStatement[] {
  const format = ENTITY_FORMATS[name];
  const stage = stagingTable(name);
  const columns = [
    ...format.columns
      .filter((column) => !column.elsewhere)
      .map((column) => ({ target: column.name, source: `s.${column.name}` })),
    ...(format.derived?.columns ?? []).map(({ column, source }) => ({ target: column, source })),
  ];
  const key = format.key.map((name) => ({
    target: name,
    source: `s.${name}`,
    nullable: !format.columns.find((column) => column.name === name)!.required,
  }));
  return [
    ...(format.merge?.before?.(stage) ?? []),
    ...upsert(name, columns, format.derived?.join ?? '', key),
    ...(format.merge?.after?.(stage) ?? []),
  ];
}
