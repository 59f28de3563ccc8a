/**
 * Keyset cursor: the sort key of the last item of a page. Pages are "items strictly after this key" in a total
 * order, so rows inserted while a client pages never shift the rows it has not read yet (no duplicates, no gaps),
 * which offset paging cannot promise.
 */
export type CursorKey = Array<string | number>;

export class CursorFormatError extends Error {}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): CursorKey {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new CursorFormatError('is not a cursor of this collection');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new CursorFormatError('is not a cursor of this collection');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== arity ||
    !parsed.every((part) => typeof part === 'string' || (typeof part === 'number' && Number.isFinite(part)))
  ) {
    throw new CursorFormatError('is not a cursor of this collection');
  }
  return parsed as CursorKey;
}
