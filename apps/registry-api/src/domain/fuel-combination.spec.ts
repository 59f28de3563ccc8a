import { formatCombination, FuelCombinationError, parseCombination } from './fuel-combination';

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
});
