import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - `ussd_accounts.creation_key`: the idempotency key of the hop that created the account (unique), so a replayed
 *   hop finds the account instead of creating a second one.
 * - `ussd_pin_changes`: one row per PIN change, keyed by the hop that made it, for the same reason.
 * - `ussd_pin_guards`: the PIN attempt counter and lock, per Customer ID *whether or not an account has it* (an
 *   unknown Customer ID must lock exactly like a known one, or the difference tells which ones exist). Attempts are
 *   tickets: `reserved_total` counts every attempt ever reserved, `cleared_through` the last one a right PIN (or a
 *   lock's end) cleared; the attempts that count are those in between. The attempt that takes the last place
 *   locks at once (`lock_pending` until its PIN is found wrong).
 * - `ussd_other_phone_logins`: who logged in to an account from a phone other than the account's, and when.
 *
 * The old counter columns of `ussd_accounts` are copied over and left in place, unread, while instances of the
 * previous version may still run during a rolling deployment; a later migration drops them.
 */
export class IdempotentHopsAndPinGuards1764800000000 implements MigrationInterface {
  name = 'IdempotentHopsAndPinGuards1764800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_accounts ADD COLUMN creation_key varchar(64)');
    await runner.query(
      'ALTER TABLE ussd_accounts ADD CONSTRAINT uq_ussd_accounts_creation_key UNIQUE (creation_key)',
    );
    await runner.query(`
      CREATE TABLE ussd_pin_changes (
        idempotency_key varchar(64) PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES ussd_accounts (id) ON DELETE CASCADE,
        changed_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query('CREATE INDEX ix_ussd_pin_changes_account_id ON ussd_pin_changes (account_id)');
    await runner.query(`
      CREATE TABLE ussd_pin_guards (
        customer_id varchar(9) PRIMARY KEY,
        reserved_total bigint NOT NULL DEFAULT 0,
        cleared_through bigint NOT NULL DEFAULT 0,
        locked_until timestamptz,
        -- The lock was set by the attempt that took the last place (lock_ticket), whose PIN is still being checked
        -- (since locked_at): later attempts wait for its outcome instead of being told "locked" at once.
        lock_pending boolean NOT NULL DEFAULT false,
        lock_ticket bigint,
        locked_at timestamptz,
        last_key varchar(64),
        last_ticket bigint,
        last_position integer,
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT ck_ussd_pin_guards_customer_id CHECK (customer_id ~ '^C[0-9A-F]{8}$'),
        CONSTRAINT ck_ussd_pin_guards_tickets CHECK (cleared_through >= 0 AND cleared_through <= reserved_total)
      )`);
    await runner.query(`
      INSERT INTO ussd_pin_guards (customer_id, reserved_total, cleared_through, locked_until)
      SELECT customer_id, failed_pin_attempts, 0, locked_until FROM ussd_accounts
       WHERE failed_pin_attempts > 0 OR locked_until > now()`);
    await runner.query(`
      CREATE TABLE ussd_other_phone_logins (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES ussd_accounts (id) ON DELETE CASCADE,
        phone_number varchar(16) NOT NULL,
        session_id varchar(100) NOT NULL,
        check_key varchar(64) NOT NULL,
        logged_in_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_other_phone_logins_check_key UNIQUE (check_key)
      )`);
    await runner.query(
      'CREATE INDEX ix_ussd_other_phone_logins_account ON ussd_other_phone_logins (account_id, logged_in_at)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE ussd_other_phone_logins');
    await runner.query('DROP TABLE ussd_pin_guards');
    await runner.query('DROP TABLE ussd_pin_changes');
    await runner.query('ALTER TABLE ussd_accounts DROP COLUMN creation_key');
  }
}
