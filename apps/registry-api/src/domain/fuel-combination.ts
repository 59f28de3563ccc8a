import { FUEL_TYPES, FuelType } from '@dmrv/contracts';

export class FuelCombinationError extends Error {}

const BY_LOWER = new Map<string, FuelType>(FUEL_TYPES.map((fuel) => [fuel.toLowerCase(), fuel]));

/** Writes a set of fuels the one way the API reports them: `FUEL_TYPES` order, joined by " + ". */
export function formatCombination(fuels: Iterable<FuelType>): string {
  const set = new Set(fuels);
  return FUEL_TYPES.filter((fuel) => set.has(fuel)).join(' + ');
}

/**
 * Reads a combination the way a person would type it: any order, any case, `+` or `,` between fuels
 * ("biomass+lpg" → "LPG + Biomass"). An unknown fuel is an error, not an empty match.
 */
export function parseCombination(value: string): string {
  const parts = value
    .split(/[+,]/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  if (parts.length === 0) throw new FuelCombinationError('names no fuel');
  const fuels: FuelType[] = [];
  for (const part of parts) {
    const fuel = BY_LOWER.get(part.toLowerCase());
    if (!fuel) throw new FuelCombinationError(`"${part}" is not one of ${FUEL_TYPES.join(', ')}`);
    fuels.push(fuel);
  }
  return formatCombination(fuels);
}

/** True for a combination exactly as `formatCombination` writes it (what a stove-stacking cursor carries). */
export function isCanonicalCombination(value: string): boolean {
  try {
    return parseCombination(value) === value;
  } catch {
    return false;
  }
}
