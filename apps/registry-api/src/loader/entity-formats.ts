import { FUEL_TYPES } from '@dmrv/contracts';
import { FieldType } from './field-types';

/**
 * The data files `cli.js import` reads and `cli.js export` writes: one format per entity, the same columns in CSV and
 * NDJSON (docs/data-formats.md is the prose of this table). Project ids that follow from a household or a credit
 * block are not columns: the loader takes them from there, so a file cannot contradict itself.
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
      { name: 'fuels', type: { kind: 'fuels' }, required: false, sqlType: 'text[]' },
    ],
  },
  devices: {
    name: 'devices',
    table: 'devices',
    key: ['id'],
    references: [household],
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
    columns: [id('id'), id('household_id'), fuelType, kilograms('amount_kg', true), date('purchase_date')],
  },
  'fuel-deliveries': {
    name: 'fuel-deliveries',
    table: 'fuel_deliveries',
    key: ['id'],
    references: [household],
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
