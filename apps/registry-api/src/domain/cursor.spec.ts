import { CursorFormatError, decodeCursor, encodeCursor } from './cursor';

describe('keyset cursor', () => {
  it('round-trips a key', () => {
    const key = ['2024-01-31', 'purchase-0000001-2'];
    expect(decodeCursor(encodeCursor(key), 2)).toEqual(key);
  });

  it('is URL-safe', () => {
    expect(encodeCursor(['a/b+c?', '~~~~'])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['not base64', '!!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['wrong arity', encodeCursor(['only-one'])],
    ['an object', Buffer.from('{"a":1}').toString('base64url')],
    ['nested values', Buffer.from('[["a"],"b"]').toString('base64url')],
  ])('rejects %s', (_label, cursor) => {
    expect(() => decodeCursor(cursor, 2)).toThrow(CursorFormatError);
  });
});
