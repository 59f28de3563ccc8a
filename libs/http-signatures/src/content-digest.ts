import { ByteSequence, type Dictionary, parseDictionary } from 'structured-headers';
import { fromBase64, toBase64 } from './base64';

/** RFC 9530 `Content-Digest` (or `Repr-Digest`) with one sha-256 member, from the digest's bytes. */
export function digestFieldValue(sha256: Uint8Array): string {
  return `sha-256=:${toBase64(sha256)}:`;
}

// The algorithms of RFC 9530's registry that are not deprecated, by their WebCrypto names.
const ALGORITHMS: Record<string, string> = { 'sha-256': 'SHA-256', 'sha-512': 'SHA-512' };

export type DigestCheck =
  | { ok: true; algorithms: string[] }
  | { ok: false; reason: 'malformed' | 'no-sha-256' | 'mismatch'; algorithm?: string };

/**
 * Checks a `Content-Digest` against the content: it must carry sha-256 (our profile), and every member in a known
 * algorithm must match; members in other algorithms are ignored, as RFC 9530 §2 lets a recipient do.
 */
export async function checkContentDigest(field: string, content: Uint8Array): Promise<DigestCheck> {
  let members: Dictionary;
  try {
    members = parseDictionary(field);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (!members.has('sha-256')) return { ok: false, reason: 'no-sha-256' };
  const checked: string[] = [];
  for (const [algorithm, member] of members) {
    const webName = ALGORITHMS[algorithm];
    if (webName === undefined) continue;
    const value = member[0] instanceof ByteSequence ? fromBase64(member[0].toBase64()) : undefined;
    if (value === undefined) return { ok: false, reason: 'malformed', algorithm };
    const actual = new Uint8Array(await crypto.subtle.digest(webName, content as Uint8Array<ArrayBuffer>));
    if (!equalBytes(actual, value)) return { ok: false, reason: 'mismatch', algorithm };
    checked.push(algorithm);
  }
  return { ok: true, algorithms: checked };
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}
