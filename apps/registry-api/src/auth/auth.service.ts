import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError, UnauthenticatedError } from '@dmrv/errors';
import { RegistryConfig } from '../config/registry.config';
import { ApiClientCache } from './api-client-cache';
import { ApiClientCredentialRow, ApiClientsRepository } from './api-clients.repository';
import {
  DECOY_HASH,
  looksLikeSecret,
  parseAuthorization,
  PresentedCredentials,
  secretFingerprint,
  verifySecret,
} from './credentials';
import { FailureLimiter } from './failure-limiter';
import { HashGate } from './hash-gate';

/**
 * What a client whose Authorization header cannot be read is told: the form it should have sent. `<id>:<secret>` in a
 * Bearer key (Basic's separator) is the usual slip, so a Bearer key gets its own form spelled out.
 */
function unreadableCredentialsMessage(authorization: string | undefined): string {
  if (!authorization) return 'Authentication required';
  if (/^Bearer(\s|$)/i.test(authorization)) {
    return (
      'Malformed Bearer key: send Authorization: Bearer <client_id>.<secret>, the client id and the secret joined by ' +
      'a dot (a colon joins them only in HTTP Basic)'
    );
  }
  return 'Malformed credentials: send HTTP Basic client_id:secret or Bearer <client_id>.<secret>';
}

export const AUTH_CHALLENGE = 'Basic realm="registry", charset="UTF-8", Bearer realm="registry"';

interface VerifiedSecret {
  secretHash: string;
  fingerprint: Buffer;
}

const MAX_VERIFIED = 10_000;

export class TooManyFailuresError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'TOO_MANY_AUTH_FAILURES',
      'Too many failed authentication attempts from this address; retry later',
      429,
    );
  }
}

/**
 * Verifies API client credentials. scrypt costs tens of milliseconds by design, so a successful verification is
 * remembered in memory as a SHA-256 fingerprint tied to the stored hash: a client that has proven its secret to this
 * process is checked without a hash and without the failure limiter, whatever others at its address do. Every other
 * attempt is counted by the `FailureLimiter` before its hash and waits for a slot of the `HashGate`; identical
 * credentials arriving while they are being hashed share that one hash. The client row comes from the in-memory
 * `ApiClientCache` while the change listener is live (a revocation drops it as soon as its notification arrives) and
 * from the database otherwise.
 */
@Injectable()
export class AuthService {
  private readonly verified = new Map<string, VerifiedSecret>();
  /** Hashes under way, by client id, stored hash and presented fingerprint. */
  private readonly hashing = new Map<string, Promise<boolean>>();
  private readonly failures: FailureLimiter;
  private readonly hashes: HashGate;

  constructor(
    private readonly clients: ApiClientsRepository,
    private readonly cache: ApiClientCache,
    config: RegistryConfig,
  ) {
    this.failures = new FailureLimiter(
      config.AUTH_FAILURES_PER_MINUTE,
      config.AUTH_ADDRESS_FAILURES_PER_MINUTE,
    );
    this.hashes = new HashGate(config.AUTH_HASH_CONCURRENCY, config.AUTH_HASH_QUEUE);
  }

  /**
   * The API client id, or an error: 401 for bad credentials, 429 for an address (or address and client id) that keeps
   * presenting them, 503 when too many hashes are already waiting or the client table cannot be read.
   */
  async authenticate(authorization: string | undefined, address: string): Promise<string> {
    const presented = parseAuthorization(authorization);
    if (!presented) {
      throw new UnauthenticatedError(unreadableCredentialsMessage(authorization), AUTH_CHALLENGE);
    }
    const fingerprint = secretFingerprint(presented.secret);
    const known = this.verified.get(presented.clientId);
    const proven = known !== undefined && timingSafeEqual(known.fingerprint, fingerprint);
    // A refused attempt costs neither a query nor a hash.
    const retryAfter = proven ? 0 : this.failures.retryAfterSeconds(address, presented.clientId);
    if (retryAfter > 0) throw new TooManyFailuresError(retryAfter);
    const client = this.cache.get(presented.clientId) ?? (await this.lookup(presented.clientId));
    // The remembered verification holds only for the row it was made against: not after a rotation or revocation.
    if (proven && client && known.secretHash === client.secretHash) return client.id;
    if (!(await this.verify(presented, fingerprint, client, address)) || !client) {
      throw new UnauthenticatedError('Invalid or revoked credentials', AUTH_CHALLENGE);
    }
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(client.id, { secretHash: client.secretHash, fingerprint });
    return client.id;
  }

  /** Whether the secret is the client's, counting the attempt against the limits unless it is. */
  private async verify(
    presented: PresentedCredentials,
    fingerprint: Buffer,
    client: ApiClientCredentialRow | null,
    address: string,
  ): Promise<boolean> {
    const key = `${presented.clientId} ${client?.secretHash ?? ''} ${fingerprint.toString('base64')}`;
    const underway = this.hashing.get(key);
    if (underway) {
      // These very credentials are being hashed: their result is this attempt's, and costs no hash. A failure is
      // counted now, so a burst of one wrong secret meets the limit just as a burst of different ones does.
      const matches = await underway;
      const counted = matches ? null : this.failures.reserve(address, presented.clientId);
      if (counted && !counted.allowed) throw new TooManyFailuresError(counted.retryAfterSeconds);
      return matches;
    }
    const decision = this.failures.reserve(address, presented.clientId);
    if (!decision.allowed) throw new TooManyFailuresError(decision.retryAfterSeconds);
    const { reservation } = decision;
    // Unknown and revoked clients go through the same hash as known ones: response time says nothing about ids.
    const hashed = this.hashes
      .run(() => verifySecret(presented.secret, client?.secretHash ?? DECOY_HASH))
      .then((valid) => valid && client !== null && looksLikeSecret(presented.secret));
    this.hashing.set(key, hashed);
    try {
      const matches = await hashed;
      // Only failures use the budget.
      if (matches) reservation.release();
      return matches;
    } catch (error) {
      // Not a failed authentication (the hash gate was full): the attempt does not count.
      reservation.release();
      throw error;
    } finally {
      this.hashing.delete(key);
    }
  }

  private async lookup(id: string): Promise<ApiClientCredentialRow | null> {
    const ticket = this.cache.ticket();
    const row = await this.clients.findActive(id);
    if (row) this.cache.remember(row, ticket);
    return row;
  }
}
