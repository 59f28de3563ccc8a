import {
  bearerKey,
  DECOY_HASH,
  generateClientCredentials,
  hashSecret,
  looksLikeSecret,
  parseAuthorization,
  verifySecret,
} from './credentials';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('credentials', () => {
  const credentials = generateClientCredentials();

  it('generates ids and secrets of the documented shape', () => {
    expect(credentials.clientId).toMatch(/^rc_[a-f0-9]{16}$/);
    expect(looksLikeSecret(credentials.secret)).toBe(true);
    expect(bearerKey(credentials)).toBe(`${credentials.clientId}.${credentials.secret}`);
  });

  it('reads HTTP Basic and Bearer the same way', () => {
    expect(parseAuthorization(basic(credentials.clientId, credentials.secret))).toEqual(credentials);
    expect(parseAuthorization(`Bearer ${bearerKey(credentials)}`)).toEqual(credentials);
    expect(parseAuthorization(`bearer ${bearerKey(credentials)}`)).toEqual(credentials);
  });

  it('keeps a colon inside a Basic password', () => {
    expect(parseAuthorization(basic(credentials.clientId, 'a:b'))).toEqual({
      clientId: credentials.clientId,
      secret: 'a:b',
    });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['another scheme', 'Digest abc'],
    ['Basic without colon', `Basic ${Buffer.from('nocolon').toString('base64')}`],
    ['Basic not base64', 'Basic %%%'],
    ['Bearer without dot', 'Bearer abcdef'],
    ['malformed client id', basic('admin', 'secret')],
  ])('answers null for %s', (_label, header) => {
    expect(parseAuthorization(header)).toBeNull();
  });

  it('verifies the right secret and only it', async () => {
    const stored = await hashSecret(credentials.secret);
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(stored).not.toContain(credentials.secret);
    await expect(verifySecret(credentials.secret, stored)).resolves.toBe(true);
    await expect(verifySecret(`${credentials.secret}x`, stored)).resolves.toBe(false);
    await expect(verifySecret(credentials.secret, DECOY_HASH)).resolves.toBe(false);
    await expect(verifySecret(credentials.secret, 'plain')).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashSecret('same')).not.toBe(await hashSecret('same'));
  });
});
