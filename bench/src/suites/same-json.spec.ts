import { canonicalJson, jsonDifference } from './same-json';

describe('jsonDifference', () => {
  it('ignores key order only', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    expect(jsonDifference('{"a":1,"b":{"x":2,"y":3}}', '{"b":{"y":3,"x":2},"a":1}')).toBeUndefined();
  });

  it('names where two answers part', () => {
    expect(jsonDifference('{"credits":1200}', '{"credits":"1200"}')).toBe(
      'floor …{"credits":1200}… vs service …{"credits":"1200"}…',
    );
    expect(jsonDifference('[1,2]', '[2,1]')).toMatch(/^floor/);
    expect(jsonDifference('ok', '{}')).toMatch(/not both JSON/);
  });
});
