import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateAccounts1763780000000 implements MigrationInterface {
  name = 'CreateAccounts1763780000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ussd_phones (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        phone_number varchar(16) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_phones_phone_number UNIQUE (phone_number)
      )`);
    await runner.query(`
      CREATE TABLE ussd_accounts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        customer_id varchar(9) NOT NULL,
        full_name varchar(120) NOT NULL,
        email varchar(80),
        phone_id uuid NOT NULL REFERENCES ussd_phones (id) ON DELETE RESTRICT,
        pin_hash text NOT NULL,
        pin_key_id varchar(16) NOT NULL,
        failed_pin_attempts integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_accounts_customer_id UNIQUE (customer_id),
        CONSTRAINT ck_ussd_accounts_customer_id CHECK (customer_id ~ '^C[0-9A-F]{8}$'),
        CONSTRAINT ck_ussd_accounts_failed_pin_attempts CHECK (failed_pin_attempts >= 0)
      )`);
    await runner.query('CREATE INDEX ix_ussd_accounts_phone_id ON ussd_accounts (phone_id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE ussd_accounts');
    await runner.query('DROP TABLE ussd_phones');
  }
}
