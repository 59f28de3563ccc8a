import { FUEL_TYPES } from '@dmrv/contracts';
import { ENTITY_FORMATS, ENTITY_NAMES, EntityFormat, EntityName, stagingTable } from './entity-formats';

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
  return `DROP TABLE IF EXISTS ${[FILES_TABLE, ERRORS_TABLE, ...ENTITY_NAMES.map(stagingTable), FUEL_CHANGES].join(', ')}`;
}

const FUEL_CHANGES = 'registry_load_fuel_changes';
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

function entityChecks(format: EntityFormat): string[] {
  const stage = stagingTable(format.name);
  switch (format.name) {
    case 'fuel-readings':
      return [
        errorInsert(
          format,
          'device_id',
          `SELECT s.file_no, s.line, s.device_id AS value,
                  'device ' || s.device_id || ' belongs to household ' || d.household_id || ', not to ' || s.household_id AS rule
           FROM ${stage} s JOIN ${finalRows('devices', 'id, household_id')} d ON d.id = s.device_id
           WHERE NOT s.bad AND d.household_id <> s.household_id`,
        ),
      ];
    case 'credit-blocks':
      return [
        errorInsert(
          format,
          'serial_start',
          `SELECT s.file_no, s.line, s.serial_start::text AS value,
                  'serials ' || s.serial_start || '-' || s.serial_end || ' overlap those of ' ||
                  CASE WHEN o.end_before >= o.serial_start AND o.prev_end >= o.serial_start THEN 'block ' || o.prev_id
                       WHEN o.start_after <= o.serial_end AND o.next_start <= o.serial_end THEN 'block ' || o.next_id
                       ELSE 'another block' END || ' of project ' || s.project_id AS rule
           FROM (
             SELECT b.*, max(serial_end) OVER before AS end_before, min(serial_start) OVER after AS start_after,
                    lag(id) OVER w AS prev_id, lag(serial_end) OVER w AS prev_end,
                    lead(id) OVER w AS next_id, lead(serial_start) OVER w AS next_start
             FROM ${finalRows('credit-blocks', 'id, project_id, serial_start, serial_end')} b
             WINDOW w AS (PARTITION BY project_id ORDER BY serial_start, id),
                    before AS (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                    after AS (w ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
           ) o JOIN ${stage} s ON s.id = o.id AND NOT s.bad
           WHERE o.end_before >= o.serial_start OR o.start_after <= o.serial_end`,
        ),
        // Events carry their block's quantity under a composite foreign key (so a CHECK can bound them): a block
        // that already has events keeps its quantity.
        errorInsert(
          format,
          'quantity',
          `SELECT s.file_no, s.line, s.quantity::text AS value,
                  'cannot change from ' || b.quantity || ': the block has ledger events' AS rule
           FROM ${stage} s JOIN credit_blocks b ON b.id = s.id
           WHERE NOT s.bad AND b.quantity <> s.quantity AND EXISTS (SELECT 1 FROM credit_events e WHERE e.block_id = b.id)`,
        ),
      ];
    case 'credit-events': {
      const blocks = finalRows('credit-blocks', 'id, quantity');
      const events = finalRows('credit-events', 'id, block_id, kind, event_date');
      return [
        errorInsert(
          format,
          'quantity',
          `SELECT s.file_no, s.line, s.quantity::text AS value,
                  CASE WHEN s.kind = 'issued' THEN 'an issuance moves the whole block: ' || b.quantity || ' credits'
                       ELSE 'moves more credits than block ' || s.block_id || ' holds (' || b.quantity || ')' END AS rule
           FROM ${stage} s JOIN ${blocks} b ON b.id = s.block_id
           WHERE NOT s.bad AND (s.quantity > b.quantity OR (s.kind = 'issued' AND s.quantity <> b.quantity))`,
        ),
        errorInsert(
          format,
          'kind',
          `SELECT s.file_no, s.line, s.kind AS value, 'block ' || s.block_id || ' is already ' || o.kind || ' by event ' || o.id AS rule
           FROM ${stage} s
           JOIN (
             SELECT block_id, kind = 'issued' AS issuance, array_agg(id ORDER BY id) AS ids, array_agg(kind ORDER BY id) AS kinds
             FROM ${events} e WHERE kind <> 'transferred'
             GROUP BY block_id, kind = 'issued' HAVING count(*) > 1
           ) g ON g.block_id = s.block_id AND g.issuance = (s.kind = 'issued')
           CROSS JOIN LATERAL (
             SELECT g.ids[i] AS id, g.kinds[i] AS kind FROM generate_subscripts(g.ids, 1) i WHERE g.ids[i] <> s.id ORDER BY i LIMIT 1
           ) o
           WHERE NOT s.bad AND s.kind <> 'transferred'`,
        ),
        errorInsert(
          format,
          'event_date',
          `SELECT s.file_no, s.line, to_char(s.event_date, 'YYYY-MM-DD') AS value,
                  'block ' || s.block_id || ' has no issuance on or before this date' AS rule
           FROM ${stage} s JOIN ${blocks} b ON b.id = s.block_id
           LEFT JOIN (SELECT block_id, min(event_date) AS issued_on FROM ${events} e WHERE kind = 'issued' GROUP BY block_id) i
             ON i.block_id = s.block_id
           WHERE NOT s.bad AND s.kind <> 'issued' AND (i.issued_on IS NULL OR i.issued_on > s.event_date)`,
        ),
      ];
    }
    case 'projects':
    case 'households':
    case 'devices':
    case 'fuel-purchases':
    case 'fuel-deliveries':
      return [];
  }
}

