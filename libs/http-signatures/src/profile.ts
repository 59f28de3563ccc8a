/**
 * The registry's signature profile (RFC 9421 §1.4 asks each application to state one): what every signed answer
 * carries and what a verifier must insist on.
 */

/** The signature's label in `Signature-Input` and `Signature`. */
export const SIGNATURE_LABEL = 'sig1';
/** RFC 9421 §2.3 `tag`: marks a signature as one of ours, so a verifier never mistakes another profile's for it. */
export const SIGNATURE_TAG = 'dmrv-registry';
/** RFC 9421 §6.2 (HTTP Signature Algorithms registry). */
export const SIGNATURE_ALGORITHM = 'ed25519';

/** A component identifier: a derived component (`@status`) or a field name, with its parameters (`req`). */
export interface ComponentId {
  name: string;
  /** Taken from the request the answer answers (RFC 9421 §2.4). */
  req?: boolean;
}

/** Covered by every signed answer, whatever else it covers. */
export const ALWAYS_COVERED: readonly ComponentId[] = [
  { name: '@method', req: true },
  { name: '@target-uri', req: true },
  { name: '@status' },
  { name: 'content-digest' },
];

/**
 * Fields covered whenever the answer has them: a verifier refuses an answer that carries one of these uncovered, so
 * nobody on the way can add or change them unnoticed. `etag` binds a 304 (which has no content) to the 200 it
 * revalidates; `repr-digest` states what a GET would have delivered, on answers to HEAD.
 */
export const COVERED_WHEN_PRESENT: readonly string[] = ['content-type', 'etag', 'repr-digest'];

/** The components an answer with these header fields is signed over, in signing order. */
export function coveredComponents(has: (field: string) => boolean): ComponentId[] {
  return [...ALWAYS_COVERED, ...COVERED_WHEN_PRESENT.filter(has).map((name) => ({ name }))];
}
