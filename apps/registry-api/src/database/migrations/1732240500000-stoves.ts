import { MigrationInterface, QueryRunner } from 'typeorm';

/** Stoves handed to households; the project follows from the household. */
export class Stoves1732240500000 implements MigrationInterface {
  name = 'Stoves1732240500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE stoves (
      id text PRIMARY KEY,
      household_id text NOT NULL REFERENCES households(id),
      project_id text NOT NULL REFERENCES projects(id),
      model text NOT NULL,
      installed_on date NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`);
    await queryRunner.query('CREATE INDEX stoves_household_idx ON stoves (household_id)');
    await queryRunner.query(
      'CREATE TRIGGER stoves_touch_updated_at BEFORE UPDATE ON stoves FOR EACH ROW EXECUTE FUNCTION registry_touch_updated_at()',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE IF EXISTS stoves');
  }
}
