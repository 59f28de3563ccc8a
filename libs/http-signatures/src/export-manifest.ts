import { fromBase64, utf8 } from './base64';
import type { JsonWebKeySet } from './jwks';
import { SIGNATURE_ALGORITHM } from './profile';
import { VerificationError } from './verification-error';
import { signingKeyAt, verifyEd25519, type VerifyOptions } from './verify-answer';

export const MANIFEST_FORMAT = 'dmrv-registry-export/1';
/** The manifest's name in an export directory. */
export const MANIFEST_FILE = 'manifest.json';

export interface ManifestFile {
  /** A name in the export directory (no path). */
  name: string;
  /** SHA-256 of the file's bytes, lowercase hex. */
  sha256: string;
  bytes: number;
  /** Records in the file (CSV: lines after the header; NDJSON: lines). */
  rows: number;
}

export interface ManifestSignature {
  alg: typeof SIGNATURE_ALGORITHM;
  keyid: string;
  /** Ed25519 over `manifestSigningInput`, base64. */
  value?: string;
}

export interface ExportManifest {
  format: typeof MANIFEST_FORMAT;
  /** When the export was taken and signed (ISO 8601, UTC, whole seconds). */
  created: string;
  files: ManifestFile[];
  signature?: ManifestSignature;
}

/**
 * RFC 8785 (JCS) for the values a manifest holds: objects with their members sorted by name, strings as JSON
 * writes them, integers. JCS sorts by UTF-16 code units, which is what `Array.prototype.sort` compares.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    throw new Error('a manifest holds integers only');
  return JSON.stringify(value);
}

/** The bytes a manifest's signature covers: the manifest in canonical JSON, its signature's `value` left out. */
export function manifestSigningInput(
  manifest: ExportManifest & { signature: ManifestSignature },
): Uint8Array {
  const { value: _value, ...signature } = manifest.signature;
  return utf8(canonicalJson({ ...manifest, signature }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const WHOLE = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function manifestFile(entry: unknown, index: number): ManifestFile {
  if (!isRecord(entry)) throw new VerificationError('malformed', `files[${index}]: must be an object`);
  const { name, sha256, bytes, rows } = entry;
  if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name))
    throw new VerificationError('malformed', `files[${index}].name: must be a plain file name`);
  if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))
    throw new VerificationError('malformed', `files[${index}].sha256: must be 64 lowercase hex digits`);
  if (!WHOLE(bytes) || !WHOLE(rows))
    throw new VerificationError('malformed', `files[${index}]: bytes and rows must be whole numbers`);
  return { name, sha256, bytes, rows };
}

/** A manifest read from JSON, its shape checked (not its signature). */
export function parseManifest(document: unknown): ExportManifest {
  if (!isRecord(document) || document.format !== MANIFEST_FORMAT)
    throw new VerificationError('malformed', `not a manifest of format ${MANIFEST_FORMAT}`);
  const { created, files, signature } = document;
  if (typeof created !== 'string' || Number.isNaN(Date.parse(created)))
    throw new VerificationError('malformed', 'created: must be an ISO 8601 time');
  if (!Array.isArray(files)) throw new VerificationError('malformed', 'files: must be an array');
  const manifest: ExportManifest = { format: MANIFEST_FORMAT, created, files: files.map(manifestFile) };
  if (signature === undefined) return manifest;
  if (
    !isRecord(signature) ||
    signature.alg !== SIGNATURE_ALGORITHM ||
    typeof signature.keyid !== 'string' ||
    typeof signature.value !== 'string'
  )
    throw new VerificationError(
      'malformed',
      `signature: must hold alg "${SIGNATURE_ALGORITHM}", keyid and value`,
    );
  return {
    ...manifest,
    signature: { alg: SIGNATURE_ALGORITHM, keyid: signature.keyid, value: signature.value },
  };
}

/** Checks a manifest's signature against a key set; resolves with the key id, rejects with a `VerificationError`. */
export async function verifyManifestSignature(
  manifest: ExportManifest,
  jwks: JsonWebKeySet,
  options: VerifyOptions = {},
): Promise<{ keyid: string; created: Date }> {
  const { signature } = manifest;
  if (signature?.value === undefined) throw new VerificationError('unsigned', 'the manifest is not signed');
  const created = Math.floor(Date.parse(manifest.created) / 1000);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const key = signingKeyAt(jwks, signature.keyid, created, now, options.clockSkewSeconds ?? 300);
  const bytes = fromBase64(signature.value);
  if (
    bytes === undefined ||
    !(await verifyEd25519(key, bytes, manifestSigningInput({ ...manifest, signature })))
  )
    throw new VerificationError('bad-signature', 'the signature does not match the manifest');
  return { keyid: signature.keyid, created: new Date(created * 1000) };
}
