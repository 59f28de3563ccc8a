import { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables the record endpoints read (see `record-resources.ts`); the service caches answers read from them. */
export const RECORD_TABLES = [
  'devices',
  'credit_events',
  'fuel_purchases',
  'fuel_deliveries',
  'emission_reduction_claims',
  'households',
] as const;

/**
 * The service keeps the most recent record of each selection and the totals of collection first pages in memory
 * and drops those of a table when it changes (apps/registry-api/src/registry/record-answer-cache.ts). Triggers, so a
 * row written in psql invalidates as surely as one the loader writes. Per statement, not per row: a load of a million
 * rows costs one notification, and PostgreSQL folds identical notifications of a transaction into one anyway.
 */
export class RecordChangeNotifications1732240400000 implements MigrationInterface {
  name = 'RecordChangeNotifications1732240400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION registry_notify_record_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('registry_records', TG_TABLE_NAME);
        RETURN NULL;
      END
    $$`);
    for (const table of RECORD_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER ${table}_notify_records AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} ` +
          'FOR EACH STATEMENT EXECUTE FUNCTION registry_notify_record_change()',
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of RECORD_TABLES)
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${table}_notify_records ON ${table}`);
    await queryRunner.query('DROP FUNCTION IF EXISTS registry_notify_record_change()');
  }
}
