import { resolveRequestId } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('resolveRequestId', () => {
  it.each(['abc-123', 'req_1.2:3', 'a'.repeat(128), '7f1c2b1e-6a55-4c5e-9f3a-0b7a1f6e9d10'])(
    'keeps an acceptable caller id %s',
    (id) => {
      expect(resolveRequestId(id)).toBe(id);
    },
  );

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['too long', 'a'.repeat(129)],
    ['with a newline (log injection)', 'abc\ninjected'],
    ['with spaces', 'a b'],
    ['with a quote', 'a"b'],
  ])('replaces a %s id with a fresh UUID', (_label, id) => {
    expect(resolveRequestId(id)).toMatch(UUID);
  });

  it('takes the first of repeated headers', () => {
    expect(resolveRequestId(['first', 'second'])).toBe('first');
  });

  it('makes a different id each time', () => {
    expect(resolveRequestId(undefined)).not.toBe(resolveRequestId(undefined));
  });
});
