import { generateKeyPairSync } from 'node:crypto';
import { parseJwks, verifyAnswer } from '@dmrv/http-signatures';
import { AnswerSigner, type AnswerView } from './answer-signer';
import { signingKeyOf } from './signing-keys';

const key = signingKeyOf(generateKeyPairSync('ed25519').privateKey);
const jwks = parseJwks({ keys: [key.publicJwk] });
const answer: AnswerView = {
  request: { method: 'GET', targetUri: 'https://registry.example/v1/households/stats' },
  status: 200,
  contentType: 'application/json; charset=utf-8',
  etag: 'W/"a"',
  content: '{"households":3}',
};

describe('AnswerSigner', () => {
  let now = Date.parse('2026-12-01T12:00:00.500Z');
  const signer = new AnswerSigner(key, { maxEntries: 2, reuseMs: 60_000, now: () => now });

  it('signs what the verifier checks', async () => {
    const fields = signer.sign(answer);
    const verified = await verifyAnswer(
      {
        request: { method: 'GET', url: answer.request!.targetUri },
        response: {
          status: 200,
          headers: { 'content-type': answer.contentType, etag: answer.etag, ...fields },
          body: Buffer.from(answer.content),
        },
      },
      jwks,
      { now: new Date(now) },
    );
    expect(verified).toEqual({
      keyid: key.publicJwk.kid,
      created: new Date('2026-12-01T12:00:00Z'),
      covered: expect.any(Array),
    });
  });

  it('reuses a signature, created time included, while the answer is unchanged and younger than the reuse time', () => {
    const first = signer.sign(answer);
    now += 59_000;
    expect(signer.sign(answer)).toEqual(first);
    expect(signer.sign({ ...answer, content: '{"households":4}' })['signature-input']).not.toBe(
      first['signature-input'],
    );
    now += 1_000;
    expect(signer.sign(answer)['signature-input']).toMatch(/;created=1796126460;/);
  });

  it('keeps at most maxEntries signatures, the oldest dropped first', () => {
    const sign = (uri: string): string =>
      signer.sign({ ...answer, request: { method: 'GET', targetUri: uri } }).signature;
    const a = sign('https://r/a');
    sign('https://r/b');
    const c = sign('https://r/c');
    now += 1_000;
    // Ed25519 is deterministic: a signature made afresh differs from a kept one only through its created time.
    expect(sign('https://r/c')).toBe(c);
    expect(sign('https://r/a')).not.toBe(a);
  });
});
