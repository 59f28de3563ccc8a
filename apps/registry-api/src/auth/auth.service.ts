import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError, UnauthenticatedError } from '@dmrv/errors';
import { RegistryConfig } from '../config/registry.config';
import { ApiClientCache } from './api-client-cache';
import { ApiClientCredentialRow, ApiClientsRepository } from './api-clients.repository';
import { DECOY_HASH, looksLikeSecret, parseAuthorization, secretFingerprint, verifySecret } from './credentials';
import { FailureLimiter } from './failure-limiter';

export const AUTH_CHALLENGE = 'Basic realm="registry", charset="UTF-8", Bearer realm="registry"';

interface VerifiedSecret {
  secretHash: string;
  fingerprint: Buffer;
}

const MAX_VERIFIED = 10_000;

export class TooManyFailuresError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('TOO_MANY_AUTH_FAILURES', 'Too many failed authentication attempts from this address; retry later', 429);
  }
}

/**
 * Verifies API client credentials. scrypt costs tens of milliseconds by design, so a successful verification is
 * remembered in memory as a SHA-256 fingerprint tied to the stored hash. The client row comes from the in-memory
 * `ApiClientCache` while the change listener is live (a revocation drops it as soon as its notification arrives)
 * and from the database otherwise.
 */
@Injectable()
export class AuthService {
  private readonly verified = new Map<string, VerifiedSecret>();
  private readonly failures: FailureLimiter;

  constructor(
    private readonly clients: ApiClientsRepository,
    private readonly cache: ApiClientCache,
    config: RegistryConfig,
  ) {
    this.failures = new FailureLimiter(config.AUTH_FAILURES_PER_MINUTE);
  }

  /** The API client id, or an error: 401 for bad credentials, 429 for an address that keeps presenting them. */
  async authenticate(authorization: string | undefined, address: string): Promise<string> {
    const presented = parseAuthorization(authorization);
    if (!presented) {
      throw new UnauthenticatedError(
        authorization ? 'Malformed credentials: send HTTP Basic client_id:secret or Bearer <client_id>.<secret>' : 'Authentication required',
        AUTH_CHALLENGE,
      );
    }
    const retryAfter = this.failures.retryAfterSeconds(address);
    if (retryAfter > 0) throw new TooManyFailuresError(retryAfter);
    const client = this.cache.get(presented.clientId) ?? (await this.lookup(presented.clientId));
    const fingerprint = secretFingerprint(presented.secret);
    const known = client ? this.verified.get(client.id) : undefined;
    if (client && known && known.secretHash === client.secretHash && timingSafeEqual(known.fingerprint, fingerprint)) {
      return client.id;
    }
    // Unknown and revoked clients go through the same hash as known ones: response time says nothing about ids.
    const ok = (await verifySecret(presented.secret, client?.secretHash ?? DECOY_HASH)) && client !== null && looksLikeSecret(presented.secret);
    if (!ok || !client) {
      this.failures.recordFailure(address);
      throw new UnauthenticatedError('Invalid or revoked credentials', AUTH_CHALLENGE);
    }
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(client.id, { secretHash: client.secretHash, fingerprint });
    return client.id;
  }

  private async lookup(id: string): Promise<ApiClientCredentialRow | null> {
    const ticket = this.cache.ticket();
    const row = await this.clients.findActive(id);
    if (row) this.cache.remember(row, ticket);
    return row;
  }
}
