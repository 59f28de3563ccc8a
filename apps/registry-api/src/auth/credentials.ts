import { hash, randomBytes, scrypt, ScryptOptions, timingSafeEqual } from 'node:crypto';

export interface PresentedCredentials {
  clientId: string;
  secret: string;
}

const CLIENT_ID_PATTERN = /^rc_[a-f0-9]{16}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new client: `rc_` + 16 hex characters, and a 256-bit secret in base64url (43 characters, no `.` or `:`). */
export function generateClientCredentials(): PresentedCredentials {
  return { clientId: `rc_${randomBytes(8).toString('hex')}`, secret: randomBytes(32).toString('base64url') };
}

/** Bearer keys are `<client_id>.<secret>`: one opaque token for clients that cannot send Basic. */
export function bearerKey(credentials: PresentedCredentials): string {
  return `${credentials.clientId}.${credentials.secret}`;
}

/**
 * Reads `Authorization: Basic base64(client_id:secret)` (what the original API's clients send) or
 * `Authorization: Bearer <client_id>.<secret>`. Anything else is "no credentials".
 */
export function parseAuthorization(header: string | undefined): PresentedCredentials | null {
  if (!header) return null;
  const match = /^(Basic|Bearer)\s+(\S+)\s*$/i.exec(header);
  if (!match) return null;
  const scheme = match[1]!.toLowerCase();
  const token = match[2]!;
  let clientId: string;
  let secret: string;
  if (scheme === 'basic') {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return null;
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return null;
    clientId = decoded.slice(0, colon);
    secret = decoded.slice(colon + 1);
  } else {
    const dot = token.indexOf('.');
    if (dot < 0) return null;
    clientId = token.slice(0, dot);
    secret = token.slice(dot + 1);
  }
  // Malformed ids never reach the database; malformed secrets still go through a hash so timing says nothing.
  if (!CLIENT_ID_PATTERN.test(clientId)) return null;
  return { clientId, secret };
}

export function looksLikeSecret(secret: string): boolean {
  return SECRET_PATTERN.test(secret);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 };

function scryptAsync(
  secret: string,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Slow, salted hash (scrypt, N=2^14): a leaked table does not give usable secrets. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt, SCRYPT.keyLength, {
    N: SCRYPT.N,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: SCRYPT.maxmem,
  });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Constant-time comparison of the derived key; a malformed stored hash verifies nothing. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, keyText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(keyText, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(saltText, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A hash nobody's secret matches, verified against when the client id is unknown so both paths cost the same. */
export const DECOY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

/**
 * Fast fingerprint of a verified secret, kept in memory so scrypt runs once per client and process, not per request.
 * One-shot `hash()`: `createHash()` set up a new digest context per call and was ~12 % of a cached answer's CPU.
 */
export function secretFingerprint(secret: string): Buffer {
  return hash('sha256', secret, 'buffer');
}
