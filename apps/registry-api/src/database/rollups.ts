import { emissionReductionsSql } from '../domain/emission-reductions';
import { ROLLUP_CHANNEL } from './change-listener';

export type SqlRunner = (sql: string, params?: unknown[]) => Promise<unknown>;

export const ROLLUP_VIEWS = [
  'household_counts',
  'household_combinations',
  'fuel_daily',
  'credits_issued_daily',
] as const;

const CLAIM_REDUCTIONS = emissionReductionsSql('q.fuel_kg', 'p');

/**
 * Quarterly emission-reduction claims of every project, from the daily fuel rollup and the project's methodology
 * parameters, for every quarter that has ended. Re-running it updates a claim only when its inputs changed, so
 * `updated_at` (and with it `updated_since`) tells a registry which claims moved.
 */
export const UPSERT_CLAIMS_SQL = `
  INSERT INTO emission_reduction_claims
    (id, project_id, period, period_start, period_end, fuel_kg, ncv_tj_per_t, fnrb, ef_co2_t_per_tj, ef_non_co2_t_per_tj,
     reductions_tco2e, reductions, updated_at)
  SELECT 'claim-' || p.id || '-' || q.period, p.id, q.period, q.period_start, q.period_end, q.fuel_kg,
         p.ncv_tj_per_t, p.fnrb, p.ef_co2_t_per_tj, p.ef_non_co2_t_per_tj,
         round(${CLAIM_REDUCTIONS}, 6), floor(${CLAIM_REDUCTIONS})::integer, now()
  FROM (
    SELECT project_id, period_start, (period_start + interval '3 months' - interval '1 day')::date AS period_end,
           to_char(period_start, 'YYYY') || '-Q' || extract(quarter FROM period_start)::text AS period, fuel_kg
    FROM (
      SELECT project_id, date_trunc('quarter', day)::date AS period_start, sum(fuel_kg) AS fuel_kg
      FROM fuel_daily GROUP BY project_id, date_trunc('quarter', day)
    ) quarters
  ) q
  JOIN projects p ON p.id = q.project_id
  WHERE q.period_end < current_date
  ON CONFLICT (project_id, period) DO UPDATE SET
    fuel_kg = EXCLUDED.fuel_kg, ncv_tj_per_t = EXCLUDED.ncv_tj_per_t, fnrb = EXCLUDED.fnrb,
    ef_co2_t_per_tj = EXCLUDED.ef_co2_t_per_tj, ef_non_co2_t_per_tj = EXCLUDED.ef_non_co2_t_per_tj,
    reductions_tco2e = EXCLUDED.reductions_tco2e, reductions = EXCLUDED.reductions, updated_at = now()
  WHERE (emission_reduction_claims.fuel_kg, emission_reduction_claims.ncv_tj_per_t, emission_reduction_claims.fnrb,
         emission_reduction_claims.ef_co2_t_per_tj, emission_reduction_claims.ef_non_co2_t_per_tj)
    IS DISTINCT FROM (EXCLUDED.fuel_kg, EXCLUDED.ncv_tj_per_t, EXCLUDED.fnrb, EXCLUDED.ef_co2_t_per_tj, EXCLUDED.ef_non_co2_t_per_tj)`;

/** Serving APIs drop their cached aggregate answers on this notification (see change-listener.ts). */
const NOTIFY_ROLLUPS_REFRESHED = `SELECT pg_notify('${ROLLUP_CHANNEL}', 'refresh')`;

/**
 * Brings the rollups and the quarterly claims up to date with the records. CONCURRENTLY keeps the views readable
 * while they refresh, so a loader can run this next to a serving API. A notification follows each view, not only
 * the last: an answer cached from a view refreshed early would otherwise outlive its data by the rest of the run.
 */
export async function refreshRollups(run: SqlRunner): Promise<void> {
  for (const view of ROLLUP_VIEWS) {
    if (view === 'credits_issued_daily') continue;
    await run(`REFRESH MATERIALIZED VIEW CONCURRENTLY ${view}`);
    await run(NOTIFY_ROLLUPS_REFRESHED);
  }
  await run(UPSERT_CLAIMS_SQL);
  await run('REFRESH MATERIALIZED VIEW CONCURRENTLY credits_issued_daily');
  await run(NOTIFY_ROLLUPS_REFRESHED);
}
