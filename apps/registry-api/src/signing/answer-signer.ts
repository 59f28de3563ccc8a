import { hash, sign } from 'node:crypto';
import {
  type ComponentId,
  coveredComponents,
  fieldValue,
  SIGNATURE_ALGORITHM,
  SIGNATURE_LABEL,
  SIGNATURE_TAG,
  signatureBase,
  signatureParamsValue,
} from '@dmrv/http-signatures';
import type { SigningKey } from './signing-keys';

/** What an answer is signed over: the request it answers (when there is one), its status, the fields our profile covers. */
export interface AnswerView {
  /** Absent for bytes that were not an HTTP request (Node's client errors): such an answer binds to no request. */
  request?: { method: string; targetUri: string };
  status: number;
  contentType?: string;
  etag?: string;
  /** The content as sent: empty for a 304 and for any answer to HEAD. */
  content: string | Buffer;
  /** What a GET would have delivered, on answers to HEAD (RFC 9530 Repr-Digest). */
  representation?: string | Buffer;
}

export interface SignatureFields {
  'content-digest': string;
  'repr-digest'?: string;
  'signature-input': string;
  signature: string;
}

export interface AnswerSignerOptions {
  /** Signatures kept for reuse, the oldest dropped first (each entry holds about 600 bytes whatever the URI's length). */
  maxEntries: number;
  /** How long a signature is reused: the most `created` may lie before the answer is sent. */
  reuseMs: number;
  now?: () => number;
}

interface Kept {
  createdMs: number;
  input: string;
  signature: string;
}

/** RFC 9530 sha-256 digest field, hashed by Node (the library's WebCrypto one is asynchronous). */
export function digestField(content: string | Buffer): string {
  return `sha-256=:${hash('sha256', content, 'base64')}:`;
}

const NO_REQUEST: readonly ComponentId[] = [{ name: '@status' }, { name: 'content-digest' }];

/**
 * Signs answers (RFC 9421, Ed25519) under the registry's profile. A signature is reused while the answer is the same
 * (same request method and URI, status and covered fields, the content digest among them) and younger than
 * `reuseMs`: it keeps its `created`, the time that exact answer was first signed. Entries are keyed by a hash of
 * what they cover, so client input (a long URI) never grows them.
 */
export class AnswerSigner {
  private readonly kept = new Map<string, Kept>();
  private readonly now: () => number;

  constructor(
    private readonly key: SigningKey,
    private readonly options: AnswerSignerOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get keyid(): string {
    return this.key.publicJwk.kid;
  }

  sign(answer: AnswerView): SignatureFields {
    const fields: Record<string, string> = { 'content-digest': digestField(answer.content) };
    if (answer.contentType !== undefined) fields['content-type'] = answer.contentType;
    if (answer.etag !== undefined) fields.etag = answer.etag;
    if (answer.representation !== undefined) fields['repr-digest'] = digestField(answer.representation);
    const components = answer.request
      ? coveredComponents((field) => field in fields)
      : [...NO_REQUEST, ...(answer.contentType === undefined ? [] : [{ name: 'content-type' }])];
    const covered = components.map((id) => ({ id, value: this.valueOf(id, answer, fields) }));
    const kept = this.signatureOf(covered);
    return {
      'content-digest': fields['content-digest']!,
      ...(fields['repr-digest'] === undefined ? {} : { 'repr-digest': fields['repr-digest'] }),
      'signature-input': `${SIGNATURE_LABEL}=${kept.input}`,
      signature: `${SIGNATURE_LABEL}=:${kept.signature}:`,
    };
  }

  private valueOf(id: ComponentId, answer: AnswerView, fields: Record<string, string>): string {
    if (id.name === '@method') return answer.request!.method;
    if (id.name === '@target-uri') return answer.request!.targetUri;
    if (id.name === '@status') return String(answer.status);
    return fieldValue([fields[id.name]!]);
  }

  private signatureOf(covered: Array<{ id: ComponentId; value: string }>): Kept {
    const now = this.now();
    const identity = hash(
      'sha256',
      covered.map(({ id, value }) => `${id.name}${id.req ? ';req' : ''}\n${value}`).join('\n'),
      'base64',
    );
    const kept = this.kept.get(identity);
    if (kept !== undefined && now - kept.createdMs < this.options.reuseMs) return kept;
    const created = Math.floor(now / 1000);
    const input = signatureParamsValue(
      covered.map(({ id }) => id),
      { created, keyid: this.key.publicJwk.kid, alg: SIGNATURE_ALGORITHM, tag: SIGNATURE_TAG },
    );
    const signature = sign(null, Buffer.from(signatureBase(covered, input)), this.key.privateKey).toString(
      'base64',
    );
    const fresh = { createdMs: created * 1000, input, signature };
    this.keep(identity, fresh);
    return fresh;
  }

  private keep(identity: string, entry: Kept): void {
    if (this.options.maxEntries === 0) return;
    this.kept.delete(identity);
    this.kept.set(identity, entry);
    if (this.kept.size > this.options.maxEntries) this.kept.delete(this.kept.keys().next().value!);
  }
}