/** Every check of one entity's staged rows, in the order their problems are most useful to read. */
export function checkSql(name: EntityName): string[] {
  const format = ENTITY_FORMATS[name];
  return [duplicateCheck(format), ...referenceChecks(format), ...entityChecks(format)];
}

export interface MergeStatement {
  sql: string;
  /** Rows this statement inserts or updates count as the entity's `inserted` or `updated`. */
  counts?: 'inserted' | 'updated';
}

const FUEL_ORDER = `ARRAY[${FUEL_TYPES.map(quote).join(', ')}]`;

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

const same = (...names: string[]): Array<{ target: string; source: string }> =>
  names.map((name) => ({ target: name, source: `s.${name}` }));
const byId = [{ target: 'id', source: 's.id' }];

/** The statements that merge one entity's staged rows, run in load order inside the load's transaction. */
export function mergeSql(name: EntityName): MergeStatement[] {
  const stage = stagingTable(name);
  const household = 'JOIN households h ON h.id = s.household_id';
  switch (name) {
    case 'projects':
      return upsert(
        name,
        same('id', 'name', 'country', 'ncv_tj_per_t', 'fnrb', 'ef_co2_t_per_tj', 'ef_non_co2_t_per_tj'),
        '',
        byId,
      );
    case 'households': {
      const storedFuels = `(SELECT coalesce(array_agg(f.fuel_type ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)), '{}')
                            FROM household_fuels f WHERE f.household_id = s.id)`;
      return [
        // Fuels are rows of their own; a household whose set of fuels changed is a changed household.
        {
          sql: `CREATE TEMP TABLE ${FUEL_CHANGES} AS
                SELECT s.id, s.fuels, EXISTS (SELECT 1 FROM households h WHERE h.id = s.id) AS stored
                FROM ${stage} s WHERE s.fuels IS DISTINCT FROM ${storedFuels}`,
        },
        ...upsert(name, same('id', 'project_id', 'region', 'density', 'onboarding_date'), '', byId),
        { sql: `DELETE FROM household_fuels f USING ${FUEL_CHANGES} c WHERE f.household_id = c.id` },
        {
          sql: `INSERT INTO household_fuels (household_id, fuel_type) SELECT c.id, unnest(c.fuels) FROM ${FUEL_CHANGES} c`,
        },
        {
          counts: 'updated',
          sql: `UPDATE households h SET updated_at = now() FROM ${FUEL_CHANGES} c
                WHERE h.id = c.id AND c.stored AND h.updated_at <> now()`,
        },
        // Devices, purchases and deliveries belong to their household's project.
        ...['devices', 'fuel_purchases', 'fuel_deliveries'].map((table) => ({
          sql: `UPDATE ${table} t SET project_id = h.project_id FROM ${stage} s JOIN households h ON h.id = s.id
                WHERE t.household_id = s.id AND t.project_id <> h.project_id`,
        })),
      ];
    }
    case 'devices':
      return upsert(
        name,
        [
          ...same('id', 'household_id', 'status', 'last_active'),
          { target: 'project_id', source: 'h.project_id' },
        ],
        household,
        byId,
      );
    case 'fuel-readings':
      return upsert(name, same('household_id', 'device_id', 'fuel_type', 'consumed_on', 'quantity_kg'), '', [
        { target: 'household_id', source: 's.household_id' },
        { target: 'consumed_on', source: 's.consumed_on' },
        { target: 'fuel_type', source: 's.fuel_type' },
        { target: 'device_id', source: 's.device_id', nullable: true },
      ]);
    case 'fuel-purchases':
      return upsert(
        name,
        [
          ...same('id', 'household_id', 'fuel_type', 'amount_kg', 'purchase_date'),
          { target: 'project_id', source: 'h.project_id' },
        ],
        household,
        byId,
      );
    case 'fuel-deliveries':
      return upsert(
        name,
        [
          ...same('id', 'household_id', 'fuel_type', 'delivered_quantity_kg', 'delivery_date'),
          { target: 'project_id', source: 'h.project_id' },
        ],
        household,
        byId,
      );
    case 'credit-blocks':
      return [
        ...upsert(
          name,
          same('id', 'project_id', 'vintage', 'serial_start', 'serial_end', 'quantity'),
          '',
          byId,
        ),
        {
          sql: `UPDATE credit_events e SET project_id = s.project_id FROM ${stage} s
                WHERE e.block_id = s.id AND e.project_id <> s.project_id`,
        },
      ];
    case 'credit-events':
      return [
        ...upsert(
          name,
          [
            ...same('id', 'block_id', 'kind', 'event_date', 'quantity', 'sender', 'recipient'),
            { target: 'block_quantity', source: 'b.quantity' },
            { target: 'project_id', source: 'b.project_id' },
          ],
          'JOIN credit_blocks b ON b.id = s.block_id',
          byId,
        ),
        // Event ids come from the ledger; new events added later through the identity column must not collide.
        {
          sql: `SELECT setval(sequence, m) FROM (
                  SELECT pg_get_serial_sequence('credit_events', 'id')::regclass AS sequence, max(id) AS m FROM credit_events
                ) x WHERE m > coalesce(pg_sequence_last_value(sequence), 0)`,
        },
      ];
  }
}
