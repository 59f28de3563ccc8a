import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ussd_accounts.pin_version`: raised by every PIN change. A signed-in session remembers the version it signed in
 * under and is signed out once it differs (the PIN was changed elsewhere), and a PIN change writes only over the
 * version its old PIN was checked against, so of two changes at once one stands and the other is told so.
 */
export class PinVersion1766700000001 implements MigrationInterface {
  name = 'PinVersion1766700000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_accounts ADD COLUMN pin_version integer NOT NULL DEFAULT 1');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_accounts DROP COLUMN pin_version');
  }
}
