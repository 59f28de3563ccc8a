import { createHash, createPublicKey } from 'node:crypto';
import { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { httpbis, createVerifier } from 'http-message-signatures';
import {
  type AnswerToVerify,
  type JsonWebKeySet,
  parseSavedAnswer,
  verifyAnswer,
} from '@dmrv/http-signatures';
import { startApp, startRegistryStack, type RegistryStack, stopRegistryStack } from './registry-test-kit';
import {
  answerTo,
  header,
  publishedKeys,
  rawExchange,
  type TestSigningKey,
  testSigningKey,
} from './signing-test-kit';

const STATS = '/v1/households/stats';

describe('signed answers (RFC 9421, Ed25519; RFC 9530 Content-Digest)', () => {
  let stack: RegistryStack;
  let key: TestSigningKey;
  let jwks: JsonWebKeySet;

  beforeAll(async () => {
    key = await testSigningKey();
    stack = await startRegistryStack('registry_signed_answers', { SIGNING_KEY: key.pem });
    jwks = await publishedKeys(stack.app);
  });

  afterAll(() => stopRegistryStack(stack));

  it('publishes the signing key on GET /v1/jwks.json, without credentials', () => {
    expect(jwks).toEqual({ keys: [key.jwk] });
  });

  const REQUIRED = ['"@method";req', '"@target-uri";req', '"@status"', '"content-digest"'];
  const answers: Array<
    [string, string, { method?: 'GET' | 'HEAD'; auth?: boolean; etagOf?: string }, number, string[]]
  > = [
    ['a 200 with data', STATS, { auth: true }, 200, [...REQUIRED, '"content-type"', '"etag"']],
    [
      'a 304 (no content: the signature covers the ETag)',
      STATS,
      { auth: true, etagOf: STATS },
      304,
      [...REQUIRED, '"etag"'],
    ],
    [
      "a HEAD (empty content, the representation's Repr-Digest)",
      STATS,
      { method: 'HEAD', auth: true },
      200,
      [...REQUIRED, '"content-type"', '"etag"', '"repr-digest"'],
    ],
    ['a 400 from validation', `${STATS}?bogus=1`, { auth: true }, 400, [...REQUIRED, '"content-type"']],
    ['a 401', STATS, {}, 401, [...REQUIRED, '"content-type"']],
    ['a 404 for an unknown path', '/v1/nothing-here', { auth: true }, 404, [...REQUIRED, '"content-type"']],
    [
      'a 404 for an unknown device',
      '/v1/devices/device-999/status',
      { auth: true },
      404,
      [...REQUIRED, '"content-type"'],
    ],
    [
      "a 400 for a path that is not percent-encoding (Fastify's own)",
      '/v1/households/%zz',
      { auth: true },
      400,
      [...REQUIRED, '"content-type"'],
    ],
    ['a probe', '/health/live', {}, 200, [...REQUIRED, '"content-type"']],
    ['the key set itself', '/v1/jwks.json', {}, 200, [...REQUIRED, '"content-type"', '"etag"']],
    ['the OpenAPI document', '/v1/openapi.json', {}, 200, [...REQUIRED, '"content-type"', '"etag"']],
    ['the Swagger UI page', '/v1/api-docs', {}, 200, [...REQUIRED, '"content-type"']],
    [
      'a Swagger UI file (streamed)',
      '/v1/api-docs/swagger-ui.css',
      {},
      200,
      [...REQUIRED, '"content-type"', '"etag"'],
    ],
  ];

  it.each(answers)(
    '%s: signed by the published key over the request, status and content',
    async (_what, path, how, status, covered) => {
      const headers: Record<string, string> = how.auth ? { ...stack.auth } : {};
      if (how.etagOf)
        headers['if-none-match'] = header(await answerTo(stack.app, how.etagOf, { headers }), 'etag');
      const answer = await answerTo(stack.app, path, { method: how.method, headers });
      expect(answer.response.status).toBe(status);
      const verified = await verifyAnswer(answer, jwks);
      expect(verified.keyid).toBe(key.jwk.kid);
      expect(verified.covered.sort()).toEqual([...covered].sort());
    },
  );

  it('a HEAD answer states the digest of the representation a GET delivers', async () => {
    const head = await answerTo(stack.app, STATS, { method: 'HEAD', headers: stack.auth });
    const get = await answerTo(stack.app, STATS, { headers: stack.auth });
    expect(header(head, 'repr-digest')).toBe(header(get, 'content-digest'));
    expect(header(head, 'content-digest')).toBe(
      `sha-256=:${createHash('sha256').update('').digest('base64')}:`,
    );
  });

  it('reuses the signature of an unchanged answer, keeping its created time, and signs another URI afresh', async () => {
    const first = await answerTo(stack.app, STATS, { headers: stack.auth });
    const again = await answerTo(stack.app, STATS, { headers: stack.auth });
    expect([header(again, 'signature-input'), header(again, 'signature')]).toEqual([
      header(first, 'signature-input'),
      header(first, 'signature'),
    ]);
    const other = await answerTo(stack.app, `${STATS}?project_id=project-b`, { headers: stack.auth });
    expect(header(other, 'signature')).not.toBe(header(first, 'signature'));
  });

  it.each([
    [
      'one byte of the body',
      (a: AnswerToVerify) => ({ ...a, response: { ...a.response, body: flipLastByte(a.response.body) } }),
      'digest-mismatch',
    ],
    [
      'the status',
      (a: AnswerToVerify) => ({ ...a, response: { ...a.response, status: 203 } }),
      'bad-signature',
    ],
    [
      'the URI',
      (a: AnswerToVerify) => ({
        ...a,
        request: { ...a.request, url: a.request.url.replace('stats', 'stat') },
      }),
      'bad-signature',
    ],
  ])('an archived answer whose %s changed fails verification', async (_what, change, reason) => {
    const answer = await answerTo(stack.app, STATS, { headers: stack.auth });
    await expect(verifyAnswer(change(answer), jwks)).rejects.toMatchObject({ reason });
  });

  describe('checked by a third-party RFC 9421 implementation (http-message-signatures)', () => {
    const thirdParty = (answer: AnswerToVerify): Promise<boolean | null> =>
      httpbis.verifyMessage(
        {
          keyLookup: async ({ keyid }) => {
            const jwk = jwks.keys.find((candidate) => candidate.kid === keyid);
            if (!jwk) return null;
            const publicKey = createPublicKey({
              key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x },
              format: 'jwk',
            });
            return { id: jwk.kid, algs: ['ed25519'], verify: createVerifier(publicKey, 'ed25519') };
          },
          requiredFields: ['@status', 'content-digest', 'content-type'],
        },
        { status: answer.response.status, headers: answer.response.headers as Record<string, string> },
        { method: answer.request.method, url: answer.request.url, headers: {} },
      );
    // Content-Digest is RFC 9530's, outside RFC 9421: checked here with node:crypto, independently of our library.
    const digestMatches = (answer: AnswerToVerify): boolean =>
      header(answer, 'content-digest') ===
      `sha-256=:${createHash('sha256').update(answer.response.body).digest('base64')}:`;

    it('verifies our signature over the request method and URI, status and covered fields', async () => {
      const answer = await answerTo(stack.app, STATS, { headers: stack.auth });
      await expect(thirdParty(answer)).resolves.toBe(true);
      expect(digestMatches(answer)).toBe(true);
    });

    it('refuses a changed status or URI; a changed body byte no longer matches the signed digest', async () => {
      const answer = await answerTo(stack.app, STATS, { headers: stack.auth });
      await expect(thirdParty({ ...answer, response: { ...answer.response, status: 203 } })).resolves.toBe(
        false,
      );
      await expect(
        thirdParty({
          ...answer,
          request: { ...answer.request, url: answer.request.url.replace('stats', 'stat') },
        }),
      ).resolves.toBe(false);
      expect(
        digestMatches({
          ...answer,
          response: { ...answer.response, body: flipLastByte(answer.response.body) },
        }),
      ).toBe(false);
    });
  });

  describe("answers written outside Fastify's hooks", () => {
    let port: number;
    beforeAll(async () => {
      await stack.app.listen(0, '127.0.0.1');
      port = (stack.app.getHttpServer().address() as AddressInfo).port;
    });

    it('an unsupported Expect: 417, signed over its request', async () => {
      const raw = await exchange(
        port,
        `GET ${STATS} HTTP/1.1\r\nHost: registry.test\r\nExpect: teapot\r\n\r\n`,
      );
      const answer = { request: { method: 'GET', url: `http://registry.test${STATS}` }, response: raw };
      expect(raw.status).toBe(417);
      await expect(verifyAnswer(answer, jwks)).resolves.toMatchObject({ keyid: key.jwk.kid });
    });

    it('bytes that are not HTTP: 400, signed over status and content only, as there is no request to bind to', async () => {
      const raw = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n');
      expect(raw.status).toBe(400);
      expect(raw.headers['signature-input']).toMatch(
        /^sig1=\("@status" "content-digest" "content-type"\);created=\d+;keyid=/,
      );
      // Our verifier insists on the request binding; the third-party one checks the signature itself.
      await expect(
        verifyAnswer({ request: { method: '', url: '' }, response: raw }, jwks),
      ).rejects.toMatchObject({ reason: 'not-covered' });
      const jwk = jwks.keys[0]!;
      const verified = await httpbis.verifyMessage(
        {
          keyLookup: async () => ({
            id: jwk.kid,
            algs: ['ed25519'],
            verify: createVerifier(createPublicKey({ key: { ...jwk }, format: 'jwk' }), 'ed25519'),
          }),
        },
        { status: raw.status, headers: raw.headers },
      );
      expect(verified).toBe(true);
    });
  });
});

