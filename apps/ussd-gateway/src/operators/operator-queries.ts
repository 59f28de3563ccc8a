import { InvalidInputError } from '@dmrv/errors';
import { BoundedParameter, refuseOverlong } from '../contract/parameter-limits';
import type { ListQuery } from '../orders/orders.repository';

export const LIST_LIMIT_DEFAULT = 20;
export const LIST_LIMIT_MAX = 100;
const PARAMETERS = ['status', 'phone', 'from', 'to', 'cursor', 'limit'];
const DATE =
  /^(\d{4})-(\d{2})-(\d{2})(T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?(Z|[+-](0\d|1[0-4]):[0-5]\d))?$/;

/** The day as written exists: JavaScript would roll 2026-02-30 (bare or with a time) over to March. */
function dayExists(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An opaque position: the last id of a page, so the next page starts below it whatever is added meanwhile. */
export const cursorOf = (id: number): string => Buffer.from(`v1:${id}`).toString('base64url');

function idOfCursor(cursor: string): number | null {
  const match = /^v1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match && Buffer.from(`v1:${match[1]}`).toString('base64url') === cursor ? Number(match[1]) : null;
}

function dateOf(name: string, value: string, endOfDay: boolean): Date {
  const written = DATE.exec(value);
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (
    !written ||
    !dayExists(Number(written[1]), Number(written[2]), Number(written[3])) ||
    Number.isNaN(date.getTime())
  ) {
    throw new InvalidInputError(
      `${name} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a time zone`,
    );
  }
  // A bare date as `to` includes that whole day.
  return endOfDay && value.length === 10 ? new Date(date.getTime() + 24 * 3600 * 1000) : date;
}

export function parseListQuery<S extends string>(
  raw: Record<string, unknown>,
  statuses: readonly S[],
): ListQuery<S> {
  for (const [name, value] of Object.entries(raw)) {
    if (!PARAMETERS.includes(name))
      throw new InvalidInputError(`unknown parameter ${name}; known: ${PARAMETERS.join(', ')}`);
    if (typeof value !== 'string') throw new InvalidInputError(`${name} must be given once`);
  }
  refuseOverlong(raw as Partial<Record<BoundedParameter, unknown>>);
  const value = raw as Partial<Record<string, string>>;
  const query: ListQuery<S> = { limit: LIST_LIMIT_DEFAULT };
  if (value.status !== undefined) {
    if (!(statuses as readonly string[]).includes(value.status))
      throw new InvalidInputError(`status must be one of ${statuses.join(', ')}`);
    query.status = value.status as S;
  }
  if (value.phone !== undefined) {
    if (!/^\+\d{7,15}$/.test(value.phone))
      throw new InvalidInputError('phone must be an E.164 number such as +254712345678');
    query.phoneNumber = value.phone;
  }
  if (value.from !== undefined) query.from = dateOf('from', value.from, false);
  if (value.to !== undefined) query.to = dateOf('to', value.to, true);
  if (query.from && query.to && query.from >= query.to) throw new InvalidInputError('from must be before to');
  if (value.cursor !== undefined) {
    const before = idOfCursor(value.cursor);
    if (before === null) throw new InvalidInputError('cursor is not one this service gave out');
    query.before = before;
  }
  if (value.limit !== undefined) {
    const limit = /^\d{1,3}$/.test(value.limit) ? Number(value.limit) : NaN;
    if (!(limit >= 1 && limit <= LIST_LIMIT_MAX))
      throw new InvalidInputError(`limit must be an integer from 1 to ${LIST_LIMIT_MAX}`);
    query.limit = limit;
  }
  return query;
}

/** `{ "status": "<one of statuses>" }` and nothing else. */
export function parseStatusUpdate<S extends string>(body: unknown, statuses: readonly S[]): S {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidInputError('body must be a JSON object {"status": …}');
  const keys = Object.keys(body);
  const unknown = keys.filter((key) => key !== 'status');
  if (unknown.length > 0)
    throw new InvalidInputError(`unknown field ${unknown[0]}; the body is {"status": …}`);
  const status = (body as { status?: unknown }).status;
  if (typeof status !== 'string' || !(statuses as readonly string[]).includes(status)) {
    throw new InvalidInputError(`status must be one of ${statuses.join(', ')}`);
  }
  return status as S;
}
