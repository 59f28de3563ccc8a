import { ENTITY_NAMES, EntityFormat, EntityName } from './entity-description';
import { LEDGER_FORMATS } from './entities/ledger-formats';
import { MONITORING_FORMATS } from './entities/monitoring-formats';

export { ENTITY_NAMES } from './entity-description';
export type {
  ColumnSpec,
  EntityFormat,
  EntityName,
  LoadSqlContext,
  MergeStatement,
  RuleBreach,
} from './entity-description';

/** Every entity's description (`entity-description.ts` says what one holds; they are in `entities/`). */
export const ENTITY_FORMATS: Record<EntityName, EntityFormat> = { ...MONITORING_FORMATS, ...LEDGER_FORMATS };
/** Load order: every entity after the entities it references, resolved from the references above. */
export function loadOrder(): EntityName[] {
  const ordered: EntityName[] = [];
  const visit = (name: EntityName, path: EntityName[]): void => {
    if (ordered.includes(name)) return;
    if (path.includes(name))
      throw new Error(`entity references form a cycle: ${[...path, name].join(' → ')}`);
    for (const reference of ENTITY_FORMATS[name].references) {
      if (reference.entity !== name) visit(reference.entity, [...path, name]);
    }
    ordered.push(name);
  };
  for (const name of ENTITY_NAMES) visit(name, []);
  return ordered;
}

/** Staging and key tables are named after the entity; `fuel-readings` → `registry_load_fuel_readings`. */
export function stagingTable(name: EntityName): string {
  return `registry_load_${name.replace(/-/g, '_')}`;
}
