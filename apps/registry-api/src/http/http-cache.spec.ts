import { etagMatches } from './http-cache';
import { etagOf, renderJson } from './rendered-json';

describe('entity tags', () => {
  const tag = etagOf('{"a":1}');

  it('depends on the body only', () => {
    expect(etagOf('{"a":1}')).toBe(tag);
    expect(etagOf('{"a":2}')).not.toBe(tag);
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
  });

  it('renders a body as the JSON text Fastify would send, tagged once', () => {
    expect(renderJson({ a: 1 })).toEqual({ json: '{"a":1}', etag: tag });
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
