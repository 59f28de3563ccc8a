import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The service keeps API clients and aggregate answers in memory and drops them when these notifications arrive
 * (apps/registry-api/src/database/change-listener.ts). Triggers rather than application code, so a revocation by
 * hand in psql invalidates as surely as `cli.js clients revoke`. NOTIFY is delivered at commit, never for a
 * transaction that rolls back.
 */
export class ChangeNotifications1732240200000 implements MigrationInterface {
  name = 'ChangeNotifications1732240200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE FUNCTION registry_notify_api_client() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('registry_api_clients', '');
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          PERFORM pg_notify('registry_api_clients', OLD.id);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.id <> OLD.id) THEN
          PERFORM pg_notify('registry_api_clients', NEW.id);
        END IF;
        RETURN NULL;
      END
    $$`);
    await queryRunner.query(
      'CREATE TRIGGER api_clients_notify AFTER INSERT OR UPDATE OR DELETE ON api_clients FOR EACH ROW EXECUTE FUNCTION registry_notify_api_client()',
    );
    await queryRunner.query(
      'CREATE TRIGGER api_clients_notify_truncate AFTER TRUNCATE ON api_clients FOR EACH STATEMENT EXECUTE FUNCTION registry_notify_api_client()',
    );
    // Aggregate answers read the rollups and, for their scope checks and methodology parameters, `projects`: a
    // project added or corrected changes answers without a rollup refresh.
    await queryRunner.query(`CREATE FUNCTION registry_notify_rollup_input() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('registry_rollups', TG_TABLE_NAME);
        RETURN NULL;
      END
    $$`);
    await queryRunner.query(
      'CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects FOR EACH STATEMENT EXECUTE FUNCTION registry_notify_rollup_input()',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TRIGGER IF EXISTS projects_notify ON projects');
    await queryRunner.query('DROP FUNCTION IF EXISTS registry_notify_rollup_input()');
    await queryRunner.query('DROP TRIGGER IF EXISTS api_clients_notify_truncate ON api_clients');
    await queryRunner.query('DROP TRIGGER IF EXISTS api_clients_notify ON api_clients');
    await queryRunner.query('DROP FUNCTION IF EXISTS registry_notify_api_client()');
  }
}
