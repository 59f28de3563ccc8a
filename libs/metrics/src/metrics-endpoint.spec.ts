import { bearerMatches } from './metrics-endpoint';

const TOKEN = 'a-metrics-token-of-some-length';

describe('bearerMatches', () => {
  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER  ${TOKEN} `, [`Bearer ${TOKEN}`, 'Bearer other']])(
    'accepts %j',
    (header) => {
      expect(bearerMatches(header, TOKEN)).toBe(true);
    },
  );

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['the bare token', TOKEN],
    ['another scheme', `Basic ${TOKEN}`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token and more', `Bearer ${TOKEN}x`],
    ['two tokens', `Bearer ${TOKEN} ${TOKEN}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s', (_case, header) => {
    expect(bearerMatches(header, TOKEN)).toBe(false);
  });
});
