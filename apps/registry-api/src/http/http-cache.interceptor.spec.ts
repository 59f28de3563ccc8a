import { etagMatches, etagOf } from './http-cache.interceptor';

describe('entity tags', () => {
  const tag = etagOf({ a: 1 });

  it('depends on the body only', () => {
    expect(etagOf({ a: 1 })).toBe(tag);
    expect(etagOf({ a: 2 })).not.toBe(tag);
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
  });

  it.each([
    [tag, true],
    [tag.slice(2), true],
    [`"other", ${tag}`, true],
    ['*', true],
    ['"other"', false],
    [undefined, false],
  ])('If-None-Match %j matches: %s', (header, expected) => {
    expect(etagMatches(header, tag)).toBe(expected);
  });
});
