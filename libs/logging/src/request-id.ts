import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

// Accept a caller's id only if it is short and printable, so it cannot inject into logs or headers.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's `x-request-id` when it is acceptable, otherwise a new UUID. */
export function resolveRequestId(incoming: string | string[] | undefined): string {
  const candidate = Array.isArray(incoming) ? incoming[0] : incoming;
  return candidate !== undefined && ACCEPTABLE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}
