/** Methodology parameters of a project (GS-MMCECD / AMS-II.G style). */
export interface MethodologyParameters {
  /** Net calorific value of the displaced fuel, TJ per tonne. */
  ncvTjPerT: number;
  /** Fraction of non-renewable biomass, 0–1. */
  fnrb: number;
  /** CO2 emission factor, tCO2 per TJ. */
  efCo2TPerTj: number;
  /** Non-CO2 (CH4, N2O) emission factor, tCO2e per TJ. */
  efNonCo2TPerTj: number;
}

/** ER (tCO2e) = fuel (t) × NCV (TJ/t) × (fNRB × EF_CO2 + EF_non-CO2) (tCO2e/TJ); fuel is given in kg. */
export function emissionReductionsTco2e(fuelKg: number, parameters: MethodologyParameters): number {
  return (
    (fuelKg / 1000) *
    parameters.ncvTjPerT *
    (parameters.fnrb * parameters.efCo2TPerTj + parameters.efNonCo2TPerTj)
  );
}

/**
 * The same formula in SQL over `numeric` (exact decimal arithmetic), so stored claims and on-the-fly aggregates
 * agree to the last digit. Credits are whole tonnes: the claim rounds down, never up (conservative).
 */
export function emissionReductionsSql(fuelKg: string, project: string): string {
  return `((${fuelKg}) / 1000.0 * ${project}.ncv_tj_per_t * (${project}.fnrb * ${project}.ef_co2_t_per_tj + ${project}.ef_non_co2_t_per_tj))`;
}
