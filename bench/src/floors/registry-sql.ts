/**
 * The SQL the registry API runs for each answer, copied from apps/registry-api/src/registry (repository and record
 * resources) so the floor does the same database work. The benchmark's pre-flight compares the floor's JSON with
 * the service's on every endpoint, so a query that changes on one side only is caught, not silently measured.
 */

export interface RecordSql {
  from: string;
  where?: string;
  dateColumn: string;
  idColumn: string;
  select: string;
  /** `timestamptz` keys are microseconds since the epoch; `date` keys are YYYY-MM-DD. */
  dateType: 'date' | 'timestamptz';
}

const ymd = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;

/** Path (under /v1) of each record resource → how it is read. The `/list` path pages the same resource. */
export const RECORDS: Record<string, RecordSql> = {
  '/devices/status': {
    from: 'devices d',
    dateColumn: 'd.last_active',
    idColumn: 'd.id',
    dateType: 'timestamptz',
    select: 'd.id AS device_id, d.status, d.last_active',
  },
  '/credits/cancelled': {
    from: 'credit_events e',
    where: "e.kind = 'cancelled'",
    dateColumn: 'e.event_date',
    idColumn: 'e.id',
    dateType: 'date',
    select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS cancellation_date`,
  },
  '/credits/transferred': {
    from: 'credit_events e',
    where: "e.kind = 'transferred'",
    dateColumn: 'e.event_date',
    idColumn: 'e.id',
    dateType: 'date',
    select: `e.sender, e.recipient, e.quantity AS amount, ${ymd('e.event_date')} AS transfer_date`,
  },
  '/credits/retired': {
    from: 'credit_events e',
    where: "e.kind = 'retired'",
    dateColumn: 'e.event_date',
    idColumn: 'e.id',
    dateType: 'date',
    select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS retirement_date, e.quantity AS emission_reductions`,
  },
  '/claims/fuel-purchase': {
    from: 'fuel_purchases p',
    dateColumn: 'p.purchase_date',
    idColumn: 'p.id',
    dateType: 'date',
    select: `p.id AS fuel_id, p.amount_kg::float8 AS amount, ${ymd('p.purchase_date')} AS purchase_date`,
  },
  '/claims/fuel-delivery': {
    from: 'fuel_deliveries f',
    dateColumn: 'f.delivery_date',
    idColumn: 'f.id',
    dateType: 'date',
    select: `f.id AS delivery_id, ${ymd('f.delivery_date')} AS delivery_date, f.delivered_quantity_kg::float8 AS delivered_quantity`,
  },
  '/claims/household-onboarding': {
    from: 'households h',
    dateColumn: 'h.onboarding_date',
    idColumn: 'h.id',
    dateType: 'date',
    select: `h.id AS household_id, ${ymd('h.onboarding_date')} AS onboarding_date`,
  },
  '/claims/emission-reduction': {
    from: 'emission_reduction_claims c',
    dateColumn: 'c.period_end',
    idColumn: 'c.id',
    dateType: 'date',
    select: 'c.project_id, c.period, c.reductions',
  },
};

const where = (sql: RecordSql): string => (sql.where ? `WHERE ${sql.where}` : '');

export function latestSql(sql: RecordSql): string {
  return `SELECT ${sql.select} FROM ${sql.from} ${where(sql)} ORDER BY ${sql.dateColumn} DESC, ${sql.idColumn} DESC LIMIT 1`;
}

export function firstPageSql(sql: RecordSql): string {
  const keyDate =
    sql.dateType === 'date'
      ? ymd(sql.dateColumn)
      : `(extract(epoch FROM ${sql.dateColumn}) * 1000000)::bigint::text`;
  return (
    `SELECT ${sql.select}, ${keyDate} AS _key_date, ${sql.idColumn}::text AS _key_id FROM ${sql.from} ${where(sql)} ` +
    `ORDER BY ${sql.dateColumn} ASC, ${sql.idColumn} ASC LIMIT $1`
  );
}

export function countSql(sql: RecordSql): string {
  return `SELECT count(*)::bigint AS total FROM ${sql.from} ${where(sql)}`;
}

export const DENSITY_SQL = `SELECT density, sum(households)::bigint AS households FROM household_counts
  WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
  GROUP BY density`;

export const COMBINATIONS_SQL = `SELECT combination, sum(households)::bigint AS households FROM household_combinations
  WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
  GROUP BY combination ORDER BY households DESC, combination ASC`;

export const FUEL_IN_SCOPE_SQL = `SELECT round(coalesce(sum(fuel_kg), 0), 3)::float8 AS total FROM fuel_daily
  WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
    AND ($3::date IS NULL OR day >= $3::date) AND ($4::date IS NULL OR day <= $4::date)`;

export const CREDITS_ISSUED_SQL = `SELECT coalesce(sum(credits), 0)::bigint AS credits FROM credits_issued_daily
  WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date`;

export const EMISSION_REDUCTIONS_SQL = `SELECT floor(((f.fuel_kg) / 1000.0 * p.ncv_tj_per_t * (p.fnrb * p.ef_co2_t_per_tj + p.ef_non_co2_t_per_tj)))::integer AS reductions
  FROM projects p,
       (SELECT coalesce(sum(fuel_kg), 0) AS fuel_kg FROM fuel_daily WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date) f
  WHERE p.id = $1`;

/** `YYYY-Q#`, `YYYY-MM` or `YYYY` → inclusive dates, as the API reads them. */
export function periodRange(label: string): { start: string; end: string } | null {
  const match = /^(\d{4})(?:-(?:Q([1-4])|(0[1-9]|1[0-2])))?$/.exec(label);
  if (!match) return null;
  const year = Number(match[1]);
  const first = match[2] ? (Number(match[2]) - 1) * 3 + 1 : match[3] ? Number(match[3]) : 1;
  const last = match[2] ? first + 2 : match[3] ? first : 12;
  const pad = (value: number): string => String(value).padStart(2, '0');
  const lastDay = new Date(Date.UTC(year, last, 0)).getUTCDate();
  return { start: `${year}-${pad(first)}-01`, end: `${year}-${pad(last)}-${pad(lastDay)}` };
}
