import { FUEL_TYPES } from '@dmrv/contracts';
import type { ColumnSpec } from '../entity-description';

// The column and reference shapes several descriptions share.
export const FUELS = FUEL_TYPES as readonly string[];
export const id = (name: string): ColumnSpec => ({
  name,
  type: { kind: 'id' },
  required: true,
  sqlType: 'text',
});
export const date = (name: string): ColumnSpec => ({
  name,
  type: { kind: 'date' },
  required: true,
  sqlType: 'date',
});
export const fuelType: ColumnSpec = {
  name: 'fuel_type',
  type: { kind: 'enum', values: FUELS },
  required: true,
  sqlType: 'text',
};
export const kilograms = (name: string, positive: boolean): ColumnSpec => ({
  name,
  type: { kind: 'decimal', integerDigits: 9, scale: 3, min: 0, minExclusive: positive },
  required: true,
  sqlType: 'numeric(12,3)',
});
export const household = {
  column: 'household_id',
  entity: 'households',
  table: 'households',
  what: 'household',
} as const;
/** Devices, purchases and deliveries belong to their household's project. */
export const householdProject = {
  join: 'JOIN households h ON h.id = s.household_id',
  columns: [{ column: 'project_id', source: 'h.project_id' }],
};
export const FUEL_ORDER = `ARRAY[${FUELS.map((fuel) => `'${fuel}'`).join(', ')}]`;
