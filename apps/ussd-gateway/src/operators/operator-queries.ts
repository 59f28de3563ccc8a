import { InvalidInputError } from '@dmrv/errors';
import type { ListQuery } from '../orders/orders.repository';

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;
const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d))?$/;
export const DATE_MESSAGE = 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone';

/** The day as written exists: JavaScript would roll 2026-02-30 (bare or with a time) over to March. */
function dayExists(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An opaque position: the last id of a page, so the next page starts below it whatever is added meanwhile. */
export const cursorOf = (id: number): string => Buffer.from(`v1:${id}`).toString('base64url');

/** The id of a cursor this service gave out, or null. */
export function idOfCursor(cursor: string): number | null {
  const match = /^v1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match && Buffer.from(`v1:${match[1]}`).toString('base64url') === cursor ? Number(match[1]) : null;
}

/** `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with a zone, of a day that exists; null otherwise. */
export function dateOf(value: string): Date | null {
  const written = DATE.exec(value);
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (!written || !dayExists(Number(written[1]), Number(written[2]), Number(written[3]))) return null;
  return Number.isNaN(date.getTime()) ? null : date;
}

/** `limit` as written: 1 to LIST_LIMIT_MAX, digits only. */
export const isListLimit = (value: string): boolean =>
  /^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= LIST_LIMIT_MAX;

/** What a list endpoint's query says, each parameter already checked one by one (RecordListQuery). */
export interface WrittenListQuery<S extends string> {
  status?: S;
  phone?: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: string;
}

/** The filter of a checked query; a bare date as `to` includes that whole day. Refuses `from` not before `to`. */
export function listQueryOf<S extends string>(written: WrittenListQuery<S>): ListQuery<S> {
  const query: ListQuery<S> = {
    limit: written.limit === undefined ? LIST_LIMIT_DEFAULT : Number(written.limit),
  };
  if (written.status !== undefined) query.status = written.status;
  if (written.phone !== undefined) query.phoneNumber = written.phone;
  if (written.from !== undefined) query.from = dateOf(written.from)!;
  if (written.to !== undefined) {
    const to = dateOf(written.to)!;
    query.to = written.to.length === 10 ? new Date(to.getTime() + 24 * 3600 * 1000) : to;
  }
  if (query.from && query.to && query.from >= query.to) throw new InvalidInputError('from must be before to');
  if (written.cursor !== undefined) query.before = idOfCursor(written.cursor)!;
  return query;
}
