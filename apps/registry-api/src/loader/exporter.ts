import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientBase } from 'pg';
import { FUEL_TYPES } from '@dmrv/contracts';
import { ENTITY_FORMATS, EntityName, loadOrder } from './entity-formats';
import { FileFormat } from './load-files';

const FUEL_ORDER = `ARRAY[${FUEL_TYPES.map((fuel) => `'${fuel}'`).join(', ')}]`;
const day = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;
const decimal = (column: string): string => `trim_scale(${column})::text`;
// Milliseconds as the API prints them, unless the stored value has microseconds: then all six, so nothing is lost.
const instant = (column: string): string =>
  `CASE WHEN extract(microseconds FROM ${column})::bigint % 1000 = 0
        THEN to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        ELSE to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END`;

interface ExportQuery {
  /** Text of each column of the entity's format, in its order. */
  select: string[];
  from: string;
  /** Keyset paging: a unique, indexed column. */
  key: string;
  keyType: 'text' | 'bigint';
}

const QUERIES: Record<EntityName, ExportQuery> = {
  projects: {
    select: [
      'id',
      'name',
      'country',
      ...['ncv_tj_per_t', 'fnrb', 'ef_co2_t_per_tj', 'ef_non_co2_t_per_tj'].map(decimal),
    ],
    from: 'projects t',
    key: 't.id',
    keyType: 'text',
  },
  households: {
    select: [
      'id',
      'project_id',
      'region',
      'density',
      day('onboarding_date'),
      `(SELECT string_agg(f.fuel_type, ' + ' ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)) FROM household_fuels f WHERE f.household_id = t.id)`,
    ],
    from: 'households t',
    key: 't.id',
    keyType: 'text',
  },
  devices: {
    select: ['id', 'household_id', 'status', instant('last_active')],
    from: 'devices t',
    key: 't.id',
    keyType: 'text',
  },
  'fuel-readings': {
    select: ['household_id', 'device_id', 'fuel_type', day('consumed_on'), decimal('quantity_kg')],
    from: 'fuel_consumption t',
    key: 't.id',
    keyType: 'bigint',
  },
  'fuel-purchases': {
    select: ['id', 'household_id', 'fuel_type', decimal('amount_kg'), day('purchase_date')],
    from: 'fuel_purchases t',
    key: 't.id',
    keyType: 'text',
  },
  'fuel-deliveries': {
    select: ['id', 'household_id', 'fuel_type', decimal('delivered_quantity_kg'), day('delivery_date')],
    from: 'fuel_deliveries t',
    key: 't.id',
    keyType: 'text',
  },
  'credit-blocks': {
    select: ['id', 'project_id', 'vintage::text', 'serial_start::text', 'serial_end::text', 'quantity::text'],
    from: 'credit_blocks t',
    key: 't.id',
    keyType: 'text',
  },
  'credit-events': {
    select: ['id::text', 'block_id', 'kind', day('event_date'), 'quantity::text', 'sender', 'recipient'],
    from: 'credit_events t',
    key: 't.id',
    keyType: 'bigint',
  },
};

/** RFC 4180: a field is quoted when it holds a comma, a quote or a line break; a quote inside is doubled. */
export function csvField(value: string | null): string {
  if (value === null) return '';
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
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
}

const PAGE = 10_000;

/**
 * Writes every entity to `<dir>/<entity>.csv` (or `.ndjson`), in the formats `importFiles` reads, from one
 * consistent snapshot (a read-only REPEATABLE READ transaction), page by page so memory stays flat.
 */
export async function exportFiles(
  client: ClientBase,
  directory: string,
  format: FileFormat,
  onFile: (summary: ExportSummary) => void = () => undefined,
): Promise<ExportSummary[]> {
  mkdirSync(directory, { recursive: true });
  const summaries: ExportSummary[] = [];
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    for (const entity of loadOrder()) {
      const summary = await exportEntity(client, directory, format, entity);
      summaries.push(summary);
      onFile(summary);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return summaries;
}

async function exportEntity(
  client: ClientBase,
  directory: string,
  format: FileFormat,
  entity: EntityName,
): Promise<ExportSummary> {
  const query = QUERIES[entity];
  const columns = ENTITY_FORMATS[entity].columns.map((column) => column.name);
  const file = join(directory, `${entity}.${format}`);
  const out = createWriteStream(file, { encoding: 'utf8' });
  const closed = once(out, 'close');
  const write = async (text: string): Promise<void> => {
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
  return { entity, file, rows };
}
