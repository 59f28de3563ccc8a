import { status } from '@grpc/grpc-js';

/** What a handler throws to answer with a gRPC status; the server turns it into the call's error. */
export class ChainNodeError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = 'ChainNodeError';
  }
}

export interface PageRequestInput {
  key?: Uint8Array | null;
  offset?: number | string | { toString(): string } | null;
  limit?: number | string | { toString(): string } | null;
  count_total?: boolean | null;
  reverse?: boolean | null;
}

export interface Page<T> {
  items: T[];
  pagination: { next_key: Buffer; total: string };
}

/** The Cosmos SDK's default page size when `limit` is 0. */
export const DEFAULT_LIMIT = 100;

function toNumber(value: PageRequestInput['offset']): number {
  if (value === null || value === undefined) return 0;
  const parsed = Number(typeof value === 'object' ? value.toString() : value);
  return Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : 0;
}

/**
 * Cosmos SDK `query.Paginate` over items already sorted by their store key: `next_key` is the store key of the
 * first item of the next page, `key` resumes there (inclusive), `key` with `offset` is refused as the SDK does.
 */
export function paginate<T>(
  sorted: readonly T[],
  keyOf: (item: T) => string,
  request: PageRequestInput | null | undefined,
): Page<T> {
  const key = request?.key && request.key.length > 0 ? Buffer.from(request.key).toString('utf8') : undefined;
  const offset = toNumber(request?.offset);
  const limit = toNumber(request?.limit) || DEFAULT_LIMIT;
  const reverse = request?.reverse === true;
  if (key !== undefined && offset > 0) {
    throw new ChainNodeError(
      status.INVALID_ARGUMENT,
      'paginate: invalid request, either offset or key is expected, got both',
    );
  }
  const ordered = reverse ? [...sorted].reverse() : sorted;
  let start = offset;
  if (key !== undefined) {
    start = ordered.findIndex((item) => (reverse ? keyOf(item) <= key : keyOf(item) >= key));
    if (start === -1) start = ordered.length;
  }
  const items = ordered.slice(start, start + limit);
  const next = ordered[start + limit];
  return {
    items,
    pagination: {
      next_key: next === undefined ? Buffer.alloc(0) : Buffer.from(keyOf(next), 'utf8'),
      // The SDK counts only when asked, and only on offset-based requests.
      total: request?.count_total === true && key === undefined ? String(sorted.length) : '0',
    },
  };
}
