import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type ExportManifest,
  type JsonWebKeySet,
  JwksError,
  MANIFEST_FILE,
  type ManifestFile,
  parseJwks,
  parseManifest,
  parseSavedAnswer,
  SavedAnswerError,
  VerificationError,
  verifyAnswer,
  verifyManifestSignature,
  type VerifyOptions,
} from '@dmrv/http-signatures';
import { classifyFileName } from '../loader/load-files';
import { countRecords } from '../loader/record-count';

export interface VerifyContext {
  usageError(message: string): Error;
}

/** A key set saved from `GET /v1/jwks.json` (the auditor's pinned copy). */
export function readKeySet(file: string | undefined, context: VerifyContext): JsonWebKeySet {
  if (file === undefined)
    throw context.usageError('--jwks is required: the key set saved from GET /v1/jwks.json');
  try {
    return parseJwks(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    if (error instanceof JwksError || error instanceof SyntaxError)
      throw context.usageError(`${file}: not a key set: ${error.message}`);
    throw error;
  }
}

/** `--at TIME`: verify as of that time instead of now (an archive checked against the clock of its day). */
export function verifyOptions(at: string | undefined, context: VerifyContext): VerifyOptions {
  if (at === undefined) return {};
  const time = Date.parse(at);
  if (Number.isNaN(time))
    throw context.usageError('--at must be an ISO 8601 time, e.g. 2026-12-01T12:00:00Z');
  return { now: new Date(time) };
}

/** Prints why verification failed and returns the exit code 1; rethrows anything else. */
export function notVerified(error: unknown): number {
  if (!(error instanceof VerificationError)) throw error;
  process.stdout.write(`NOT VERIFIED (${error.reason}): ${error.message}\n`);
  return 1;
}

/**
 * `verify <saved answer> --jwks FILE [--url URL] [--method METHOD] [--at TIME]`: checks an archived answer against a
 * key set, without the service. Exit 0 verified, 1 not verified, 2 a usage error.
 */
export async function verifyCommand(argv: string[], context: VerifyContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      jwks: { type: 'string' },
      url: { type: 'string' },
      method: { type: 'string', default: 'GET' },
      at: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw context.usageError('verify needs exactly one saved answer');
  const jwks = readKeySet(values.jwks, context);
  const options = verifyOptions(values.at, context);
  let answer;
  try {
    const request =
      values.url === undefined ? undefined : { method: values.method.toUpperCase(), url: values.url };
    answer = parseSavedAnswer(new Uint8Array(readFileSync(positionals[0]!)), request);
  } catch (error) {
    if (error instanceof SavedAnswerError) throw context.usageError(`${positionals[0]}: ${error.message}`);
    throw error;
  }
  try {
    const verified = await verifyAnswer(answer, jwks, options);
    process.stdout.write(
      `verified: ${answer.request.method} ${answer.request.url} answered ${answer.response.status}, ` +
        `signed by key ${verified.keyid} at ${verified.created.toISOString()}\n`,
    );
    return 0;
  } catch (error) {
    return notVerified(error);
  }
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function readManifest(directory: string): ExportManifest {
  const file = join(directory, MANIFEST_FILE);
  if (!isRegularFile(file))
    throw new VerificationError('unsigned', `${file}: no manifest (a regular file) in the directory`);
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new VerificationError('malformed', `${file}: not JSON`);
  }
  return parseManifest(document);
}

async function fileProblem(directory: string, listed: ManifestFile): Promise<string | undefined> {
  const path = join(directory, listed.name);
  if (!isRegularFile(path)) return `${listed.name}: missing, or not a regular file`;
  const digest = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    digest.update(chunk);
    bytes += chunk.length;
  }
  if (digest.digest('hex') !== listed.sha256 || bytes !== listed.bytes)
    return `${listed.name}: its SHA-256 differs from the manifest's (the file changed)`;
  const format = classifyFileName(listed.name)?.format;
  const rows = format === undefined ? undefined : await countRecords(path, format);
  if (rows !== listed.rows)
    return `${listed.name}: ${rows ?? 'unreadable'} rows, the manifest says ${listed.rows}`;
  return undefined;
}

/**
 * `verify-export <dir> --jwks FILE [--at TIME]`: the manifest's signature, then every file it lists (SHA-256, size,
 * rows), and no data file beside them that `import` would load too. Exit 0 verified, 1 not, 2 a usage error.
 */
export async function verifyExportCommand(argv: string[], context: VerifyContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { jwks: { type: 'string' }, at: { type: 'string' } },
  });
  if (positionals.length !== 1) throw context.usageError('verify-export needs exactly one directory');
  const directory = positionals[0]!;
  const jwks = readKeySet(values.jwks, context);
  const options = verifyOptions(values.at, context);
  try {
    const manifest = readManifest(directory);
    const signed = await verifyManifestSignature(manifest, jwks, options);
    const listed = new Set(manifest.files.map((file) => file.name));
    const problems = (await Promise.all(manifest.files.map((file) => fileProblem(directory, file)))).filter(
      (problem) => problem !== undefined,
    );
    for (const name of readdirSync(directory).sort())
      if (classifyFileName(name) !== undefined && !listed.has(name))
        problems.push(`${name}: a data file the manifest does not list`);
    if (problems.length > 0)
      throw new VerificationError(
        'digest-mismatch',
        `the files differ from the signed manifest:\n  ${problems.join('\n  ')}`,
      );
    const rows = manifest.files.reduce((sum, file) => sum + file.rows, 0);
    process.stdout.write(
      `verified: ${manifest.files.length} files, ${rows} rows, as exported at ${manifest.created}, signed by key ${signed.keyid}\n`,
    );
    return 0;
  } catch (error) {
    return notVerified(error);
  }
}
