import {
  type JsonWebKeySet,
  parseJwks,
  VerificationError,
  type VerificationFailure,
  verifyAnswer,
} from '@dmrv/http-signatures';
import type { FetchFunction } from '@dmrv/http-client-kit';
import type { Middleware } from 'openapi-fetch';
import { headerPairs } from './conditional-requests.js';

/**
 * Which keys answers must be signed with: a key set you hold (`jwks`, the JSON of `/v1/jwks.json` pinned in your
 * configuration), or the URL of one (`jwksUrl`), fetched at the first answer and again when an answer names a key it
 * does not hold (the registry rotated its key).
 */
export type SignatureVerification = ({ jwks: unknown } | { jwksUrl: string }) & {
  /** How far an answer's `created` may lie ahead of this machine's clock; default 300 s. */
  clockSkewSeconds?: number;
};

/** Why an answer was refused: the verifier's reasons, or a key set that could not be had. */
export type SignatureFailure = VerificationFailure | 'key-set-unavailable';

/**
 * An answer that failed verification: unsigned, signed by a key outside the set, altered (a changed body fails
 * its `Content-Digest`, a changed status or header its signature) … The call rejects with this instead of resolving.
 */
export class SignatureVerificationError extends Error {
  override readonly name = 'SignatureVerificationError';

  constructor(
    readonly reason: SignatureFailure,
    readonly method: string,
    readonly url: string,
    readonly status: number | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${method} ${url}: ${message}`, options);
  }
}

/** The key set of `setting`: parsed once when pinned, fetched (and fetched again on demand) when given as a URL. */
function keySource(
  setting: SignatureVerification,
  fetch: FetchFunction,
): (refresh: boolean) => Promise<JsonWebKeySet> {
  if ('jwks' in setting) {
    const pinned = parseJwks(setting.jwks);
    return async () => pinned;
  }
  let current: Promise<JsonWebKeySet> | undefined;
  const load = async (): Promise<JsonWebKeySet> => {
    const response = await fetch(new Request(setting.jwksUrl, { headers: { accept: 'application/json' } }));
    if (response.status !== 200) throw new Error(`GET ${setting.jwksUrl} answered ${response.status}`);
    return parseJwks(await response.json());
  };
  return (refresh) => {
    if (current === undefined || refresh) {
      current = load();
      // A failed fetch is not kept: the next answer tries again.
      current.catch(() => (current = undefined));
    }
    return current;
  };
}

/**
 * openapi-fetch middleware that verifies every answer (errors included) against the key set before anything reads
 * it, and rejects the call with a {@link SignatureVerificationError} when it does not verify: fails closed.
 */
export function verifySignatures(setting: SignatureVerification, fetch: FetchFunction): Middleware {
  const keys = keySource(setting, fetch);
  const verify = async (request: Request, response: Response, refresh: boolean): Promise<void> => {
    let jwks: JsonWebKeySet;
    try {
      jwks = await keys(refresh);
    } catch (error) {
      throw new SignatureVerificationError(
        'key-set-unavailable',
        request.method,
        request.url,
        response.status,
        `no key set to verify the answer with (${(error as Error).message})`,
        { cause: error },
      );
    }
    const body = new Uint8Array(await response.clone().arrayBuffer());
    await verifyAnswer(
      {
        request: { method: request.method, url: request.url },
        response: { status: response.status, headers: headerPairs(response.headers), body },
      },
      jwks,
      { clockSkewSeconds: setting.clockSkewSeconds },
    );
  };
  return {
    async onResponse({ request, response }) {
      try {
        await verify(request, response, false).catch((error: unknown) => {
          // A key the set does not hold yet: the registry may have rotated; a fetched set is fetched again, once.
          if (error instanceof VerificationError && error.reason === 'unknown-key' && 'jwksUrl' in setting)
            return verify(request, response, true);
          throw error;
        });
      } catch (error) {
        if (!(error instanceof VerificationError)) throw error;
        throw new SignatureVerificationError(
          error.reason,
          request.method,
          request.url,
          response.status,
          error.message,
          { cause: error },
        );
      }
      return undefined;
    },
  };
}
