import { MigrationInterface, QueryRunner } from 'typeorm';

const RECORD_TABLES = [
  'projects',
  'households',
  'devices',
  'fuel_consumption',
  'fuel_purchases',
  'fuel_deliveries',
  'credit_blocks',
  'credit_events',
  'emission_reduction_claims',
];

/**
 * `updated_since` is only as good as `updated_at`: a loader that corrects a row and forgets the column would hide the
 * correction from every registry that syncs incrementally. The database stamps it on every UPDATE instead.
 */
export class TouchUpdatedAt1732240100000 implements MigrationInterface {
  name = 'TouchUpdatedAt1732240100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION registry_touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.updated_at := now();
        RETURN NEW;
      END
    $$`);
    for (const table of RECORD_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER ${table}_touch_updated_at BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION registry_touch_updated_at()`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of RECORD_TABLES)
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_touch_updated_at ON ${table}`);
    await queryRunner.query('DROP FUNCTION IF EXISTS registry_touch_updated_at()');
  }
}
