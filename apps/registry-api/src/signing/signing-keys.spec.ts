import { generateKeyPairSync } from 'node:crypto';
import { loadConfig } from '@dmrv/config';
import { RegistryConfig } from '../config/registry.config';
import { signingKeyOf, signingKeysFrom } from './signing-keys';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_registry' };

function newPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

describe('signingKeysFrom', () => {
  it('publishes the current key first, then the retired ones with the time each stopped signing', () => {
    const [current, old] = [newPem(), newPem()];
    const retired = { ...signingKeyOf(loadKeys(old).current!.privateKey).publicJwk, exp: 1_800_000_000 };
    const keys = loadKeys(current, JSON.stringify({ keys: [retired] }));
    expect(keys.jwks.keys).toEqual([keys.current!.publicJwk, retired]);
    expect(keys.current!.publicJwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      kid: expect.any(String),
      use: 'sig',
    });
  });

  it('refuses a current key that the retired set lists', () => {
    const pem = newPem();
    const retired = { ...loadKeys(pem).current!.publicJwk, exp: 1_800_000_000 };
    expect(() => loadKeys(pem, JSON.stringify({ keys: [retired] }))).toThrow(
      `SIGNING_RETIRED_KEYS lists the key SIGNING_KEY holds (${retired.kid}): a retired key must not sign`,
    );
  });

  it('publishes only the retired keys when nothing signs', () => {
    expect(signingKeysFrom(loadConfig('registry-api', RegistryConfig, base))).toEqual({ jwks: { keys: [] } });
  });
});

function loadKeys(pem: string, retired?: string): ReturnType<typeof signingKeysFrom> {
  return signingKeysFrom(
    loadConfig('registry-api', RegistryConfig, {
      ...base,
      SIGNING_KEY: pem,
      ...(retired ? { SIGNING_RETIRED_KEYS: retired } : {}),
    }),
  );
}
