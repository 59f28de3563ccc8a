import { randomBytes, sign } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { IsBoolean, IsString } from 'class-validator';
import { AsBoolean, loadConfig } from '@dmrv/config';
import {
  type ExportManifest,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestSigningInput,
  SIGNATURE_ALGORITHM,
} from '@dmrv/http-signatures';
import { ed25519PrivateKey, SigningKeyVariable } from '../config/signing-variables';
import type { ExportSummary } from '../loader/exporter';
import { type SigningKey, signingKeyOf } from '../signing/signing-keys';

/** The service's signing settings, for `export`: the same rules (a key in production unless SIGNING_DISABLED). */
class ExportSigningConfig {
  @IsString()
  NODE_ENV = 'development';

  @SigningKeyVariable()
  SIGNING_KEY?: string;

  @AsBoolean()
  @IsBoolean()
  SIGNING_DISABLED = false;
}

/** The key that signs the manifest, undefined when signing is off or unset outside production; throws on bad settings. */
export function manifestSigningKey(env: NodeJS.ProcessEnv = process.env): SigningKey | undefined {
  const config = loadConfig('registry-api', ExportSigningConfig, env);
  if (config.SIGNING_KEY === undefined || config.SIGNING_DISABLED) return undefined;
  return signingKeyOf(ed25519PrivateKey(config.SIGNING_KEY)!);
}

/** The manifest of an export: each file's name, SHA-256, size and rows, signed with `key` when there is one. */
export function exportManifest(
  summaries: ExportSummary[],
  key: SigningKey | undefined,
  now = new Date(),
): ExportManifest {
  const manifest: ExportManifest = {
    format: MANIFEST_FORMAT,
    created: `${now.toISOString().slice(0, 19)}Z`,
    files: summaries.map(({ file, sha256, bytes, rows }) => ({ name: basename(file), sha256, bytes, rows })),
  };
  if (key === undefined) return manifest;
  const signature = { alg: SIGNATURE_ALGORITHM, keyid: key.publicJwk.kid } as const;
  const value = sign(null, manifestSigningInput({ ...manifest, signature }), key.privateKey).toString(
    'base64',
  );
  return { ...manifest, signature: { ...signature, value } };
}

/** Writes `manifest.json` under a new temporary name (never through a link), then renames it over the old one. */
export function writeManifest(directory: string, manifest: ExportManifest): string {
  const file = join(directory, MANIFEST_FILE);
  const temporary = join(directory, `.${MANIFEST_FILE}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return file;
}
