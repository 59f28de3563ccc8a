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

type Headers = Record<string, string | string[] | undefined>;

// RFC 6750 §2.1: the scheme is case-insensitive, the token a b64token.
const BEARER_SCHEME = /^Bearer(?:\s+(.*))?$/i;
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

function firstValue(headers: Headers, name: string): string | undefined {
  const raw = headers[name];
  return (Array.isArray(raw) ? raw[0] : raw)?.trim();
}

/**
 * Decides, before any upstream call, whether a request may use a route: open, or an API key in the configured header
 * or as `Authorization: Bearer <key>` (the configured header wins when both are sent).
 * Missing key, or an Authorization header that is not a Bearer token → 401 (with a challenge naming both ways); a key
 * we do not know, or one not granted this route → 403.
 */
export class AccessPolicy {
  readonly header: string;
  readonly mode: AccessPolicyOptions['mode'];
  /**
   * Whether the Authorization header goes to the node as metadata: on an open gateway it is the caller's business
   * with the node; behind API keys it may carry our own key, which the node must never see.
   */
  readonly forwardsAuthorization: boolean;
  private readonly challenge: string;
  private readonly missing: string;

  constructor(private readonly options: AccessPolicyOptions) {
    this.header = options.header.toLowerCase();
    this.mode = options.mode;
    this.forwardsAuthorization = options.mode === 'open';
    const ownHeader = this.header !== 'authorization';
    this.challenge = ownHeader ? `ApiKey header="${this.header}", Bearer` : 'Bearer';
    this.missing = ownHeader
      ? `an API key is required in the ${this.header} header or as Authorization: Bearer <key>`
      : 'an API key is required as Authorization: Bearer <key>';
  }

  authorize(headers: Headers, route: RouteIdentity): void {
    if (this.options.mode === 'open') return;
    const presented = this.presentedKey(headers);
    if (!presented) this.unauthenticated(this.missing);
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

  private presentedKey(headers: Headers): string | undefined {
    if (this.header !== 'authorization') {
      const own = firstValue(headers, this.header);
      if (own) return own;
    }
    const authorization = firstValue(headers, 'authorization');
    if (!authorization) return undefined;
    const bearer = BEARER_SCHEME.exec(authorization);
    if (bearer) {
      const token = bearer[1]?.trim() ?? '';
      if (B64TOKEN.test(token)) return token;
    } else if (this.header === 'authorization') {
      // With the key header set to Authorization, the bare key has always been accepted there too.
      return authorization;
    }
    return this.unauthenticated('the Authorization header must be "Bearer <API key>"');
  }

  private unauthenticated(message: string): never {
    throw new GatewayError({
      grpcCode: GrpcCode.UNAUTHENTICATED,
      message,
      headers: { 'www-authenticate': this.challenge },
    });
  }
}
