import {
  ByteSequence,
  type Dictionary,
  type InnerList,
  type Item,
  parseDictionary,
} from 'structured-headers';
import { fromBase64, utf8 } from './base64';
import { checkContentDigest } from './content-digest';
import { type Ed25519PublicJwk, type JsonWebKeySet, verificationKey } from './jwks';
import {
  ALWAYS_COVERED,
  type ComponentId,
  COVERED_WHEN_PRESENT,
  SIGNATURE_ALGORITHM,
  SIGNATURE_TAG,
} from './profile';
import {
  componentIdentifier,
  type CoveredValue,
  fieldValue,
  serializedParams,
  signatureBase,
} from './signature-base';
import { VerificationError } from './verification-error';

/** Header fields as a fetch `Headers` object (iterable pairs) or a Node/undici-style record. */
export type HeaderSource =
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[] | number | undefined>;

export interface AnswerToVerify {
  /** The request the answer answers: its method and the absolute URL it was sent to, exactly as sent. */
  request: { method: string; url: string };
  response: { status: number; headers: HeaderSource; body: Uint8Array };
}

export interface VerifyOptions {
  /** The time to verify at; default now. */
  now?: Date;
  /** How far `created` may lie ahead of `now` (clocks differ); default 300 s. */
  clockSkewSeconds?: number;
}

export interface VerifiedAnswer {
  keyid: string;
  /** When the answer was signed (a reused signature keeps the time it was first made: docs/security.md). */
  created: Date;
  /** The covered components as the base names them, e.g. `"@target-uri";req`. */
  covered: string[];
}

function fieldLines(headers: HeaderSource): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  const add = (name: string, value: string): void => {
    const key = name.toLowerCase();
    lines.set(key, [...(lines.get(key) ?? []), value]);
  };
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<readonly [string, string]>) add(name, value);
  } else {
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const line of value as string[]) add(name, line);
      else add(name, String(value));
    }
  }
  return lines;
}

function fail(reason: VerificationError['reason'], message: string): never {
  throw new VerificationError(reason, message);
}

interface FoundSignature {
  list: InnerList;
  signature: Uint8Array;
}

/** The first signature of our profile: `Signature-Input` and `Signature` members under one label, tagged ours. */
function findSignature(fields: Map<string, string[]>): FoundSignature {
  const input = fields.get('signature-input');
  const value = fields.get('signature');
  if (input === undefined || value === undefined)
    fail('unsigned', 'the answer has no Signature-Input and Signature');
  let inputs: Dictionary;
  let signatures: Dictionary;
  try {
    inputs = parseDictionary(fieldValue(input));
    signatures = parseDictionary(fieldValue(value));
  } catch (error) {
    fail('malformed', `Signature-Input or Signature does not parse: ${(error as Error).message}`);
  }
  for (const [label, member] of inputs) {
    if (!Array.isArray(member[0]) || member[1].get('tag') !== SIGNATURE_TAG) continue;
    const bytes = signatures.get(label)?.[0];
    const signature = bytes instanceof ByteSequence ? fromBase64(bytes.toBase64()) : undefined;
    if (signature === undefined) fail('malformed', `Signature has no byte sequence labelled ${label}`);
    return { list: member as InnerList, signature };
  }
  return fail('unsigned', `no signature tagged "${SIGNATURE_TAG}"`);
}

function componentOf([name, parameters]: Item): ComponentId {
  if (typeof name !== 'string') fail('malformed', 'a covered component is not a string');
  for (const parameter of parameters.keys())
    if (parameter !== 'req')
      fail('unsupported', `component parameter ;${parameter} (on ${name}) is not implemented`);
  return parameters.get('req') === true ? { name, req: true } : { name };
}

function valueOf(id: ComponentId, answer: AnswerToVerify, fields: Map<string, string[]>): string {
  const named = componentIdentifier(id);
  if (id.name === '@status' && !id.req) return String(answer.response.status);
  if (id.name === '@method' && id.req) return answer.request.method;
  if (id.name === '@target-uri' && id.req) return answer.request.url;
  if (id.name.startsWith('@') || id.req) return fail('unsupported', `component ${named} is not implemented`);
  const lines = fields.get(id.name);
  if (lines === undefined)
    return fail('malformed', `the signature covers ${named}, which the answer does not carry`);
  return fieldValue(lines);
}

