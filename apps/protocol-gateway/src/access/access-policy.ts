import { createHash, timingSafeEqual } from 'node:crypto';
import { GrpcCode } from '../errors/grpc-status';
import { GatewayError } from '../errors/gateway-error';

export interface ApiKeyGrant {
  /** SHA-256 of the key: compared in constant time, and the key itself is not kept around. */
  digest: Buffer;
  /** Empty: every route. */
  scopes: string[];
}

export interface RouteIdentity {
  service: string;
  method: string;
}

function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** `*`, a module (`claims`), a service (`ixo.claims.v1beta1.Query`) or a method (`ixo.claims.v1beta1.Query/Claim`). */
export function selectorMatches(selector: string, route: RouteIdentity): boolean {
  return (
    selector === '*' ||
    selector === route.service ||
    selector === `${route.service}/${route.method}` ||
    selector === route.service.split('.')[1]
  );
}

/** `<key>` or `<key>@<scope>+<scope>` (validated by the config). */
export function parseApiKeys(entries: readonly string[]): ApiKeyGrant[] {
  return entries.map((entry) => {
    const at = entry.indexOf('@');
    const key = at === -1 ? entry : entry.slice(0, at);
    const scopes =
      at === -1
        ? []
        : entry
            .slice(at + 1)
            .split('+')
            .filter(Boolean);
    return { digest: digest(key), scopes };
  });
}

export interface AccessPolicyOptions {
  mode: 'open' | 'api-key';
  header: string;
  grants: ApiKeyGrant[];
}

/**
 * Decides, before any upstream call, whether a request may use a route: open, or an API key in a header.
 * Missing key → 401 (with a challenge naming the header); a key we do not know, or one not granted this route → 403.
 */
export class AccessPolicy {
  readonly header: string;
  /** Open: an answer may be kept by shared caches (see AnswerCache); by key, only by the caller's own. */
  readonly mode: AccessPolicyOptions['mode'];

  constructor(private readonly options: AccessPolicyOptions) {
    this.header = options.header.toLowerCase();
    this.mode = options.mode;
  }

  authorize(headers: Record<string, string | string[] | undefined>, route: RouteIdentity): void {
    if (this.options.mode === 'open') return;
    const raw = headers[this.header];
    let presented = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (presented && this.header === 'authorization') presented = presented.replace(/^Bearer\s+/i, '');
    if (!presented) {
      throw new GatewayError({
        grpcCode: GrpcCode.UNAUTHENTICATED,
        message: `an API key is required in the ${this.header} header`,
        headers: { 'www-authenticate': `ApiKey header="${this.header}"` },
      });
    }
    const candidate = digest(presented);
    const grant = this.options.grants.find((entry) => timingSafeEqual(entry.digest, candidate));
    if (!grant)
      throw new GatewayError({ grpcCode: GrpcCode.PERMISSION_DENIED, message: 'the API key is not valid' });
    if (grant.scopes.length > 0 && !grant.scopes.some((scope) => selectorMatches(scope, route))) {
      throw new GatewayError({
        grpcCode: GrpcCode.PERMISSION_DENIED,
        message: `the API key is not permitted to call ${route.service}/${route.method}`,
      });
    }
  }
}
