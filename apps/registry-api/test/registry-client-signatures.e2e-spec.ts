import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRegistryClient,
  type FetchFunction,
  HttpError,
  type JsonWebKeySet,
  MemoryResponseCache,
  type RegistryClientOptions,
  SignatureVerificationError,
} from '@dmrv/registry-client';
import { HOUSEHOLDS } from './fixtures/registry-fixture';
import { closedPort, listening } from './registry-client-kit';
import { type RegistryStack, startRegistryStack, stopRegistryStack } from './registry-test-kit';
import { publishedKeys, type TestSigningKey, testSigningKey } from './signing-test-kit';

/** The real fetch, with the answer changed on its way to the client as `change` says. */
function tampering(change: (body: Uint8Array, headers: Headers) => void): FetchFunction {
  return async (request) => {
    const answer = await fetch(request);
    const body = new Uint8Array(await answer.arrayBuffer());
    const headers = new Headers(answer.headers);
    change(body, headers);
    return new Response(answer.status === 304 ? null : body, { status: answer.status, headers });
  };
}

async function failure(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await call.then(
    () => new Error('the call resolved'),
    (caught: unknown) => caught,
  );
  if (!(error instanceof SignatureVerificationError)) throw error;
  return { reason: error.reason, status: error.status, name: error.name };
}

describe('@dmrv/registry-client verifying signed answers (RFC 9421, Ed25519; RFC 9530 Content-Digest)', () => {
  let stack: RegistryStack;
  let key: TestSigningKey;
  let jwks: JsonWebKeySet;
  let baseUrl: string;
  let keyServer: Server | undefined;
  let options: RegistryClientOptions;

  beforeAll(async () => {
    key = await testSigningKey();
    stack = await startRegistryStack('registry_client_signatures', {
      RATE_LIMIT_PER_MINUTE: '0',
      SIGNING_KEY: key.pem,
    });
    jwks = await publishedKeys(stack.app);
    baseUrl = await listening(stack.app);
    options = {
      baseUrl,
      credentials: { clientId: stack.fixture.client.clientId, secret: stack.fixture.client.secret },
      retry: false,
    };
  });

  afterAll(async () => {
    keyServer?.close();
    if (stack) await stopRegistryStack(stack);
  });

  it('verifies answers against a pinned key set: data, pages, refusals and 304s alike', async () => {
    const registry = createRegistryClient({ ...options, verifySignatures: { jwks } });
    expect((await registry.get('/households/stats')).total_households).toBe(HOUSEHOLDS.length);
    let items = 0;
    for await (const page of registry.paginate('/claims/fuel-purchase/list', { pageSize: 100 }))
      items += page.data.data.length;
    expect(items).toBeGreaterThan(100);
    // A refusal is verified too, then thrown as what it is.
    await expect(
      registry.get('/devices/status', { query: { device_id: 'device-999' } }),
    ).rejects.toBeInstanceOf(HttpError);
    const statuses: number[] = [];
    const cached = createRegistryClient({
      ...options,
      verifySignatures: { jwks },
      cache: new MemoryResponseCache(),
      fetch: async (request) => {
        const answer = await fetch(request);
        statuses.push(answer.status);
        return answer;
      },
    });
    const first = await cached.get('/households/stats');
    await expect(cached.get('/households/stats')).resolves.toEqual(first);
    expect(statuses).toEqual([200, 304]);
  });

  it('verifies against the key set the registry serves at {prefix}/v1/jwks.json', async () => {
    const registry = createRegistryClient({
      ...options,
      verifySignatures: { jwksUrl: `${baseUrl}/jwks.json` },
    });
    await expect(registry.get('/households/stats')).resolves.toMatchObject({
      total_households: HOUSEHOLDS.length,
    });
  });

  it('refuses an answer with one byte of its body changed (digest-mismatch)', async () => {
    const registry = createRegistryClient({
      ...options,
      verifySignatures: { jwks },
      fetch: tampering((body) => {
        // The first digit, one more (mod 10): still JSON, the same length, one number different.
        const at = body.findIndex((byte) => byte >= 0x30 && byte <= 0x39);
        body[at] = 0x30 + ((body[at]! - 0x30 + 1) % 10);
      }),
    });
    expect(await failure(registry.get('/households/stats'))).toEqual({
      reason: 'digest-mismatch',
      status: 200,
      name: 'SignatureVerificationError',
    });
  });

  it('refuses an answer whose covered field changed (bad-signature), or that carries no signature (unsigned)', async () => {
    const retagged = createRegistryClient({
      ...options,
      verifySignatures: { jwks },
      fetch: tampering((_body, headers) => headers.set('etag', '"forged"')),
    });
    expect(await failure(retagged.get('/households/stats'))).toMatchObject({ reason: 'bad-signature' });
    const stripped = createRegistryClient({
      ...options,
      verifySignatures: { jwks },
      fetch: tampering((_body, headers) => {
        headers.delete('signature');
        headers.delete('signature-input');
      }),
    });
    expect(await failure(stripped.get('/households/stats'))).toMatchObject({ reason: 'unsigned' });
  });

  it('refuses answers signed by a key outside the set it was given (unknown-key)', async () => {
    const other = await testSigningKey();
    const registry = createRegistryClient({ ...options, verifySignatures: { jwks: { keys: [other.jwk] } } });
    expect(await failure(registry.get('/households/stats'))).toEqual({
      reason: 'unknown-key',
      status: 200,
      name: 'SignatureVerificationError',
    });
  });

  it('fetches a served key set again when an answer names a key it lacks, once (the registry rotated)', async () => {
    const served: JsonWebKeySet[] = [{ keys: [] }, jwks, { keys: [] }, { keys: [] }];
    keyServer = createServer((_request, response) =>
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(served.shift() ?? { keys: [] })),
    );
    keyServer.listen(0, '127.0.0.1');
    await once(keyServer, 'listening');
    const jwksUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/v1/jwks.json`;
    const rotated = createRegistryClient({ ...options, verifySignatures: { jwksUrl } });
    await expect(rotated.get('/households/stats')).resolves.toMatchObject({
      total_households: HOUSEHOLDS.length,
    });
    const stale = createRegistryClient({ ...options, verifySignatures: { jwksUrl } });
    expect(await failure(stale.get('/households/stats'))).toMatchObject({ reason: 'unknown-key' });
    expect(served).toEqual([]);
  });

  it('fails closed when the key set cannot be fetched (key-set-unavailable)', async () => {
    const registry = createRegistryClient({
      ...options,
      verifySignatures: { jwksUrl: `http://127.0.0.1:${await closedPort()}/v1/jwks.json` },
    });
    expect(await failure(registry.get('/households/stats'))).toEqual({
      reason: 'key-set-unavailable',
      status: 200,
      name: 'SignatureVerificationError',
    });
  });
});