describe('a 429 from the rate limit is signed too', () => {
  let stack: RegistryStack;
  let app: NestFastifyApplication;
  let key: TestSigningKey;

  beforeAll(async () => {
    key = await testSigningKey();
    stack = await startRegistryStack('registry_signed_429', { SIGNING_KEY: key.pem });
    app = await startApp({
      DATABASE_URL: stack.database.url,
      SIGNING_KEY: key.pem,
      RATE_LIMIT_PER_MINUTE: '1',
    });
  });

  afterAll(async () => {
    await app?.close();
    await stopRegistryStack(stack);
  });

  it('answers the second request within the minute 429, signed', async () => {
    expect((await answerTo(app, '/v1/hello')).response.status).toBe(200);
    const limited = await answerTo(app, '/v1/hello');
    expect(limited.response.status).toBe(429);
    await expect(verifyAnswer(limited, await publishedKeys(stack.app))).resolves.toMatchObject({
      keyid: key.jwk.kid,
    });
  });
});

function flipLastByte(body: Uint8Array): Uint8Array {
  const copy = new Uint8Array(body);
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 1;
  return copy;
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The answer to raw bytes, as received (the request it names is a placeholder: these tests supply their own). */
async function exchange(port: number, request: string): Promise<RawAnswer> {
  const { response } = parseSavedAnswer(await rawExchange(port, request), {
    method: 'GET',
    url: 'http://unused/',
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers as Array<[string, string]>),
    body: response.body,
  };
}
