import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The language a subscriber chose, remembered per phone number (`ussd_phones.language`, a phone row is created for a
 * phone that never made an account) and per account (`ussd_accounts.language`, which wins once signed in: a shared
 * handset shows each member their own). NULL: never chosen, the country-code table decides.
 */
export class Languages1765900000000 implements MigrationInterface {
  name = 'Languages1765900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_phones ADD COLUMN language varchar(16)');
    await runner.query('ALTER TABLE ussd_accounts ADD COLUMN language varchar(16)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_accounts DROP COLUMN language');
    await runner.query('ALTER TABLE ussd_phones DROP COLUMN language');
  }
}
