import { FUEL_TYPES } from '@dmrv/contracts';
import { READING_KEYS } from '../database/seed';
import { FieldType } from './field-types';

/**
 * Each registry table the loader fills, described once: the data file `cli.js import` reads and `cli.js export`
 * writes (the same columns in CSV and NDJSON; docs/data-formats.md is the prose of this table), how a row is
 * checked and how staged rows merge into the table. The importer, the load SQL and the exporter are generic over
 * these descriptions and name no entity. Project ids that follow from a household or a credit block are not
 * columns: the loader takes them from there, so a file cannot contradict itself.
 */
export const ENTITY_NAMES = [
  'projects',
  'households',
  'devices',
  'fuel-readings',
  'fuel-purchases',
  'fuel-deliveries',
  'credit-blocks',
  'credit-events',
] as const;
export type EntityName = (typeof ENTITY_NAMES)[number];

export interface ColumnSpec {
  name: string;
  type: FieldType;
  required: boolean;
  /** Column type of the staging table (the registry table's type). */
  sqlType: string;
  /**
   * A column kept outside the entity's table: the upsert leaves it out, the entity's `merge` statements write it and
   * `exportSql` (over the table as `t`) reads it back as the file's text.
   */
  elsewhere?: { exportSql: string };
}

export interface RuleBreach {
  column: string;
  rule: string;
}

export interface EntityFormat {
  name: EntityName;
  /** The registry table the rows end up in. */
  table: string;
  columns: ColumnSpec[];
  /** The natural key: a row with the key of a stored row updates it. */
  key: string[];
  /** Columns naming a row of another entity, in this load or already in the database. */
  references: Array<{ column: string; entity: EntityName; table: string; what: string }>;
  /** Rules between the columns of one row, checked once every column has parsed. */
  rowRules?: (row: Record<string, string | null>) => RuleBreach[];
  /** Stored columns that follow from another row: `join` (on the staged row `s`) brings it, `source` reads them. */
  derived?: { join: string; columns: Array<{ column: string; source: string }> };
  /** Checks between staged rows and the stored registry, beyond the key and the references. */
  checks?: (sql: LoadSqlContext) => string[];
  /** Statements around the upsert of the staged rows (`stage`); `scratchTables` are the tables they create. */
  merge?: {
    before?: (stage: string) => MergeStatement[];
    after?: (stage: string) => MergeStatement[];
    scratchTables?: string[];
  };
  /**
   * Foreign keys the first load into the empty table drops for its insert and adds back after it (the bulk case,
   * where checking them row by row costs a third of the insert; every reference was checked on the staged rows).
   */
  bulkLoadKeys?: ReadonlyArray<readonly [name: string, definition: string]>;
}

/** What an entity's `checks` build on. */
export interface LoadSqlContext {
  /** The entity's staging table. */
  stage: string;
  /** An INSERT reporting each row of `select` (`file_no, line, value, rule`) as a problem of `column`. */
  problem(column: string, select: string): string;
  /** An entity's rows as they will be once the load is merged: the good staged rows and the stored rows it keeps. */
  finalRows(entity: EntityName, columns: string): string;
}

export interface MergeStatement {
  sql: string;
  /** Rows this statement inserts or updates count as the entity's `inserted` or `updated`. */
  counts?: 'inserted' | 'updated';
}

const FUELS = FUEL_TYPES as readonly string[];
const id = (name: string): ColumnSpec => ({ name, type: { kind: 'id' }, required: true, sqlType: 'text' });
const date = (name: string): ColumnSpec => ({
  name,
  type: { kind: 'date' },
  required: true,
  sqlType: 'date',
});
const fuelType: ColumnSpec = {
  name: 'fuel_type',
  type: { kind: 'enum', values: FUELS },
  required: true,
  sqlType: 'text',
};
const kilograms = (name: string, positive: boolean): ColumnSpec => ({
  name,
  type: { kind: 'decimal', integerDigits: 9, scale: 3, min: 0, minExclusive: positive },
  required: true,
  sqlType: 'numeric(12,3)',
});
const household = {
  column: 'household_id',
  entity: 'households',
  table: 'households',
  what: 'household',
} as const;
/** Devices, purchases and deliveries belong to their household's project. */
const householdProject = {
  join: 'JOIN households h ON h.id = s.household_id',
  columns: [{ column: 'project_id', source: 'h.project_id' }],
};
const FUEL_ORDER = `ARRAY[${FUELS.map((fuel) => `'${fuel}'`).join(', ')}]`;
const FUEL_CHANGES = 'registry_load_fuel_changes';

