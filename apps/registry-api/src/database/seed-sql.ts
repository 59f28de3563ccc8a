import { BUYERS, COMBINATIONS, SEED_PROJECTS } from './seed-data';

// The seeder's SQL: every row of the registry generated inside PostgreSQL, from the seed data and a seed number.

const sqlText = (value: string): string => `'${value.replace(/'/g, "''")}'`;
const sqlArray = (values: readonly string[]): string => `ARRAY[${values.map(sqlText).join(', ')}]::text[]`;

/**
 * Deterministic uniform number in [0, 1) from a key: a hash of the key and the seed, so any batch can be generated
 * independently of the others and the same seed always yields the same data, at any batch size.
 */
function rnd(keySql: string, seed: number): string {
  return `((hashtextextended(${keySql}, ${seed}) & 9007199254740991)::float8 / 9007199254740992.0)`;
}

type KeyedRandom = (keySql: string) => string;

/** The households of one batch (`$1` to `$2`), their fuels and their devices, as CTEs over `base`. */
function householdCtes(r: KeyedRandom): string {
  const combos = `(VALUES ${COMBINATIONS.map(([cumulative, fuels]) => `(${cumulative}, ${sqlArray(fuels)})`).join(', ')}) AS c(cumulative, fuels)`;
  const projects = SEED_PROJECTS.length;
  const projectRegions = `(VALUES ${SEED_PROJECTS.map((project, index) => `(${index}, ${sqlText(project.id)}, ${sqlArray(project.regions)})`).join(', ')}) AS pr(n, project_id, regions)`;
  return `base AS (
      SELECT g, 'household-' || lpad(g::text, 7, '0') AS id, pr.project_id, (pr.regions)[1 + floor(${r("'r' || g")} * 2)::int] AS region,
             CASE WHEN ${r("'d' || g")} < 0.45 THEN 'low' WHEN ${r("'d' || g")} < 0.8 THEN 'medium' ELSE 'high' END AS density,
             DATE '2023-01-01' + floor(${r("'o' || g")} * 546)::int AS onboarding_date,
             (SELECT fuels FROM ${combos} WHERE c.cumulative > ${r("'c' || g")} ORDER BY c.cumulative LIMIT 1) AS fuels
      FROM generate_series($1::bigint, $2::bigint) g
      JOIN ${projectRegions} ON pr.n = g % ${projects}
    ),
    households_in AS (
      INSERT INTO households (id, project_id, region, density, onboarding_date, updated_at)
      SELECT id, project_id, region, density, onboarding_date, (onboarding_date + 1)::timestamp AT TIME ZONE 'UTC' FROM base ORDER BY g
    ),
    fuels_in AS (
      INSERT INTO household_fuels (household_id, fuel_type) SELECT id, unnest(fuels) FROM base
    ),
    devices_base AS (
      SELECT b.*, ${r("'s' || b.g")} AS rs,
             ((DATE '2024-12-31')::timestamp AT TIME ZONE 'UTC') - (${r("'a' || b.g")} * 200 * interval '1 day') AS candidate
      FROM base b
    ),
    devices_in AS (
      INSERT INTO devices (id, household_id, project_id, status, last_active, updated_at)
      SELECT 'device-' || lpad(g::text, 7, '0'), id, project_id,
             CASE WHEN rs < 0.8 THEN 'active' WHEN rs < 0.92 THEN 'inactive' WHEN rs < 0.97 THEN 'faulty' ELSE 'decommissioned' END,
             date_trunc('second', greatest(candidate, (onboarding_date::timestamp AT TIME ZONE 'UTC') + interval '9 hours')),
             date_trunc('second', greatest(candidate, (onboarding_date::timestamp AT TIME ZONE 'UTC') + interval '9 hours'))
      FROM devices_base ORDER BY g
    )`;
}

/** What is measured of the batch's households (readings, purchases, deliveries), the statement after the CTEs. */
function measurementsSql(r: KeyedRandom): string {
  return `consumption_in AS (
      INSERT INTO fuel_consumption (household_id, device_id, fuel_type, consumed_on, quantity_kg, updated_at)
      SELECT b.id, 'device-' || lpad(b.g::text, 7, '0'), b.fuels[1], d.day,
             round(((CASE b.density WHEN 'low' THEN 120 WHEN 'medium' THEN 95 ELSE 70 END) * (0.7 + 0.6 * ${r('b.id || m::text')}))::numeric, 1),
             (d.day + 1)::timestamp AT TIME ZONE 'UTC'
      FROM base b
      CROSS JOIN LATERAL generate_series(date_trunc('month', b.onboarding_date), DATE '2024-12-01', interval '1 month') m
      CROSS JOIN LATERAL (SELECT greatest(b.onboarding_date, (m + floor(${r("'day' || b.id || m::text")} * 28)::int * interval '1 day')::date) AS day) d
      ORDER BY b.g, m
    ),
    purchases_in AS (
      INSERT INTO fuel_purchases (id, household_id, project_id, fuel_type, amount_kg, purchase_date, updated_at)
      SELECT 'purchase-' || lpad(b.g::text, 7, '0') || '-' || k, b.id, b.project_id, b.fuels[1],
             (ARRAY[6, 13, 25, 50])[1 + floor(${r("'pa' || b.id || k")} * 4)::int]::numeric,
             p.day, (p.day + 1)::timestamp AT TIME ZONE 'UTC'
      FROM base b
      CROSS JOIN LATERAL generate_series(1, 1 + floor(${r("'pk' || b.id")} * 3)::int) k
      CROSS JOIN LATERAL (SELECT b.onboarding_date + floor(${r("'pd' || b.id || k")} * (DATE '2024-12-31' - b.onboarding_date))::int AS day) p
      ORDER BY b.g, k
    )
    INSERT INTO fuel_deliveries (id, household_id, project_id, fuel_type, delivered_quantity_kg, delivery_date, updated_at)
    SELECT 'delivery-' || lpad(b.g::text, 7, '0') || '-' || k, b.id, b.project_id, b.fuels[1],
           round((5 + 45 * ${r("'dq' || b.id || k")})::numeric, 1),
           d.day, (d.day + 1)::timestamp AT TIME ZONE 'UTC'
    FROM base b
    CROSS JOIN LATERAL generate_series(1, 1 + floor(${r("'dk' || b.id")} * 2)::int) k
    CROSS JOIN LATERAL (SELECT b.onboarding_date + floor(${r("'dd' || b.id || k")} * (DATE '2024-12-31' - b.onboarding_date))::int AS day) d
    ORDER BY b.g, k`;
}

