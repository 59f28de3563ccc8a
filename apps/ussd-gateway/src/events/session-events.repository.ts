import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SessionEndEvent, SessionEventStatus } from './session-event';

/** A kept notification, as operators read it. */
export interface SessionEventRecord extends SessionEndEvent {
  /** Whether the notification found the session open here and closed it. */
  sessionClosed: boolean;
  receivedAt: string;
}

export interface SessionEventPage {
  events: SessionEventRecord[];
  /** Where the next (older) page starts; null on the last page. */
  nextCursor: number | null;
}

export interface SessionEventFilter {
  status?: SessionEventStatus;
  phoneNumber?: string;
  /** Only events older than this one (the id of the last event of the previous page). */
  before?: number;
  limit: number;
}

interface Row {
  id: string;
  session_id: string;
  phone_number: string;
  service_code: string;
  network_code: string | null;
  status: SessionEventStatus;
  duration_ms: number | null;
  hops_count: number | null;
  last_app_response: string | null;
  error_message: string | null;
  cost: string | null;
  reported_date: string | null;
  session_closed: boolean;
  received_at: Date;
}

/**
 * Plain SQL. One row per session and phone number (a notification naming another phone than a session kept here is
 * refused before it gets here; one for a session not kept here cannot take the row of that session's own phone):
 * the aggregator may send a notification again, and the first one stands (a
 * repeated one could only differ by what the aggregator measured later, and the first is what closed the session).
 * Pages go newest first by id, so a page boundary never moves while new notifications arrive.
 */
@Injectable()
export class SessionEventsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Keeps `event`; false when one was already kept for its session and phone number. */
  async record(event: SessionEndEvent, sessionClosed: boolean): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `INSERT INTO ussd_session_events
         (session_id, phone_number, service_code, network_code, status, duration_ms, hops_count, last_app_response,
          error_message, cost, reported_date, session_closed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (session_id, phone_number) DO NOTHING
       RETURNING id`,
      [
        event.sessionId,
        event.phoneNumber,
        event.serviceCode,
        event.networkCode,
        event.status,
        event.durationInMillis,
        event.hopsCount,
        event.lastAppResponse,
        event.errorMessage,
        event.cost,
        event.date,
        sessionClosed,
      ],
    );
    return rows.length === 1;
  }

  async list(filter: SessionEventFilter): Promise<SessionEventPage> {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const where = (condition: (placeholder: string) => string, value: unknown): void => {
      parameters.push(value);
      conditions.push(condition(`$${parameters.length}`));
    };
    if (filter.status !== undefined) where((p) => `status = ${p}`, filter.status);
    if (filter.phoneNumber !== undefined) where((p) => `phone_number = ${p}`, filter.phoneNumber);
    if (filter.before !== undefined) where((p) => `id < ${p}`, filter.before);
    parameters.push(filter.limit + 1);
    const rows: Row[] = await this.dataSource.query(
      `SELECT id, session_id, phone_number, service_code, network_code, status, duration_ms, hops_count,
              last_app_response, error_message, cost, reported_date, session_closed, received_at
         FROM ussd_session_events
        ${conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : ''}
        ORDER BY id DESC
        LIMIT $${parameters.length}`,
      parameters,
    );
    const page = rows.slice(0, filter.limit);
    return {
      events: page.map(toRecord),
      nextCursor: rows.length > filter.limit ? Number(page[page.length - 1]!.id) : null,
    };
  }
}

function toRecord(row: Row): SessionEventRecord {
  return {
    sessionId: row.session_id,
    phoneNumber: row.phone_number,
    serviceCode: row.service_code,
    networkCode: row.network_code,
    status: row.status,
    durationInMillis: row.duration_ms,
    hopsCount: row.hops_count,
    lastAppResponse: row.last_app_response,
    errorMessage: row.error_message,
    cost: row.cost,
    date: row.reported_date,
    sessionClosed: row.session_closed,
    receivedAt: new Date(row.received_at).toISOString(),
  };
}
