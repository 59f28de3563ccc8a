import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ussd_session_events`: the aggregator's session-end notifications, one per session (a repeated notification is
 * the same row), for operators. What the subscriber typed (`input`, PINs included) has no column.
 */
export class SessionEvents1765100000000 implements MigrationInterface {
  name = 'SessionEvents1765100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ussd_session_events (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_id varchar(100) NOT NULL,
        phone_number varchar(16) NOT NULL,
        service_code varchar(64) NOT NULL,
        network_code varchar(10),
        status varchar(10) NOT NULL,
        duration_ms integer,
        hops_count integer,
        last_app_response varchar(1000),
        error_message varchar(500),
        cost varchar(32),
        reported_date varchar(40),
        -- Whether the notification found the session still open here and closed it.
        session_closed boolean NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_session_events_session_id UNIQUE (session_id),
        CONSTRAINT ck_ussd_session_events_status CHECK (status IN ('Success', 'Incomplete', 'Failed')),
        CONSTRAINT ck_ussd_session_events_counts CHECK (duration_ms >= 0 AND hops_count >= 0)
      )`);
    await runner.query('CREATE INDEX ix_ussd_session_events_status_id ON ussd_session_events (status, id)');
    await runner.query(
      'CREATE INDEX ix_ussd_session_events_phone_id ON ussd_session_events (phone_number, id)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE ussd_session_events');
  }
}
