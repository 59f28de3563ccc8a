import { createPublicKey, KeyObject } from 'node:crypto';
import { type Ed25519PublicJwk, type JsonWebKeySet, thumbprintInput } from '@dmrv/http-signatures';
import { hash } from 'node:crypto';
import { ed25519PrivateKey, retiredKeys } from '../config/signing-variables';
import type { RegistryConfig } from '../config/registry.config';

/** The key that signs, with its public half as a JWK named by its RFC 7638 thumbprint. */
export interface SigningKey {
  privateKey: KeyObject;
  publicJwk: Ed25519PublicJwk;
}

export function signingKeyOf(privateKey: KeyObject): SigningKey {
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  const kid = hash('sha256', thumbprintInput(x!), 'base64url');
  return { privateKey, publicJwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid, use: 'sig' } };
}

/** What the service signs with and publishes: the current key (none when signing is off) and the retired ones. */
export interface SigningKeys {
  current?: SigningKey;
  /** The JWKS document: the current key first, then the retired keys with the time each stopped signing. */
  jwks: JsonWebKeySet;
}

/** The keys the configuration names (already validated by loadConfig); refuses a current key listed as retired. */
export function signingKeysFrom(config: RegistryConfig): SigningKeys {
  const retired =
    config.SIGNING_RETIRED_KEYS === undefined ? [] : retiredKeys(config.SIGNING_RETIRED_KEYS).keys;
  const privateKey =
    config.SIGNING_KEY === undefined || config.SIGNING_DISABLED
      ? undefined
      : ed25519PrivateKey(config.SIGNING_KEY);
  if (privateKey === undefined) return { jwks: { keys: retired } };
  const current = signingKeyOf(privateKey);
  if (retired.some((key) => key.kid === current.publicJwk.kid))
    throw new Error(
      `SIGNING_RETIRED_KEYS lists the key SIGNING_KEY holds (${current.publicJwk.kid}): a retired key must not sign`,
    );
  return { current, jwks: { keys: [current.publicJwk, ...retired] } };
}
