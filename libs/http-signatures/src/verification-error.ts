/** Why an answer or a manifest failed verification; stable strings a caller can branch on. */
export type VerificationFailure =
  /** No signature of our profile (`tag="dmrv-registry"`), or a manifest without one. */
  | 'unsigned'
  /** A signature, its parameters or a digest field that does not parse, or covers a field the message lacks. */
  | 'malformed'
  /** A component our profile requires (or a covered-when-present field the answer carries) is not covered. */
  | 'not-covered'
  /** An algorithm or a component parameter this verifier does not implement. */
  | 'unsupported'
  /** The key id is not in the key set (never was, or was removed: the key is no longer trusted). */
  | 'unknown-key'
  /** Signed by a key after the time it stopped signing (its `exp` in the key set). */
  | 'key-retired'
  /** `created` lies further in the future than the allowed clock skew. */
  | 'created-in-future'
  /** `expires` has passed. */
  | 'expired'
  /** The signature does not match the message: status, method, URI, a covered field or the parameters changed. */
  | 'bad-signature'
  /** The content does not match its `Content-Digest`: the body changed after signing. */
  | 'digest-mismatch';

export class VerificationError extends Error {
  constructor(
    readonly reason: VerificationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'VerificationError';
  }
}
