import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  type JsonWebKeySet,
  JwksError,
  parseJwks,
  parseSavedAnswer,
  SavedAnswerError,
  VerificationError,
  verifyAnswer,
  type VerifyOptions,
} from '@dmrv/http-signatures';

export interface VerifyContext {
  usageError(message: string): Error;
}

/** A key set saved from `GET /v1/jwks.json` (the auditor's pinned copy). */
export function readKeySet(file: string | undefined, context: VerifyContext): JsonWebKeySet {
  if (file === undefined) throw context.usageError('--jwks is required: the key set saved from GET /v1/jwks.json');
  try {
    return parseJwks(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    if (error instanceof JwksError || error instanceof SyntaxError) throw context.usageError(`${file}: not a key set: ${error.message}`);
    throw error;
  }
}

/** `--at TIME`: verify as of that time instead of now (an archive checked against the clock of its day). */
export function verifyOptions(at: string | undefined, context: VerifyContext): VerifyOptions {
  if (at === undefined) return {};
  const time = Date.parse(at);
  if (Number.isNaN(time)) throw context.usageError('--at must be an ISO 8601 time, e.g. 2026-12-01T12:00:00Z');
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
    options: { jwks: { type: 'string' }, url: { type: 'string' }, method: { type: 'string', default: 'GET' }, at: { type: 'string' } },
  });
  if (positionals.length !== 1) throw context.usageError('verify needs exactly one saved answer');
  const jwks = readKeySet(values.jwks, context);
  const options = verifyOptions(values.at, context);
  let answer;
  try {
    const request = values.url === undefined ? undefined : { method: values.method.toUpperCase(), url: values.url };
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