/** One statement that generates a batch of households (`$1` to `$2`) and everything recorded of them. */
export function householdBatchSql(seed: number): string {
  const r = (key: string): string => rnd(key, seed);
  return `
    WITH ${householdCtes(r)},
    ${measurementsSql(r)}`;
}

export function creditBlocksSql(): string {
  return `
    WITH claims AS (
      SELECT project_id, period, period_end, floor(reductions * 0.95)::integer AS issuable
      FROM emission_reduction_claims WHERE floor(reductions * 0.95) >= 1
    ),
    blocks AS (
      SELECT c.project_id, c.period, c.period_end, k,
             (c.issuable / nb.n) + CASE WHEN k <= c.issuable % nb.n THEN 1 ELSE 0 END AS quantity
      FROM claims c
      CROSS JOIN LATERAL (SELECT greatest(1, ceil(c.issuable / 100.0))::integer AS n) nb
      CROSS JOIN LATERAL generate_series(1, nb.n) k
    ),
    numbered AS (
      SELECT b.*, sum(quantity) OVER (PARTITION BY project_id ORDER BY period_end, k) AS cumulative FROM blocks b
    )
    INSERT INTO credit_blocks (id, project_id, vintage, serial_start, serial_end, quantity, updated_at)
    SELECT 'credit-' || project_id || '-' || period || '-' || lpad(k::text, 4, '0'), project_id,
           extract(year FROM period_end)::integer,
           substring(project_id FROM '[0-9]+$')::bigint * 1000000000 + cumulative - quantity + 1,
           substring(project_id FROM '[0-9]+$')::bigint * 1000000000 + cumulative,
           quantity, (period_end + 31)::timestamp AT TIME ZONE 'UTC'
    FROM numbered ORDER BY project_id, period_end, k`;
}

export function creditEventsSql(seed: number): string {
  const r = (key: string): string => rnd(key, seed);
  return `
    WITH blocks AS (
      SELECT b.id, b.quantity, b.project_id, p.name AS developer,
             (SELECT max(period_end) FROM emission_reduction_claims c
              WHERE b.id LIKE 'credit-' || c.project_id || '-' || c.period || '-%') + 30 + floor(${r("'i' || b.id")} * 30)::int AS issued_on,
             ${r("'t' || b.id")} AS terminal, ${r("'x' || b.id")} AS transfer,
             (${sqlArray(BUYERS)})[1 + floor(${r("'b' || b.id")} * ${BUYERS.length})::int] AS buyer
      FROM credit_blocks b JOIN projects p ON p.id = b.project_id
    ),
    dated AS (
      SELECT *, issued_on + 1 + floor(transfer * 1000)::int % 60 AS transferred_on,
             issued_on + 61 + floor(terminal * 10000)::int % 120 AS terminal_on
      FROM blocks
    ),
    events AS (
      SELECT id, quantity, project_id, 'issued' AS kind, issued_on AS day, quantity AS moved, NULL AS sender, NULL AS recipient, 1 AS step FROM dated
      UNION ALL
      SELECT id, quantity, project_id, 'transferred', transferred_on,
             greatest(1, floor(quantity * (0.5 + transfer * 0.5 / 0.6)))::integer, developer, buyer, 2
      FROM dated WHERE transfer < 0.6
      UNION ALL
      SELECT id, quantity, project_id, 'retired', terminal_on, quantity, NULL, NULL, 3 FROM dated WHERE terminal < 0.35
      UNION ALL
      SELECT id, quantity, project_id, 'cancelled', terminal_on, quantity, NULL, NULL, 3 FROM dated WHERE terminal >= 0.35 AND terminal < 0.4
    )
    INSERT INTO credit_events (block_id, block_quantity, project_id, kind, event_date, quantity, sender, recipient, updated_at)
    SELECT id, quantity, project_id, kind, day, moved, sender, recipient, (day + 1)::timestamp AT TIME ZONE 'UTC'
    FROM events ORDER BY day, id, step`;
}
