import { AddressInfo } from 'node:net';
import { FRAMEWORK_ERROR_MESSAGES } from '@dmrv/http-kit';
import { STOPPED_PORT } from '@dmrv/testing';
import { status } from '@grpc/grpc-js';
import { ReflectionMonitor } from '../src/upstream/reflection-monitor';
import { UpstreamClient } from '../src/upstream/upstream-client';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

const KEY = 'full-0123456789abcdef';
const CLAIMS_ONLY = 'claims-0123456789abcdef';

async function withSetup(
  nodeOptions: Parameters<typeof startNode>[0] | null,
  env: Record<string, string>,
  run: (gateway: Gateway, node: LocalChainNode | undefined) => Promise<void>,
): Promise<void> {
  const node = nodeOptions ? await startNode(nodeOptions) : undefined;
  const gateway = await startGateway({
    GRPC_UPSTREAM: node ? node.address : `127.0.0.1:${STOPPED_PORT}`,
    ...env,
  });
  try {
    await run(gateway, node);
  } finally {
    await gateway.close();
    await node?.stop();
  }
}

describe('failure paths, each triggered for real', () => {
  it('501 at once for a service the node does not list in reflection', async () => {
    await withSetup({ omitServices: ['token'] }, {}, async (gateway) => {
      const { status: code, body } = await gateway.get('/ixo/token/params');
      expect(code).toBe(501);
      expect(body).toEqual({
        code: 12,
        message: 'ixo.token.v1beta1.Query is not served by the upstream node',
        details: [],
      });
      expect((await gateway.get('/ixo/entity/params')).status).toBe(200);
      const root = await gateway.get('/');
      expect(root.body.upstream.reflection).toBe('known');
      expect(root.body.upstream.services).not.toContain('ixo.token.v1beta1.Query');
    });
  });

  it('learns again from reflection when the node behind the address changes', async () => {
    const older = await startNode({ omitServices: ['token'] });
    const gateway = await startGateway({ GRPC_UPSTREAM: older.address });
    let newer: LocalChainNode | undefined;
    try {
      expect((await gateway.get('/ixo/token/params')).status).toBe(501);
      await older.stop();
      newer = await startNode({ port: older.port });
      // The periodic refresh does this on a timer; the test waits for the channel instead of the clock.
      const channel = gateway.app.get(UpstreamClient).channelClient;
      await new Promise<void>((resolve, reject) =>
        channel.waitForReady(Date.now() + 5000, (error) => (error ? reject(error) : resolve())),
      );
      await gateway.app.get(ReflectionMonitor).refresh();
      expect((await gateway.get('/ixo/token/params')).status).toBe(200);
    } finally {
      await gateway.close();
      await newer?.stop();
      await older.stop();
    }
  });

  it('501 for an absent service on a node without reflection (the node answers UNIMPLEMENTED)', async () => {
    await withSetup({ omitServices: ['ixo.iid.v1beta1.Query'], reflection: false }, {}, async (gateway) => {
      const { status: code, body } = await gateway.get('/ixo/did/dids');
      expect(code).toBe(501);
      expect(body).toEqual({
        code: 12,
        message: 'ixo.iid.v1beta1.Query/IidDocuments is not implemented by the upstream node',
        details: [],
      });
      expect((await gateway.get('/')).body.upstream.reflection).toBe('unsupported');
    });
  });

  it('503 when the upstream refuses connections, with the request id, and readiness says so', async () => {
    await withSetup(null, {}, async (gateway) => {
      const {
        status: code,
        body,
        headers,
      } = await gateway.get('/ixo/token/params', {
        'x-request-id': 'refused-1',
      });
      expect(code).toBe(503);
      expect(headers['x-request-id']).toBe('refused-1');
      expect(body).toEqual({
        code: 14,
        message: 'the upstream node is unavailable',
        details: [],
      });
      const health = await gateway.get('/health');
      expect(health.status).toBe(503);
      expect(health.headers['cache-control']).toBe('no-store');
      expect(health.body.checks.upstream.status).toBe('down');
      expect((await gateway.get('/health/live')).status).toBe(200);
    });
  });

  it('504 when the node answers after the deadline', async () => {
    await withSetup(
      { delayMs: 30_000, slowMethods: ['ixo.token.v1beta1.Query/Params'] },
      { UPSTREAM_DEADLINE_MS: '300' },
      async (gateway) => {
        const {
          status: code,
          body,
          headers,
        } = await gateway.get('/ixo/token/params', {
          'x-request-id': 'slow-1',
        });
        expect(code).toBe(504);
        expect(headers['x-request-id']).toBe('slow-1');
        expect(body).toEqual({
          code: 4,
          message: 'the upstream node did not answer within 300 ms',
          details: [],
        });
        // Other methods are not slowed down.
        expect((await gateway.get('/ixo/entity/params')).status).toBe(200);
      },
    );
  });

  it('maps injected upstream failures through the table, hiding internal detail', async () => {
    const failures = new Map<string, status>([
      ['ixo.token.v1beta1.Query/Params', status.INTERNAL],
      ['ixo.claims.v1beta1.Query/Params', status.RESOURCE_EXHAUSTED],
      ['ixo.entity.v1beta1.Query/Params', status.UNAVAILABLE],
      ['iid', status.PERMISSION_DENIED],
    ]);
    await withSetup({ failures }, {}, async (gateway) => {
      const internal = await gateway.get('/ixo/token/params');
      expect(internal.status).toBe(500);
      expect(internal.body).toEqual({
        code: 13,
        message: 'the upstream node failed (INTERNAL)',
        details: [],
      });
      const exhausted = await gateway.get('/ixo/claims/params');
      expect(exhausted.status).toBe(429);
      expect(exhausted.body.code).toBe(8);
      const unavailable = await gateway.get('/ixo/entity/params');
      expect(unavailable.status).toBe(503);
      const denied = await gateway.get('/ixo/did/dids');
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({
        code: 7,
        message: 'injected failure for ixo.iid.v1beta1.Query/IidDocuments',
        details: [],
      });
    });
  });

  describe('API-key access, decided before any upstream call', () => {
    const env = { ACCESS_MODE: 'api-key', API_KEYS: `${KEY},${CLAIMS_ONLY}@claims` };

    it('401 without a key, 403 with a wrong key or one not granted the route, 200 otherwise', async () => {
      await withSetup({}, env, async (gateway) => {
        const missing = await gateway.get('/ixo/token/params');
        expect(missing.status).toBe(401);
        expect(missing.headers['www-authenticate']).toBe('ApiKey header="x-api-key", Bearer');
        expect(missing.body).toEqual({
          code: 16,
          message: 'an API key is required in the x-api-key header or as Authorization: Bearer <key>',
          details: [],
        });
        const wrong = await gateway.get('/ixo/token/params', { 'x-api-key': 'wrong-0123456789abcdef' });
        expect(wrong.status).toBe(403);
        expect(wrong.body.code).toBe(7);
        const scoped = await gateway.get('/ixo/token/params', { 'x-api-key': CLAIMS_ONLY });
        expect(scoped.status).toBe(403);
        expect(scoped.body.message).toBe(
          'the API key is not permitted to call ixo.token.v1beta1.Query/Params',
        );
        expect((await gateway.get('/ixo/claims/params', { 'x-api-key': CLAIMS_ONLY })).status).toBe(200);
        expect((await gateway.get('/ixo/token/params', { 'x-api-key': KEY })).status).toBe(200);
        // Health and the root record stay open for probes and discovery.
        expect((await gateway.get('/health')).status).toBe(200);
        expect((await gateway.get('/')).status).toBe(200);
      });
    });

    it('answers 401/403 even when the upstream is down (no call was made)', async () => {
      await withSetup(null, { ...env, REFLECTION_ENABLED: 'false' }, async (gateway) => {
        expect((await gateway.get('/ixo/token/params')).status).toBe(401);
        expect((await gateway.get('/ixo/token/params', { 'x-api-key': CLAIMS_ONLY })).status).toBe(403);
        expect((await gateway.get('/ixo/token/params', { 'x-api-key': KEY })).status).toBe(503);
      });
    });

    it('lets CORS preflights through without a key (browsers never send one on a preflight)', async () => {
      await withSetup(null, { ...env, CORS_ORIGINS: '*', REFLECTION_ENABLED: 'false' }, async (gateway) => {
        const response = await gateway.app.inject({
          method: 'OPTIONS',
          url: '/ixo/token/params',
          headers: {
            origin: 'https://dashboard.example',
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'x-api-key',
          },
        });
        expect(response.statusCode).toBe(204);
        expect(response.headers['access-control-allow-origin']).toBe('*');
        expect(String(response.headers['access-control-allow-headers'])).toContain('x-api-key');
      });
    });

    it('accepts Authorization: Bearer <key> besides the key header, and refuses unknown or malformed Bearer tokens', async () => {
      await withSetup({}, env, async (gateway, node) => {
        const before = node!.calls.get('ixo.token.v1beta1.Query/Params') ?? 0;
        const accepted = await gateway.get('/ixo/token/params', { authorization: `Bearer ${KEY}` });
        expect(accepted.status).toBe(200);
        expect(accepted.body.params).toBeDefined();
        expect(accepted.headers['grpc-metadata-x-echo-authorization']).toBeUndefined();
        expect(accepted.headers['cache-control']).toBe('private, no-cache');
        expect(accepted.headers.vary).toBe(
          'x-cosmos-block-height, grpc-metadata-x-cosmos-block-height, authorization, x-api-key',
        );

        const unknown = await gateway.get('/ixo/token/params', {
          authorization: 'Bearer wrong-0123456789abcdef',
        });
        expect([unknown.status, unknown.body]).toEqual([
          403,
          { code: 7, message: 'the API key is not valid', details: [] },
        ]);
        const scoped = await gateway.get('/ixo/token/params', { authorization: `Bearer ${CLAIMS_ONLY}` });
        expect([scoped.status, scoped.body]).toEqual([
          403,
          {
            code: 7,
            message: 'the API key is not permitted to call ixo.token.v1beta1.Query/Params',
            details: [],
          },
        ]);
        for (const malformed of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${KEY} extra`, KEY]) {
          const refused = await gateway.get('/ixo/token/params', { authorization: malformed });
          expect([refused.status, refused.headers['www-authenticate'], refused.body]).toEqual([
            401,
            'ApiKey header="x-api-key", Bearer',
            { code: 16, message: 'the Authorization header must be "Bearer <API key>"', details: [] },
          ]);
        }
        expect((node!.calls.get('ixo.token.v1beta1.Query/Params') ?? 0) - before).toBe(1);
      });
    });

    it('never forwards Authorization to the node behind API keys, even beside the key header', async () => {
      await withSetup({}, env, async (gateway) => {
        const answer = await gateway.get('/ixo/token/params', {
          'x-api-key': KEY,
          authorization: 'Bearer node-token-0123456789',
        });
        expect(answer.status).toBe(200);
        expect(answer.headers['grpc-metadata-x-echo-authorization']).toBeUndefined();
        expect(answer.headers['grpc-metadata-x-echo-x-api-key']).toBeUndefined();
      });
    });

    it('never forwards the API key to the node', async () => {
      await withSetup({}, { ...env, API_KEY_HEADER: 'authorization' }, async (gateway) => {
        const { status: code, headers } = await gateway.get('/ixo/token/params', {
          authorization: `Bearer ${KEY}`,
        });
        expect(code).toBe(200);
        expect(headers['grpc-metadata-x-echo-authorization']).toBeUndefined();
      });
    });
  });
});

describe('requests refused before any route (by Fastify or Node), in the {code, message, details} shape', () => {
  it('a path that is not valid percent-encoding: 400, code 3, with the request id', async () => {
    await withSetup({}, {}, async (gateway) => {
      const {
        status: code,
        body,
        headers,
      } = await gateway.get('/ixo/entity/%zz', { 'x-request-id': 'bad-url-1' });
      expect(code).toBe(400);
      expect(headers['x-request-id']).toBe('bad-url-1');
      expect(body).toEqual({ code: 3, message: FRAMEWORK_ERROR_MESSAGES.badUrl, details: [] });
    });
  });

  it('headers over the limit: 431, code 8 (RESOURCE_EXHAUSTED)', async () => {
    await withSetup({}, {}, async (gateway) => {
      await gateway.app.listen(0, '127.0.0.1');
      const { port } = gateway.app.getHttpServer().address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/ixo/token/params`, {
        headers: { 'x-big': 'a'.repeat(20_000) },
      });
      expect(response.status).toBe(431);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toEqual({
        code: 8,
        message: FRAMEWORK_ERROR_MESSAGES.headersTooLarge,
        details: [],
      });
    });
  });
});

describe('configuration', () => {
  it('fails fast naming the bad variables', async () => {
    await expect(
      startGateway({ GRPC_UPSTREAM: 'nope', ACCESS_MODE: 'api-key', PROTOCOL_PREFIX: '/ixo/' }),
    ).rejects.toThrow(
      /GRPC_UPSTREAM: must be host:port[\s\S]*PROTOCOL_PREFIX[\s\S]*API_KEYS: is required when ACCESS_MODE=api-key/,
    );
  });
});
