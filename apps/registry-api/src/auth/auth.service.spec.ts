import { RegistryConfig } from '../config/registry.config';
import { ApiClientCache } from './api-client-cache';
import type { ApiClientCredentialRow, ApiClientsRepository } from './api-clients.repository';
import { AuthService } from './auth.service';
import * as credentials from './credentials';

const REFUSED = { status: 401, message: 'Invalid or revoked credentials' };
const bearer = (id: string, secret: string): string => `Bearer ${id}.${secret}`;

/** The table as the repository would read it: active rows only. */
class ActiveClients {
  readonly rows = new Map<string, ApiClientCredentialRow>();
  readonly findActive = jest.fn((id: string) => Promise.resolve(this.rows.get(id) ?? null));
}

describe('AuthService with the in-memory client cache', () => {
  const known = credentials.generateClientCredentials();
  const stranger = credentials.generateClientCredentials();
  let knownHash: string;
  let table: ActiveClients;
  let cache: ApiClientCache;
  let auth: AuthService;
  let verify: jest.SpyInstance;

  beforeAll(async () => {
    knownHash = await credentials.hashSecret(known.secret);
  });

  beforeEach(() => {
    table = new ActiveClients();
    table.rows.set(known.clientId, { id: known.clientId, secretHash: knownHash });
    cache = new ApiClientCache();
    const config = Object.assign(new RegistryConfig(), { AUTH_FAILURES_PER_MINUTE: 3 });
    auth = new AuthService(table as unknown as ApiClientsRepository, cache, config);
    verify = jest.spyOn(credentials, 'verifySecret');
  });

  afterEach(() => {
    verify.mockRestore();
  });

  it('reads the client row on every request while the cache is not trusted (listener down or unavailable)', async () => {
    for (let i = 0; i < 3; i += 1)
      await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1')).resolves.toBe(
        known.clientId,
      );
    expect(table.findActive).toHaveBeenCalledTimes(3);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('reads it once while the cache is trusted', async () => {
    cache.trust();
    for (let i = 0; i < 3; i += 1)
      await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1')).resolves.toBe(
        known.clientId,
      );
    expect(table.findActive).toHaveBeenCalledTimes(1);
  });

  it('refuses a client from the request after its revocation was reported', async () => {
    cache.trust();
    await auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1');
    table.rows.delete(known.clientId);
    cache.forget(known.clientId);
    await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1')).rejects.toMatchObject(
      REFUSED,
    );
  });

  it('checks a rotated secret against the new hash, not the remembered verification', async () => {
    cache.trust();
    await auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1');
    const rotated = credentials.generateClientCredentials().secret;
    table.rows.set(known.clientId, { id: known.clientId, secretHash: await credentials.hashSecret(rotated) });
    cache.forget(known.clientId);
    await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.0.1')).rejects.toMatchObject(
      REFUSED,
    );
    await expect(auth.authenticate(bearer(known.clientId, rotated), '10.0.0.1')).resolves.toBe(
      known.clientId,
    );
  });

  it('sends unknown ids through the decoy hash on every attempt and never caches them', async () => {
    cache.trust();
    for (let i = 0; i < 2; i += 1) {
      await expect(
        auth.authenticate(bearer(stranger.clientId, stranger.secret), `10.0.1.${i}`),
      ).rejects.toMatchObject(REFUSED);
    }
    expect(verify.mock.calls.map((call: unknown[]) => call[1])).toEqual([
      credentials.DECOY_HASH,
      credentials.DECOY_HASH,
    ]);
    expect(table.findActive).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
    // Created a moment later (the insert notification may still be on its way): it works at once.
    table.rows.set(stranger.clientId, {
      id: stranger.clientId,
      secretHash: await credentials.hashSecret(stranger.secret),
    });
    await expect(auth.authenticate(bearer(stranger.clientId, stranger.secret), '10.0.1.9')).resolves.toBe(
      stranger.clientId,
    );
  });

  it('still refuses an address that keeps failing before any lookup or hash', async () => {
    cache.trust();
    for (let i = 0; i < 3; i += 1) {
      await expect(
        auth.authenticate(bearer(known.clientId, 'x'.repeat(43)), '10.0.2.1'),
      ).rejects.toMatchObject(REFUSED);
    }
    verify.mockClear();
    table.findActive.mockClear();
    await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.2.1')).rejects.toMatchObject({
      status: 429,
      message: 'Too many failed authentication attempts from this address; retry later',
    });
    expect(verify).not.toHaveBeenCalled();
    expect(table.findActive).not.toHaveBeenCalled();
  });

  it('lets a client that has proven its secret through without a hash, whatever its address failed meanwhile', async () => {
    cache.trust();
    await auth.authenticate(bearer(known.clientId, known.secret), '10.0.3.1');
    for (let i = 0; i < 3; i += 1) {
      await expect(
        auth.authenticate(bearer(known.clientId, 'x'.repeat(43)), '10.0.3.1'),
      ).rejects.toMatchObject(REFUSED);
    }
    verify.mockClear();
    await expect(auth.authenticate(bearer(known.clientId, known.secret), '10.0.3.1')).resolves.toBe(
      known.clientId,
    );
    expect(verify).not.toHaveBeenCalled();
  });

  it('hashes identical concurrent attempts once and counts every failure among them', async () => {
    cache.trust();
    const wrong = bearer(known.clientId, 'y'.repeat(43));
    const attempts = await Promise.allSettled(
      Array.from({ length: 5 }, () => auth.authenticate(wrong, '10.0.4.1')),
    );
    expect(verify).toHaveBeenCalledTimes(1);
    expect(
      attempts.map((attempt) =>
        attempt.status === 'rejected' ? (attempt.reason as { status: number }).status : 200,
      ),
    ).toEqual([401, 401, 401, 429, 429]);
  });
});
