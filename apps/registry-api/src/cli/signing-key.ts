import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { JsonWebKeySet } from '@dmrv/http-signatures';
import { ed25519PrivateKey, retiredKeys } from '../config/signing-variables';
import { signingKeyOf } from '../signing/signing-keys';

interface UsageErrors {
  usageError(message: string): Error;
}

/** `signing-key generate`: a new Ed25519 key as PEM on stdout, its key id on stderr. */
function generate(): number {
  const privateKey = generateKeyPairSync('ed25519').privateKey;
  process.stdout.write(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
  process.stderr.write(
    `key id ${signingKeyOf(privateKey).publicJwk.kid}: keep the PEM secret (SIGNING_KEY_FILE)\n`,
  );
  return 0;
}

function readJwks(file: string): JsonWebKeySet {
  try {
    return retiredKeys(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/**
 * `signing-key retire <old-key.pem> [--at TIME] [--into FILE]`: the old key's public half with the time it stopped
 * signing, added to the retired-keys JWKS (SIGNING_RETIRED_KEYS_FILE) or printed.
 */
function retire(argv: string[], context: UsageErrors): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { at: { type: 'string' }, into: { type: 'string' } },
  });
  if (positionals.length !== 1) throw context.usageError("signing-key retire needs the old key's PEM file");
  const at = values.at === undefined ? Date.now() : Date.parse(values.at);
  if (Number.isNaN(at)) throw context.usageError('--at must be an ISO 8601 time, e.g. 2026-12-01T12:00:00Z');
  const privateKey = ed25519PrivateKey(readFileSync(positionals[0]!, 'utf8'));
  if (privateKey === undefined)
    throw context.usageError(`${positionals[0]}: not an Ed25519 private key in PEM`);
  const retired = { ...signingKeyOf(privateKey).publicJwk, exp: Math.floor(at / 1000) };
  const set = values.into !== undefined && existsSync(values.into) ? readJwks(values.into) : { keys: [] };
  if (set.keys.some((key) => key.kid === retired.kid))
    throw context.usageError(`key ${retired.kid} is retired already`);
  const text = `${JSON.stringify({ keys: [...set.keys, retired] }, null, 2)}\n`;
  if (values.into === undefined) process.stdout.write(text);
  else writeFileSync(values.into, text);
  process.stderr.write(
    `key ${retired.kid} retired: it verifies signatures created until ${new Date(retired.exp * 1000).toISOString()}\n`,
  );
  return 0;
}

export function signingKeyCommand(argv: string[], context: UsageErrors): number {
  const [action, ...rest] = argv;
  if (action === 'generate') return generate();
  if (action === 'retire') return retire(rest, context);
  throw context.usageError(
    action ? `unknown signing-key action ${action}` : 'signing-key needs generate or retire',
  );
}
