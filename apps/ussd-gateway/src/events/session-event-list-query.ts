import { overlongParameter } from '../contract/parameter-limits';
import { E164 } from '../contract/ussd-fields';
import { SESSION_EVENT_STATUSES } from './session-event';
import type { SessionEventFilter } from './session-events.repository';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

export type ParsedEventListQuery =
  | { valid: true; filter: SessionEventFilter }
  | { valid: false; message: string };

/** Opaque to clients: the id of the last event of a page, so that nobody builds one by counting. */
export const encodeCursor = (id: number): string => Buffer.from(`e${id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): number | undefined {
  const match = /^e([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // Only the canonical spelling of a cursor we could have issued.
  return match && encodeCursor(Number(match[1])) === cursor ? Number(match[1]) : undefined;
}

/**
 * `status`, `phoneNumber`, `cursor`, `limit`; any other parameter is ignored, as everywhere in this service. A
 * parameter given twice (an array) or malformed is refused by name.
 */
export function parseEventListQuery(query: unknown): ParsedEventListQuery {
  const fields = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  const own = (name: string): unknown =>
    Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
  const overlong = overlongParameter({
    status: own('status'),
    phoneNumber: own('phoneNumber'),
    cursor: own('cursor'),
    limit: own('limit'),
  });
  if (overlong !== undefined) return { valid: false, message: overlong };
  const invalidParameters: string[] = [];
  const filter: SessionEventFilter = { limit: DEFAULT_PAGE_SIZE };
  const read = (name: string, apply: (value: string) => boolean): void => {
    const value = own(name);
    if (value === undefined) return;
    if (typeof value !== 'string' || !apply(value)) invalidParameters.push(name);
  };
  read('status', (value) => {
    filter.status = SESSION_EVENT_STATUSES.find((status) => status === value);
    return filter.status !== undefined;
  });
  read('phoneNumber', (value) => {
    filter.phoneNumber = value;
    return E164.test(value);
  });
  read('cursor', (value) => {
    filter.before = decodeCursor(value);
    return filter.before !== undefined;
  });
  read('limit', (value) => {
    filter.limit = Number(value);
    return /^\d{1,3}$/.test(value) && filter.limit >= 1 && filter.limit <= MAX_PAGE_SIZE;
  });
  return invalidParameters.length > 0
    ? { valid: false, message: `Invalid query parameters: ${invalidParameters.join(', ')}` }
    : { valid: true, filter };
}