function requireProfile(covered: ComponentId[], fields: Map<string, string[]>): void {
  const names = new Set(covered.map(componentIdentifier));
  const required = [
    ...ALWAYS_COVERED,
    ...COVERED_WHEN_PRESENT.filter((field) => fields.has(field)).map((name) => ({ name })),
  ];
  for (const id of required) {
    const named = componentIdentifier(id);
    if (!names.has(named)) fail('not-covered', `the signature does not cover ${named}`);
  }
}

interface Parameters {
  created: number;
  keyid: string;
  expires?: number;
}

function parametersOf(list: InnerList): Parameters {
  const { created, keyid, alg, expires } = Object.fromEntries(list[1]);
  if (typeof created !== 'number' || !Number.isInteger(created))
    fail('malformed', 'the signature has no integer created');
  if (typeof keyid !== 'string') fail('malformed', 'the signature has no keyid');
  if (alg !== undefined && alg !== SIGNATURE_ALGORITHM)
    fail('unsupported', `algorithm ${String(alg)} is not ${SIGNATURE_ALGORITHM}`);
  if (expires !== undefined && (typeof expires !== 'number' || !Number.isInteger(expires)))
    fail('malformed', 'expires is not an integer');
  return { created, keyid, ...(expires === undefined ? {} : { expires }) };
}

/** The key that made a signature at `created`, trusted at `now`: in the set, and not signing after it stopped. */
export function signingKeyAt(
  jwks: JsonWebKeySet,
  keyid: string,
  created: number,
  nowSeconds: number,
  skewSeconds: number,
): Ed25519PublicJwk {
  const key = jwks.keys.find((candidate) => candidate.kid === keyid);
  if (key === undefined) fail('unknown-key', `key ${keyid} is not in the key set`);
  if (created > nowSeconds + skewSeconds)
    fail('created-in-future', `created ${new Date(created * 1000).toISOString()} is in the future`);
  if (key.exp !== undefined && created > key.exp)
    fail(
      'key-retired',
      `key ${keyid} stopped signing at ${new Date(key.exp * 1000).toISOString()}, before this signature`,
    );
  return key;
}

export async function verifyEd25519(
  key: Ed25519PublicJwk,
  signature: Uint8Array,
  data: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return false;
  return crypto.subtle.verify(
    'Ed25519',
    await verificationKey(key),
    signature as Uint8Array<ArrayBuffer>,
    data as Uint8Array<ArrayBuffer>,
  );
}

/**
 * Verifies a registry answer against a key set: a signature of our profile over the request's method and URI, the
 * status, the content digest and the fields our profile covers when present, made by a key of the set while it was
 * signing, and content that matches its `Content-Digest`. Resolves with who signed and when; rejects with a
 * `VerificationError` saying why not.
 */
export async function verifyAnswer(
  answer: AnswerToVerify,
  jwks: JsonWebKeySet,
  options: VerifyOptions = {},
): Promise<VerifiedAnswer> {
  const fields = fieldLines(answer.response.headers);
  const { list, signature } = findSignature(fields);
  const covered = list[0].map(componentOf);
  requireProfile(covered, fields);
  const parameters = parametersOf(list);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (parameters.expires !== undefined && parameters.expires < now)
    fail('expired', 'the signature has expired');
  const key = signingKeyAt(jwks, parameters.keyid, parameters.created, now, options.clockSkewSeconds ?? 300);
  const values: CoveredValue[] = covered.map((id: ComponentId) => ({
    id,
    value: valueOf(id, answer, fields),
  }));
  const base = signatureBase(values, serializedParams(list));
  if (!(await verifyEd25519(key, signature, utf8(base))))
    fail(
      'bad-signature',
      'the signature does not match the answer (status, method, URI or a covered field differs)',
    );
  const digest = await checkContentDigest(fieldValue(fields.get('content-digest')!), answer.response.body);
  if (!digest.ok) {
    if (digest.reason === 'mismatch')
      fail('digest-mismatch', `the content does not match its Content-Digest (${digest.algorithm})`);
    fail(
      'malformed',
      `Content-Digest: ${digest.reason === 'no-sha-256' ? 'no sha-256 member' : 'does not parse'}`,
    );
  }
  return {
    keyid: parameters.keyid,
    created: new Date(parameters.created * 1000),
    covered: covered.map(componentIdentifier),
  };
}