export const ENTITY_FORMATS: Record<EntityName, EntityFormat> = {
  projects: {
    name: 'projects',
    table: 'projects',
    key: ['id'],
    references: [],
    columns: [
      id('id'),
      { name: 'name', type: { kind: 'text', maxLength: 200 }, required: true, sqlType: 'text' },
      { name: 'country', type: { kind: 'text', maxLength: 100 }, required: true, sqlType: 'text' },
      {
        name: 'ncv_tj_per_t',
        type: { kind: 'decimal', integerDigits: 4, scale: 6, min: 0, minExclusive: true },
        required: true,
        sqlType: 'numeric(10,6)',
      },
      {
        name: 'fnrb',
        type: { kind: 'decimal', integerDigits: 1, scale: 4, min: 0, max: 1 },
        required: true,
        sqlType: 'numeric(5,4)',
      },
      {
        name: 'ef_co2_t_per_tj',
        type: { kind: 'decimal', integerDigits: 6, scale: 4, min: 0 },
        required: true,
        sqlType: 'numeric(10,4)',
      },
      {
        name: 'ef_non_co2_t_per_tj',
        type: { kind: 'decimal', integerDigits: 6, scale: 4, min: 0 },
        required: true,
        sqlType: 'numeric(10,4)',
      },
    ],
  },
  households: {
    name: 'households',
    table: 'households',
    key: ['id'],
    references: [{ column: 'project_id', entity: 'projects', table: 'projects', what: 'project' }],
    columns: [
      id('id'),
      id('project_id'),
      { name: 'region', type: { kind: 'text', maxLength: 100 }, required: true, sqlType: 'text' },
      {
        name: 'density',
        type: { kind: 'enum', values: ['low', 'medium', 'high'] },
        required: true,
        sqlType: 'text',
      },
      date('onboarding_date'),
      {
        name: 'fuels',
        type: { kind: 'fuels' },
        required: false,
        sqlType: 'text[]',
        elsewhere: {
          exportSql: `(SELECT string_agg(f.fuel_type, ' + ' ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)) FROM household_fuels f WHERE f.household_id = t.id)`,
        },
      },
    ],
    merge: {
      scratchTables: [FUEL_CHANGES],
      // Fuels are rows of their own; a household whose set of fuels changed is a changed household.
      before: (stage) => [
        {
          sql: `CREATE TEMP TABLE ${FUEL_CHANGES} AS
                SELECT s.id, s.fuels, EXISTS (SELECT 1 FROM households h WHERE h.id = s.id) AS stored
                FROM ${stage} s WHERE s.fuels IS DISTINCT FROM
                  (SELECT coalesce(array_agg(f.fuel_type ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)), '{}')
                   FROM household_fuels f WHERE f.household_id = s.id)`,
        },
      ],
      after: (stage) => [
        { sql: `DELETE FROM household_fuels f USING ${FUEL_CHANGES} c WHERE f.household_id = c.id` },
        {
          sql: `INSERT INTO household_fuels (household_id, fuel_type) SELECT c.id, unnest(c.fuels) FROM ${FUEL_CHANGES} c`,
        },
        {
          counts: 'updated',
          sql: `UPDATE households h SET updated_at = now() FROM ${FUEL_CHANGES} c
                WHERE h.id = c.id AND c.stored AND h.updated_at <> now()`,
        },
        // Every table whose project follows from the household moves with it.
        ...ENTITY_NAMES.filter((name) => ENTITY_FORMATS[name].derived === householdProject).map((name) => ({
          sql: `UPDATE ${ENTITY_FORMATS[name].table} t SET project_id = h.project_id FROM ${stage} s JOIN households h ON h.id = s.id
                WHERE t.household_id = s.id AND t.project_id <> h.project_id`,
        })),
      ],
    },
  },
  devices: {
    name: 'devices',
    table: 'devices',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [
      id('id'),
      id('household_id'),
      {
        name: 'status',
        type: { kind: 'enum', values: ['active', 'inactive', 'faulty', 'decommissioned'] },
        required: true,
        sqlType: 'text',
      },
      { name: 'last_active', type: { kind: 'timestamp' }, required: true, sqlType: 'timestamptz' },
    ],
  },
  'fuel-readings': {
    name: 'fuel-readings',
    table: 'fuel_consumption',
    key: ['household_id', 'consumed_on', 'fuel_type', 'device_id'],
    references: [household, { column: 'device_id', entity: 'devices', table: 'devices', what: 'device' }],
    bulkLoadKeys: READING_KEYS,
    checks: (sql) => [
      sql.problem(
        'device_id',
        `SELECT s.file_no, s.line, s.device_id AS value,
                'device ' || s.device_id || ' belongs to household ' || d.household_id || ', not to ' || s.household_id AS rule
         FROM ${sql.stage} s JOIN ${sql.finalRows('devices', 'id, household_id')} d ON d.id = s.device_id
         WHERE NOT s.bad AND d.household_id <> s.household_id`,
      ),
    ],
    columns: [
      id('household_id'),
      { ...id('device_id'), required: false },
      fuelType,
      date('consumed_on'),
      kilograms('quantity_kg', false),
    ],
  },
  'fuel-purchases': {
    name: 'fuel-purchases',
    table: 'fuel_purchases',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [id('id'), id('household_id'), fuelType, kilograms('amount_kg', true), date('purchase_date')],
  },
  'fuel-deliveries': {
    name: 'fuel-deliveries',
    table: 'fuel_deliveries',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [
      id('id'),
      id('household_id'),
      fuelType,
      kilograms('delivered_quantity_kg', true),
      date('delivery_date'),
    ],
  },
  'credit-blocks': {
    name: 'credit-blocks',
    table: 'credit_blocks',
    key: ['id'],
    references: [{ column: 'project_id', entity: 'projects', table: 'projects', what: 'project' }],
    columns: [
      id('id'),
      id('project_id'),
      {
        name: 'vintage',
        type: { kind: 'integer', min: 2000, max: 2100 },
        required: true,
        sqlType: 'integer',
      },
      {
        name: 'serial_start',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      {
        name: 'serial_end',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      {
        name: 'quantity',
        type: { kind: 'integer', min: 1, max: 2_147_483_647 },
        required: true,
        sqlType: 'integer',
      },
    ],
    rowRules: (row) => {
      const [start, end, quantity] = [row.serial_start, row.serial_end, row.quantity].map(Number) as [
        number,
        number,
        number,
      ];
      return end - start + 1 === quantity
        ? []
        : [{ column: 'serial_end', rule: `must be serial_start + quantity - 1 (${start + quantity - 1})` }];
    },
    checks: (sql) => [
      sql.problem(
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
           FROM ${sql.finalRows('credit-blocks', 'id, project_id, serial_start, serial_end')} b
           WINDOW w AS (PARTITION BY project_id ORDER BY serial_start, id),
                  before AS (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                  after AS (w ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
         ) o JOIN ${sql.stage} s ON s.id = o.id AND NOT s.bad
         WHERE o.end_before >= o.serial_start OR o.start_after <= o.serial_end`,
      ),
      // Events carry their block's quantity under a composite foreign key (so a CHECK can bound them): a block
      // that already has events keeps its quantity.
      sql.problem(
        'quantity',
        `SELECT s.file_no, s.line, s.quantity::text AS value,
                'cannot change from ' || b.quantity || ': the block has ledger events' AS rule
         FROM ${sql.stage} s JOIN credit_blocks b ON b.id = s.id
         WHERE NOT s.bad AND b.quantity <> s.quantity AND EXISTS (SELECT 1 FROM credit_events e WHERE e.block_id = b.id)`,
      ),
    ],
    merge: {
      after: (stage) => [
        {
          sql: `UPDATE credit_events e SET project_id = s.project_id FROM ${stage} s
                WHERE e.block_id = s.id AND e.project_id <> s.project_id`,
        },
      ],
    },
  },
  'credit-events': {
    name: 'credit-events',
    table: 'credit_events',
    key: ['id'],
    references: [
      { column: 'block_id', entity: 'credit-blocks', table: 'credit_blocks', what: 'credit block' },
    ],
    columns: [
      {
        name: 'id',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      id('block_id'),
      {
        name: 'kind',
        type: { kind: 'enum', values: ['issued', 'transferred', 'retired', 'cancelled'] },
        required: true,
        sqlType: 'text',
      },
      date('event_date'),
      {
        name: 'quantity',
        type: { kind: 'integer', min: 1, max: 2_147_483_647 },
        required: true,
        sqlType: 'integer',
      },
      { name: 'sender', type: { kind: 'text', maxLength: 200 }, required: false, sqlType: 'text' },
      { name: 'recipient', type: { kind: 'text', maxLength: 200 }, required: false, sqlType: 'text' },
    ],
    rowRules: (row) => {
      const problems: RuleBreach[] = [];
      for (const party of ['sender', 'recipient']) {
        if (row.kind === 'transferred' && row[party] === null)
          problems.push({ column: party, rule: 'is required on a transfer' });
        if (row.kind !== 'transferred' && row[party] !== null)
          problems.push({ column: party, rule: 'is only for transfers' });
      }
      return problems;
    },
    derived: {
      join: 'JOIN credit_blocks b ON b.id = s.block_id',
      columns: [
        { column: 'block_quantity', source: 'b.quantity' },
        { column: 'project_id', source: 'b.project_id' },
      ],
    },
    checks: (sql) => {
      const blocks = sql.finalRows('credit-blocks', 'id, quantity');
      const events = sql.finalRows('credit-events', 'id, block_id, kind, event_date');
      return [
        sql.problem(
          'quantity',
          `SELECT s.file_no, s.line, s.quantity::text AS value,
                  CASE WHEN s.kind = 'issued' THEN 'an issuance moves the whole block: ' || b.quantity || ' credits'
                       ELSE 'moves more credits than block ' || s.block_id || ' holds (' || b.quantity || ')' END AS rule
           FROM ${sql.stage} s JOIN ${blocks} b ON b.id = s.block_id
           WHERE NOT s.bad AND (s.quantity > b.quantity OR (s.kind = 'issued' AND s.quantity <> b.quantity))`,
        ),
        sql.problem(
          'kind',
          `SELECT s.file_no, s.line, s.kind AS value, 'block ' || s.block_id || ' is already ' || o.kind || ' by event ' || o.id AS rule
           FROM ${sql.stage} s
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
        sql.problem(
          'event_date',
          `SELECT s.file_no, s.line, to_char(s.event_date, 'YYYY-MM-DD') AS value,
                  'block ' || s.block_id || ' has no issuance on or before this date' AS rule
           FROM ${sql.stage} s JOIN ${blocks} b ON b.id = s.block_id
           LEFT JOIN (SELECT block_id, min(event_date) AS issued_on FROM ${events} e WHERE kind = 'issued' GROUP BY block_id) i
             ON i.block_id = s.block_id
           WHERE NOT s.bad AND s.kind <> 'issued' AND (i.issued_on IS NULL OR i.issued_on > s.event_date)`,
        ),
      ];
    },
    merge: {
      after: () => [
        // Event ids come from the ledger; new events added later through the identity column must not collide.
        {
          sql: `SELECT setval(sequence, m) FROM (
                  SELECT pg_get_serial_sequence('credit_events', 'id')::regclass AS sequence, max(id) AS m FROM credit_events
                ) x WHERE m > coalesce(pg_sequence_last_value(sequence), 0)`,
        },
      ],
    },
  },
};

/** Load order: every entity after the entities it references, resolved from the references above. */
export function loadOrder(): EntityName[] {
  const ordered: EntityName[] = [];
  const visit = (name: EntityName, path: EntityName[]): void => {
    if (ordered.includes(name)) return;
    if (path.includes(name))
      throw new Error(`entity references form a cycle: ${[...path, name].join(' → ')}`);
    for (const reference of ENTITY_FORMATS[name].references) {
      if (reference.entity !== name) visit(reference.entity, [...path, name]);
    }
    ordered.push(name);
  };
  for (const name of ENTITY_NAMES) visit(name, []);
  return ordered;
}

/** Staging and key tables are named after the entity; `fuel-readings` → `registry_load_fuel_readings`. */
export function stagingTable(name: EntityName): string {
  return `registry_load_${name.replace(/-/g, '_')}`;
}
