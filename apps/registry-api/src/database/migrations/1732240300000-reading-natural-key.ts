import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A fuel reading has no identifier of its own in the monitoring systems' exports: it is the household's reading of
 * one fuel on one day, from one meter or none. `cli.js import` upserts readings on that natural key, so loading the
 * same export twice never duplicates them; the key needs a unique index for `ON CONFLICT`. It replaces the
 * household index (same leading columns, same INCLUDE), so one household's usage is still an index-only range scan
 * and a bulk load maintains one index on the readings besides the primary key, not two. NULLS NOT DISTINCT: a
 * reading without a meter is as unique as one with.
 */
export class ReadingNaturalKey1732240300000 implements MigrationInterface {
  name = 'ReadingNaturalKey1732240300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE UNIQUE INDEX fuel_consumption_natural_key ON fuel_consumption (household_id, consumed_on, fuel_type, device_id)
       INCLUDE (quantity_kg) NULLS NOT DISTINCT`,
    );
    await queryRunner.query('DROP INDEX fuel_consumption_household_idx');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      'CREATE INDEX fuel_consumption_household_idx ON fuel_consumption (household_id, consumed_on) INCLUDE (quantity_kg)',
    );
    await queryRunner.query('DROP INDEX fuel_consumption_natural_key');
  }
}
