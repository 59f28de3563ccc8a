import { webcrypto } from 'node:crypto';
import { toBase64, utf8 } from './base64';
import { digestFieldValue } from './content-digest';
import { jwkThumbprint, type JsonWebKeySet, parseJwks } from './jwks';
import { coveredComponents, SIGNATURE_ALGORITHM, SIGNATURE_LABEL, SIGNATURE_TAG } from './profile';
import { fieldValue, signatureBase, signatureParamsValue } from './signature-base';
import { type AnswerToVerify, verifyAnswer } from './verify-answer';

// A signer written from the RFC's text with WebCrypto alone, so this spec checks the verifier against the format, not
// against the service's signer (the registry's e2e tests and a third-party implementation check that one).
interface TestKey {
  kid: string;
  x: string;
  privateKey: webcrypto.CryptoKey;
}

async function newKey(): Promise<TestKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, [
    'sign',
    'verify',
  ])) as unknown as webcrypto.CryptoKeyPair;
  const { x } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { kid: await jwkThumbprint(x!), x: x!, privateKey: pair.privateKey };
}

const URL_ = 'https://registry.example/v1/households/stats?project_id=P-1';

async function signedAnswer(
  key: TestKey,
  body: string,
  created: number,
  status = 200,
): Promise<AnswerToVerify> {
  const content = utf8(body);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-digest': digestFieldValue(new Uint8Array(await crypto.subtle.digest('SHA-256', content))),
    etag: 'W/"abc"',
  };
  const components = coveredComponents((field) => field in headers);
  const values = components.map((id) => ({
    id,
    value:
      id.name === '@method'
        ? 'GET'
        : id.name === '@target-uri'
          ? URL_
          : id.name === '@status'
            ? String(status)
            : fieldValue([headers[id.name]!]),
  }));
  const params = signatureParamsValue(components, {
    created,
    keyid: key.kid,
    alg: SIGNATURE_ALGORITHM,
    tag: SIGNATURE_TAG,
  });
  const signature = new Uint8Array(
    await crypto.subtle.sign('Ed25519', key.privateKey, utf8(signatureBase(values, params))),
  );
  headers['signature-input'] = `${SIGNATURE_LABEL}=${params}`;
  headers.signature = `${SIGNATURE_LABEL}=:${toBase64(signature)}:`;
  return { request: { method: 'GET', url: URL_ }, response: { status, headers, body: content } };
}

const NOW = new Date('2026-12-01T12:00:00Z');
const CREATED = Math.floor(NOW.getTime() / 1000) - 60;

