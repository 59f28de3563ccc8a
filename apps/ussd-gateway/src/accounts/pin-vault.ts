import {
  BinaryLike,
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes,
  scrypt,
  ScryptOptions,
  timingSafeEqual,
} from 'node:crypto';

/**
 * PINs at rest: a slow salted hash (scrypt), then that hash encrypted with AES-256-GCM under a named key. A five-digit
 * PIN has only 100 000 values, so the hash alone would fall to a brute force of a leaked table; the encryption
 * means a leaked table without the key reveals nothing. The key id travels with each value so keys can rotate.
 *
 * Sealed form: `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url), where the plaintext is
 * `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url).
 *
 * Held form (a new PIN between its entry and its confirmation, in the session only): `h1.<keyId>.<iv>.<tag>.<ciphertext>`,
 * the PIN itself encrypted under the same key. Not hashed: a new PIN costs one scrypt, when it is written. The two
 * forms are authenticated under different associated data, so neither opens as the other.
 */

export interface PinKey {
  id: string;
  key: Buffer;
}

/** Every sealed hash records its own log2N, r and p, so changing `costLog2` changes new hashes only. */
const SCRYPT = { log2N: 14, r: 8, p: 1, keyLength: 32, saltLength: 16 };

export function parseKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error('a PIN encryption key must be exactly 32 bytes');
  return key;
}

// On libuv's pool, never the event loop: a hash takes tens of milliseconds of CPU. How many run at once is PinHashGate's.
function scryptAsync(
  pin: BinaryLike,
  salt: Buffer,
  keyLength: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(pin, salt, keyLength, options, (error, derived) => (error ? reject(error) : resolve(derived))),
  );
}

const b64 = (buffer: Buffer): string => buffer.toString('base64url');
const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest();

interface ValueForm {
  name: string;
  version: string;
  aad(keyId: string): Buffer;
}

const SEALED: ValueForm = { name: 'sealed', version: 'v1', aad: (keyId) => Buffer.from(keyId) };
const HELD: ValueForm = { name: 'held', version: 'h1', aad: (keyId) => Buffer.from(`held PIN:${keyId}`) };
const unb64 = (text: string): Buffer => Buffer.from(text, 'base64url');

export class PinVault {
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private readonly current: PinKey,
    previous: PinKey[] = [],
    private readonly costLog2: number = SCRYPT.log2N,
  ) {
    for (const key of [...previous, current]) this.keys.set(key.id, key.key);
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  async seal(pin: BinaryLike): Promise<string> {
    const { r, p, keyLength, saltLength } = SCRYPT;
    const log2N = this.costLog2;
    const salt = randomBytes(saltLength);
    const hash = await scryptAsync(pin, salt, keyLength, { N: 2 ** log2N, r, p, maxmem: 256 * 1024 * 1024 });
    return this.encrypt(SEALED, Buffer.from(`scrypt$${log2N}$${r}$${p}$${b64(salt)}$${b64(hash)}`));
  }

  /** A new PIN kept until it is confirmed: encrypted, not hashed (see the held form above). */
  hold(pin: string): string {
    return this.encrypt(HELD, Buffer.from(pin, 'utf8'));
  }

  /** Whether `pin` is the held one, in constant time (both sides digested to one length first). */
  matchesHeld(pin: string, held: string): boolean {
    const expected = this.decrypt(HELD, held);
    try {
      return timingSafeEqual(sha256(expected), sha256(Buffer.from(pin, 'utf8')));
    } finally {
      expected.fill(0);
    }
  }

  /** Seals a held PIN for storage: the one scrypt of its life. */
  async sealHeld(held: string): Promise<string> {
    const pin = this.decrypt(HELD, held);
    try {
      return await this.seal(pin);
    } finally {
      pin.fill(0);
    }
  }

  /** Constant-time comparison of the candidate's hash with the stored one. */
  async verify(pin: string, sealed: string): Promise<boolean> {
    const parts = this.decrypt(SEALED, sealed).toString('utf8').split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') throw new Error('unknown PIN hash format');
    const [, log2N, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const expected = unb64(hash);
    const actual = await scryptAsync(pin, unb64(salt), expected.length, {
      N: 2 ** Number(log2N),
      r: Number(r),
      p: Number(p),
      maxmem: 256 * 1024 * 1024,
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  keyIdOf(sealed: string): string {
    return sealed.split('.')[1] ?? '';
  }

  /**
   * Why the configured keys cannot open `sealed`, or undefined when they can: its key id is not configured, or the key
   * under that id is another one than it was sealed with. Decryption only, no hash: cheap enough for start-up.
   */
  unopenable(sealed: string): { keyId: string; reason: 'unknown key' | 'wrong key' } | undefined {
    const keyId = this.keyIdOf(sealed);
    if (!this.keys.has(keyId)) return { keyId, reason: 'unknown key' };
    try {
      this.decrypt(SEALED, sealed).fill(0);
      return undefined;
    } catch {
      return { keyId, reason: 'wrong key' };
    }
  }

  /** Re-encrypts under the current key without knowing the PIN (used when a retired key is still in use). */
  rewrap(sealed: string): string {
    return this.encrypt(SEALED, this.decrypt(SEALED, sealed));
  }

  private encrypt(form: ValueForm, plaintext: Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    // The key id is authenticated data: moving a value under another id makes it fail to open.
    cipher.setAAD(form.aad(this.current.id));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return [form.version, this.current.id, b64(iv), b64(cipher.getAuthTag()), b64(ciphertext)].join('.');
  }

  private decrypt(form: ValueForm, value: string): Buffer {
    const [version, keyId, iv, tag, ciphertext] = value.split('.');
    if (version !== form.version || !keyId || !iv || !tag || ciphertext === undefined)
      throw new Error(`unknown ${form.name} PIN format`);
    const key = this.keys.get(keyId);
    if (!key)
      throw new Error(`PIN key "${keyId}" is not configured (PIN_ENCRYPTION_KEY_ID / PIN_PREVIOUS_KEYS)`);
    const decipher = createDecipheriv('aes-256-gcm', key, unb64(iv));
    decipher.setAAD(form.aad(keyId));
    decipher.setAuthTag(unb64(tag));
    return Buffer.concat([decipher.update(unb64(ciphertext)), decipher.final()]);
  }
}

export function pinVaultFromConfig(config: {
  PIN_ENCRYPTION_KEY: string;
  PIN_ENCRYPTION_KEY_ID: string;
  PIN_PREVIOUS_KEYS: string[];
  PIN_HASH_COST_LOG2: number;
}): PinVault {
  const previous = config.PIN_PREVIOUS_KEYS.map((entry) => {
    const separator = entry.indexOf(':');
    return { id: entry.slice(0, separator), key: parseKey(entry.slice(separator + 1)) };
  });
  return new PinVault(
    { id: config.PIN_ENCRYPTION_KEY_ID, key: parseKey(config.PIN_ENCRYPTION_KEY) },
    previous,
    config.PIN_HASH_COST_LOG2,
  );
}
