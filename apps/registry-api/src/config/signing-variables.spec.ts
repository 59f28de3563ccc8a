import { generateKeyPairSync } from 'node:crypto';
import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { RegistryConfig } from './registry.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_registry' };
const pem = (type: 'ed25519' | 'ed448'): string =>
  generateKeyPairSync(type as 'ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
const X = 'a'.repeat(43);

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig('registry-api', RegistryConfig, env);
  } catch (error) {
    if (error instanceof ConfigValidationError)
      return error.problems.map(({ variable, problem }) => `${variable}: ${problem}`);
    throw error;
  }
  return [];
}

describe('RegistryConfig: signing', () => {
  it('starts without a key outside production (answers unsigned), and with one anywhere', () => {
    expect(problems(base)).toEqual([]);
    expect(problems({ ...base, NODE_ENV: 'production', SIGNING_KEY: pem('ed25519') })).toEqual([]);
  });

  it('refuses to start in production without a key, naming both ways out', () => {
    expect(problems({ ...base, NODE_ENV: 'production' })).toEqual([
      'SIGNING_KEY: is required in production: an Ed25519 private key in PEM (usually through SIGNING_KEY_FILE); set SIGNING_DISABLED=true to serve unsigned answers',
    ]);
    expect(problems({ ...base, NODE_ENV: 'production', SIGNING_DISABLED: 'true' })).toEqual([]);
  });

  it.each([
    [
      'not PEM at all',
      { SIGNING_KEY: 'secret' },
      'SIGNING_KEY: must be an Ed25519 private key in PEM (PKCS#8: openssl genpkey -algorithm ed25519)',
    ],
    [
      'another curve',
      { SIGNING_KEY: pem('ed448') },
      'SIGNING_KEY: must be an Ed25519 private key in PEM (PKCS#8: openssl genpkey -algorithm ed25519)',
    ],
    [
      'a key and SIGNING_DISABLED',
      { SIGNING_KEY: pem('ed25519'), SIGNING_DISABLED: 'true' },
      'SIGNING_KEY: set SIGNING_KEY or SIGNING_DISABLED=true, not both',
    ],
    [
      'retired keys that are not JSON',
      { SIGNING_RETIRED_KEYS: '{' },
      'SIGNING_RETIRED_KEYS: must be a JWKS document (JSON)',
    ],
    [
      'a retired key without exp',
      { SIGNING_RETIRED_KEYS: JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: X, kid: 'k1' }] }) },
      'SIGNING_RETIRED_KEYS: key k1 has no exp (the time it stopped signing)',
    ],
    [
      'a malformed retired key',
      {
        SIGNING_RETIRED_KEYS: JSON.stringify({
          keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', kid: 'k1', exp: 1 }],
        }),
      },
      'SIGNING_RETIRED_KEYS: keys[0].x: must be a 32-byte Ed25519 public key in base64url',
    ],
    [
      'an origin with a path',
      { SIGNING_ORIGIN: 'https://registry.example.org/v1' },
      'SIGNING_ORIGIN: must be a scheme and authority, such as https://registry.example.org',
    ],
  ])('refuses %s, naming the variable and never its value', (_what, env, problem) => {
    expect(problems({ ...base, ...env })).toEqual([problem]);
  });
});
