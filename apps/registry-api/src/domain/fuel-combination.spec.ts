import {
  formatCombination,
  FuelCombinationError,
  isCanonicalCombination,
  parseCombination,
} from './fuel-combination';

describe('fuel combinations', () => {
  it('writes fuels in the fixed order whatever order they come in', () => {
    expect(formatCombination(['Biomass', 'LPG'])).toBe('LPG + Biomass');
    expect(formatCombination(['Charcoal', 'Electricity', 'LPG'])).toBe('LPG + Electricity + Charcoal');
    expect(formatCombination(['Biomass', 'Biomass'])).toBe('Biomass');
  });

  it.each([
    ['LPG + Biomass', 'LPG + Biomass'],
    ['biomass+lpg', 'LPG + Biomass'],
    ['Biomass, LPG', 'LPG + Biomass'],
    ['  charcoal ', 'Charcoal'],
  ])('reads %j as %j', (input, expected) => {
    expect(parseCombination(input)).toBe(expected);
  });

  it.each(['', ' + ', 'Wood', 'LPG + Coal'])('rejects %j', (input) => {
    expect(() => parseCombination(input)).toThrow(FuelCombinationError);
  });

  it('recognises a combination only as the API writes it', () => {
    expect(isCanonicalCombination('LPG + Biomass')).toBe(true);
    for (const value of ['Biomass + LPG', 'lpg + biomass', 'LPG+Biomass', 'LPG\u0000', '', 'Wood']) {
      expect(isCanonicalCombination(value)).toBe(false);
    }
  });
});
