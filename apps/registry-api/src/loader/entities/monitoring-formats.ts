import { READING_KEYS } from '../../database/reading-keys';
import type { EntityFormat, EntityName } from '../entity-description';
import { date, FUEL_ORDER, fuelType, household, householdProject, id, kilograms } from './columns';

type MonitoringEntity = Extract<
  EntityName,
  'projects' | 'households' | 'devices' | 'fuel-readings' | 'fuel-purchases' | 'fuel-deliveries'
>;

const FUEL_CHANGES = 'registry_load_fuel_changes';

/** The projects, their households and what is measured of them: devices, fuel readings, purchases and deliveries. */
export const MONITORING_FORMATS: Record<MonitoringEntity, EntityFormat> = {
  projects: {
    name: 'projects',
    table: 'projects',
    key: ['id'],
    references: [],
    columns: [
      id('id'),
      { name: 'name', type: { kind: 'text', maxLength: 200 }, required: true, sqlType: 'text' },
      { name: 'country', type: { kind: 'text', maxLength: 100 }, required: true, sqlType: 'text' },
      {
        name: 'ncv_tj_per_t',
        type: { kind: 'decimal', integerDigits: 4, scale: 6, min: 0, minExclusive: true },
        required: true,
        sqlType: 'numeric(10,6)',
      },
      {
        name: 'fnrb',
        type: { kind: 'decimal', integerDigits: 1, scale: 4, min: 0, max: 1 },
        required: true,
        sqlType: 'numeric(5,4)',
      },
      {
        name: 'ef_co2_t_per_tj',
        type: { kind: 'decimal', integerDigits: 6, scale: 4, min: 0 },
        required: true,
        sqlType: 'numeric(10,4)',
      },
      {
        name: 'ef_non_co2_t_per_tj',
        type: { kind: 'decimal', integerDigits: 6, scale: 4, min: 0 },
        required: true,
        sqlType: 'numeric(10,4)',
      },
    ],
  },
  households: {
    name: 'households',
    table: 'households',
    key: ['id'],
    references: [{ column: 'project_id', entity: 'projects', table: 'projects', what: 'project' }],
    columns: [
      id('id'),
      id('project_id'),
      { name: 'region', type: { kind: 'text', maxLength: 100 }, required: true, sqlType: 'text' },
      {
        name: 'density',
        type: { kind: 'enum', values: ['low', 'medium', 'high'] },
        required: true,
        sqlType: 'text',
      },
      date('onboarding_date'),
      {
        name: 'fuels',
        type: { kind: 'fuels' },
        required: false,
        sqlType: 'text[]',
        elsewhere: {
          exportSql: `(SELECT string_agg(f.fuel_type, ' + ' ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)) FROM household_fuels f WHERE f.household_id = t.id)`,
        },
      },
    ],
    merge: {
      scratchTables: [FUEL_CHANGES],
      // Fuels are rows of their own; a household whose set of fuels changed is a changed household.
      before: (stage) => [
        {
          sql: `CREATE TEMP TABLE ${FUEL_CHANGES} AS
                SELECT s.id, s.fuels, EXISTS (SELECT 1 FROM households h WHERE h.id = s.id) AS stored
                FROM ${stage} s WHERE s.fuels IS DISTINCT FROM
                  (SELECT coalesce(array_agg(f.fuel_type ORDER BY array_position(${FUEL_ORDER}, f.fuel_type)), '{}')
                   FROM household_fuels f WHERE f.household_id = s.id)`,
        },
      ],
      after: (stage) => [
        { sql: `DELETE FROM household_fuels f USING ${FUEL_CHANGES} c WHERE f.household_id = c.id` },
        {
          sql: `INSERT INTO household_fuels (household_id, fuel_type) SELECT c.id, unnest(c.fuels) FROM ${FUEL_CHANGES} c`,
        },
        {
          counts: 'updated',
          sql: `UPDATE households h SET updated_at = now() FROM ${FUEL_CHANGES} c
                WHERE h.id = c.id AND c.stored AND h.updated_at <> now()`,
        },
        // Every table whose project follows from the household moves with it.
        ...Object.values(MONITORING_FORMATS)
          .filter((format) => format.derived === householdProject)
          .map((format) => ({
            sql: `UPDATE ${format.table} t SET project_id = h.project_id FROM ${stage} s JOIN households h ON h.id = s.id
                WHERE t.household_id = s.id AND t.project_id <> h.project_id`,
          })),
      ],
    },
  },
  devices: {
    name: 'devices',
    table: 'devices',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [
      id('id'),
      id('household_id'),
      {
        name: 'status',
        type: { kind: 'enum', values: ['active', 'inactive', 'faulty', 'decommissioned'] },
        required: true,
        sqlType: 'text',
      },
      { name: 'last_active', type: { kind: 'timestamp' }, required: true, sqlType: 'timestamptz' },
    ],
  },
  'fuel-readings': {
    name: 'fuel-readings',
    table: 'fuel_consumption',
    key: ['household_id', 'consumed_on', 'fuel_type', 'device_id'],
    references: [household, { column: 'device_id', entity: 'devices', table: 'devices', what: 'device' }],
    bulkLoadKeys: READING_KEYS,
    checks: (sql) => [
      sql.problem(
        'device_id',
        `SELECT s.file_no, s.line, s.device_id AS value,
                'device ' || s.device_id || ' belongs to household ' || d.household_id || ', not to ' || s.household_id AS rule
         FROM ${sql.stage} s JOIN ${sql.finalRows('devices', 'id, household_id')} d ON d.id = s.device_id
         WHERE NOT s.bad AND d.household_id <> s.household_id`,
      ),
    ],
    columns: [
      id('household_id'),
      { ...id('device_id'), required: false },
      fuelType,
      date('consumed_on'),
      kilograms('quantity_kg', false),
    ],
  },
  'fuel-purchases': {
    name: 'fuel-purchases',
    table: 'fuel_purchases',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [id('id'), id('household_id'), fuelType, kilograms('amount_kg', true), date('purchase_date')],
  },
  'fuel-deliveries': {
    name: 'fuel-deliveries',
    table: 'fuel_deliveries',
    key: ['id'],
    references: [household],
    derived: householdProject,
    columns: [
      id('id'),
      id('household_id'),
      fuelType,
      kilograms('delivered_quantity_kg', true),
      date('delivery_date'),
    ],
  },
};
