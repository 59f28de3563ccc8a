import type { CursorKey } from '../domain/cursor';
import type { RecordResource } from './record-resources';

export interface RecordFilters {
  /** Selector parameter → value (only parameters the resource declares). */
  selectors: Record<string, string>;
  projectId?: string;
  /** Inclusive YYYY-MM-DD bounds on the record's date. */
  from?: string;
  to?: string;
  updatedSince?: string;
}

export interface SqlQuery {
  sql: string;
  params: unknown[];
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const KEY_DATE = '_key_date';
const KEY_ID = '_key_id';

function dateBound(resource: RecordResource<unknown>, placeholder: string): string {
  // A date bound on a timestamptz column means midnight UTC, whatever the session's time zone.
  return resource.dateType === 'date'
    ? `${placeholder}::date`
    : `(${placeholder}::date)::timestamp AT TIME ZONE 'UTC'`;
}

function conditions(resource: RecordResource<unknown>, filters: RecordFilters, params: Params): string[] {
  const where: string[] = resource.where ? [resource.where] : [];
  for (const [name, value] of Object.entries(filters.selectors)) {
    const selector = resource.selectors[name];
    if (!selector) throw new Error(`${resource.name} has no selector ${name}`);
    where.push(`${selector.column} = ${params.add(value)}`);
  }
  if (filters.projectId !== undefined)
    where.push(`${resource.projectColumn} = ${params.add(filters.projectId)}`);
  if (filters.from !== undefined)
    where.push(`${resource.dateColumn} >= ${dateBound(resource, params.add(filters.from))}`);
  if (filters.to !== undefined) {
    where.push(
      resource.dateType === 'date'
        ? `${resource.dateColumn} <= ${params.add(filters.to)}::date`
        : `${resource.dateColumn} < ((${params.add(filters.to)}::date + 1)::timestamp AT TIME ZONE 'UTC')`,
    );
  }
  if (filters.updatedSince !== undefined)
    where.push(`${resource.updatedColumn} >= ${params.add(filters.updatedSince)}::timestamptz`);
  return where;
}

function keyColumns(resource: RecordResource<unknown>): string {
  const date =
    resource.dateType === 'date'
      ? `to_char(${resource.dateColumn}, 'YYYY-MM-DD')`
      : // Microseconds, not a JS Date: millisecond cursors would skip or repeat rows that differ below 1 ms.
        `(extract(epoch FROM ${resource.dateColumn}) * 1000000)::bigint::text`;
  return `${date} AS ${KEY_DATE}, ${resource.idColumn}::text AS ${KEY_ID}`;
}

function afterKey(resource: RecordResource<unknown>, key: CursorKey, params: Params): string {
  const date =
    resource.dateType === 'date'
      ? `${params.add(String(key[0]))}::date`
      : `(timestamptz 'epoch' + ${params.add(String(key[0]))}::bigint * interval '1 microsecond')`;
  return `(${resource.dateColumn}, ${resource.idColumn}) > (${date}, ${params.add(String(key[1]))}::${resource.idType})`;
}

function whereClause(where: string[]): string {
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
}

/** The most recent matching record: latest date, ties broken by the highest id. */
export function latestRecordQuery(resource: RecordResource<unknown>, filters: RecordFilters): SqlQuery {
  const params = new Params();
  const where = conditions(resource, filters, params);
  return {
    sql: `SELECT ${resource.select} FROM ${resource.fromClause} ${whereClause(where)} ORDER BY ${resource.dateColumn} DESC, ${resource.idColumn} DESC LIMIT 1`,
    params: params.values,
  };
}

/** One page in ascending (date, id) order, strictly after `after`; fetches one extra row to know if more follow. */
export function recordPageQuery(
  resource: RecordResource<unknown>,
  filters: RecordFilters,
  after: CursorKey | null,
  limit: number,
): SqlQuery {
  const params = new Params();
  const where = conditions(resource, filters, params);
  if (after) where.push(afterKey(resource, after, params));
  return {
    sql:
      `SELECT ${resource.select}, ${keyColumns(resource)} FROM ${resource.fromClause} ${whereClause(where)} ` +
      `ORDER BY ${resource.dateColumn} ASC, ${resource.idColumn} ASC LIMIT ${params.add(limit + 1)}`,
    params: params.values,
  };
}

export function recordCountQuery(resource: RecordResource<unknown>, filters: RecordFilters): SqlQuery {
  const params = new Params();
  const where = conditions(resource, filters, params);
  return {
    sql: `SELECT count(*)::bigint AS total FROM ${resource.fromClause} ${whereClause(where)}`,
    params: params.values,
  };
}

export function rowKey(row: Record<string, unknown>): CursorKey {
  return [row[KEY_DATE] as string, row[KEY_ID] as string];
}
