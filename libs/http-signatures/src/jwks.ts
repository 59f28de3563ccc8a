import { fromBase64Url, sha256, toBase64Url, utf8 } from './base64';

/** An Ed25519 public key as a JWK (RFC 8037 §2), as our key sets publish it. */
export interface Ed25519PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The 32-byte public key, base64url. */
  x: string;
  /** Its RFC 7638 thumbprint: the `keyid` of every signature it made. */
  kid: string;
  use?: 'sig';
  /**
   * When the key stopped signing (seconds since the epoch, a JWT NumericDate as in OpenID Federation's historical
   * keys): a signature it made with a later `created` is refused. Absent on the key that signs now.
   */
  exp?: number;
}

export interface JsonWebKeySet {
  keys: Ed25519PublicJwk[];
}

export class JwksError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JwksError';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ed25519Key(entry: Record<string, unknown>, index: number): Ed25519PublicJwk {
  const where = `keys[${index}]`;
  const { x, kid, exp, use } = entry;
  if (typeof x !== 'string' || fromBase64Url(x)?.length !== 32)
    throw new JwksError(`${where}.x: must be a 32-byte Ed25519 public key in base64url`);
  if (typeof kid !== 'string' || kid === '') throw new JwksError(`${where}.kid: must be a non-empty string`);
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 0))
    throw new JwksError(`${where}.exp: must be whole seconds since the epoch`);
  if (use !== undefined && use !== 'sig') throw new JwksError(`${where}.use: must be "sig" when present`);
  return {
    kty: 'OKP',
    crv: 'Ed25519',
    x,
    kid,
    ...(use === 'sig' ? { use } : {}),
    ...(exp === undefined ? {} : { exp }),
  };
}

/**
 * A JWKS document (parsed JSON) as the Ed25519 keys it holds. Keys of other types are left out, as RFC 7517 §5 lets
 * a reader do; a malformed Ed25519 key, or two keys with one id, make the whole set unusable.
 */
export function parseJwks(document: unknown): JsonWebKeySet {
  if (!isRecord(document) || !Array.isArray(document.keys))
    throw new JwksError('a JWKS is an object with a "keys" array');
  const keys: Ed25519PublicJwk[] = [];
  document.keys.forEach((entry: unknown, index) => {
    if (!isRecord(entry)) throw new JwksError(`keys[${index}]: must be an object`);
    if (entry.kty === 'OKP' && entry.crv === 'Ed25519') keys.push(ed25519Key(entry, index));
  });
  const ids = new Set<string>();
  for (const key of keys) {
    if (ids.has(key.kid)) throw new JwksError(`two keys have the id ${key.kid}`);
    ids.add(key.kid);
  }
  return { keys };
}

/** The JSON whose SHA-256 is an OKP key's thumbprint (RFC 7638 §3.2, members in lexicographic order; RFC 8037 §2). */
export function thumbprintInput(x: string): string {
  return `{"crv":"Ed25519","kty":"OKP","x":"${x}"}`;
}

/** RFC 7638 thumbprint (SHA-256, base64url) of an Ed25519 public key given as its base64url `x`. */
export async function jwkThumbprint(x: string): Promise<string> {
  return toBase64Url(await sha256(utf8(thumbprintInput(x))));
}

// The type by inference: Node's own type declarations name no global CryptoKey.
type VerificationKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

const imported = new WeakMap<Ed25519PublicJwk, Promise<VerificationKey>>();

/** The key for WebCrypto, imported once per JWK object. */
export function verificationKey(jwk: Ed25519PublicJwk): Promise<VerificationKey> {
  let key = imported.get(jwk);
  if (key === undefined) {
    key = crypto.subtle.importKey(
      'raw',
      fromBase64Url(jwk.x) as Uint8Array<ArrayBuffer>,
      { name: 'Ed25519' },
      false,
      ['verify'],
    );
    imported.set(jwk, key);
  }
  return key;
}
