import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A session's notification is kept per session and phone number: one naming another phone than the session's
 * (sent before the session started here, or after it expired) can no longer take the record of the session's own,
 * which then arrives as a second row instead of being answered "duplicate" and dropped.
 */
export class SessionEventsPerPhone1766700000000 implements MigrationInterface {
  name = 'SessionEventsPerPhone1766700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE ussd_session_events DROP CONSTRAINT uq_ussd_session_events_session_id');
    await runner.query(
      'ALTER TABLE ussd_session_events ADD CONSTRAINT uq_ussd_session_events_session_phone UNIQUE (session_id, phone_number)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE ussd_session_events DROP CONSTRAINT uq_ussd_session_events_session_phone',
    );
    await runner.query(
      'ALTER TABLE ussd_session_events ADD CONSTRAINT uq_ussd_session_events_session_id UNIQUE (session_id)',
    );
  }
}
