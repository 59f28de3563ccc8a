import { emissionReductionsTco2e } from './emission-reductions';

describe('emission reductions', () => {
  const supamoto = { ncvTjPerT: 0.0156, fnrb: 0.88, efCo2TPerTj: 112, efNonCo2TPerTj: 9.46 };

  it('applies fuel × NCV × (fNRB × EF_CO2 + EF_non-CO2) with fuel in kg', () => {
    // 1 t × 0.0156 TJ/t × (0.88 × 112 + 9.46) tCO2e/TJ = 1.685112 tCO2e
    expect(emissionReductionsTco2e(1000, supamoto)).toBeCloseTo(1.685112, 9);
  });

  it('is linear in fuel and zero without fuel', () => {
    expect(emissionReductionsTco2e(0, supamoto)).toBe(0);
    expect(emissionReductionsTco2e(5000, supamoto)).toBeCloseTo(
      5 * emissionReductionsTco2e(1000, supamoto),
      9,
    );
  });

  it('counts only the non-CO2 part when all biomass is renewable', () => {
    expect(emissionReductionsTco2e(1000, { ...supamoto, fnrb: 0 })).toBeCloseTo(0.0156 * 9.46, 9);
  });
});