describe('verifyAnswer', () => {
  let k1: TestKey;
  let k2: TestKey;
  let jwks: JsonWebKeySet;
  beforeAll(async () => {
    [k1, k2] = await Promise.all([newKey(), newKey()]);
    jwks = parseJwks({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: k1.x, kid: k1.kid }] });
  });

  it('accepts an answer signed by a key of the set, and says which key and when', async () => {
    const answer = await signedAnswer(k1, '{"households":3}', CREATED);
    await expect(verifyAnswer(answer, jwks, { now: NOW })).resolves.toEqual({
      keyid: k1.kid,
      created: new Date(CREATED * 1000),
      covered: [
        '"@method";req',
        '"@target-uri";req',
        '"@status"',
        '"content-digest"',
        '"content-type"',
        '"etag"',
      ],
    });
  });

  it('takes fetch Headers as well as a record', async () => {
    const answer = await signedAnswer(k1, '{}', CREATED);
    const headers = new Headers(answer.response.headers as Record<string, string>);
    await expect(
      verifyAnswer({ ...answer, response: { ...answer.response, headers } }, jwks, { now: NOW }),
    ).resolves.toMatchObject({ keyid: k1.kid });
  });

  const tampered: Array<[string, (answer: AnswerToVerify) => AnswerToVerify, string]> = [
    [
      'one byte of the body',
      (a) => ({ ...a, response: { ...a.response, body: utf8('{"households":4}') } }),
      'digest-mismatch',
    ],
    ['the status', (a) => ({ ...a, response: { ...a.response, status: 404 } }), 'bad-signature'],
    [
      'the URI',
      (a) => ({ ...a, request: { ...a.request, url: URL_.replace('P-1', 'P-2') } }),
      'bad-signature',
    ],
    ['the method', (a) => ({ ...a, request: { ...a.request, method: 'HEAD' } }), 'bad-signature'],
    ['the content type', (a) => withHeader(a, 'content-type', 'text/plain'), 'bad-signature'],
    [
      'the digest and the body together',
      (a) =>
        withHeader(
          { ...a, response: { ...a.response, body: utf8('{}') } },
          'content-digest',
          'sha-256=:RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=:',
        ),
      'bad-signature',
    ],
    [
      'the created time',
      (a) =>
        withHeader(
          a,
          'signature-input',
          String(header(a, 'signature-input')).replace(/created=\d+/, `created=${CREATED - 1}`),
        ),
      'bad-signature',
    ],
    [
      'no signature',
      (a) => withHeader(withHeader(a, 'signature', undefined), 'signature-input', undefined),
      'unsigned',
    ],
    [
      "another profile's tag",
      (a) =>
        withHeader(
          a,
          'signature-input',
          String(header(a, 'signature-input')).replace(SIGNATURE_TAG, 'other'),
        ),
      'unsigned',
    ],
    [
      'an ETag the signature does not cover',
      (a) => withHeader(a, 'signature-input', String(header(a, 'signature-input')).replace(' "etag"', '')),
      'not-covered',
    ],
  ];
  it.each(tampered)('refuses an answer after a change of %s', async (_what, change, reason) => {
    const answer = change(await signedAnswer(k1, '{"households":3}', CREATED));
    await expect(verifyAnswer(answer, jwks, { now: NOW })).rejects.toMatchObject({ reason });
  });

  it('refuses a key that is not in the set', async () => {
    await expect(
      verifyAnswer(await signedAnswer(k2, '{}', CREATED), jwks, { now: NOW }),
    ).rejects.toMatchObject({ reason: 'unknown-key' });
  });

  it('accepts a retired key up to the time it stopped signing, and refuses it after', async () => {
    const retired = parseJwks({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: k1.x, kid: k1.kid, exp: CREATED }] });
    await expect(
      verifyAnswer(await signedAnswer(k1, '{}', CREATED), retired, { now: NOW }),
    ).resolves.toMatchObject({ keyid: k1.kid });
    await expect(
      verifyAnswer(await signedAnswer(k1, '{}', CREATED + 1), retired, { now: NOW }),
    ).rejects.toMatchObject({ reason: 'key-retired' });
  });

  it('refuses a signature created beyond the allowed clock skew', async () => {
    const future = Math.floor(NOW.getTime() / 1000) + 301;
    await expect(
      verifyAnswer(await signedAnswer(k1, '{}', future), jwks, { now: NOW }),
    ).rejects.toMatchObject({ reason: 'created-in-future' });
  });
});

function header(answer: AnswerToVerify, name: string): unknown {
  return (answer.response.headers as Record<string, string>)[name];
}

function withHeader(answer: AnswerToVerify, name: string, value: string | undefined): AnswerToVerify {
  const headers = { ...(answer.response.headers as Record<string, string | undefined>), [name]: value };
  return { ...answer, response: { ...answer.response, headers } };
}

describe('parseJwks', () => {
  it('keeps Ed25519 keys, leaves other key types out, and refuses a malformed Ed25519 key or a repeated id', () => {
    const x = 'a'.repeat(43);
    expect(
      parseJwks({
        keys: [
          { kty: 'RSA', n: 'x', e: 'AQAB' },
          { kty: 'OKP', crv: 'Ed25519', x, kid: 'k' },
        ],
      }),
    ).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: 'k' }],
    });
    expect(() => parseJwks({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'short', kid: 'k' }] })).toThrow(
      'keys[0].x: must be a 32-byte Ed25519 public key in base64url',
    );
    expect(() => parseJwks({ keys: [{ kty: 'OKP', crv: 'Ed25519', x, kid: 'k', exp: 'soon' }] })).toThrow(
      'keys[0].exp: must be whole seconds since the epoch',
    );
    expect(() =>
      parseJwks({
        keys: [
          { kty: 'OKP', crv: 'Ed25519', x, kid: 'k' },
          { kty: 'OKP', crv: 'Ed25519', x, kid: 'k' },
        ],
      }),
    ).toThrow('two keys have the id k');
    expect(() => parseJwks([])).toThrow('a JWKS is an object with a "keys" array');
  });

  it('names keys by their RFC 7638 thumbprint', async () => {
    // RFC 8037 Appendix A.3: the thumbprint of the Appendix A.2 public key.
    await expect(jwkThumbprint('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo')).resolves.toBe(
      'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k',
    );
  });
});
