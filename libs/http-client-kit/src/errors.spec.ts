import { HttpError, httpErrorFrom, NetworkError, throwHttpErrors } from './errors';

const request = new Request('http://gateway.test/ixo/claims/claim/x');

describe('HttpError', () => {
  it('says the method, URL, status and the body message; carries the Retry-After hint', () => {
    const error = new HttpError('GET', request.url, 503, new Headers({ 'retry-after': '7' }), {
      code: 14,
      message: 'the upstream node is unavailable',
      details: [],
    });
    expect({ name: error.name, message: error.message, retryAfterMs: error.retryAfterMs }).toEqual({
      name: 'HttpError',
      message: 'GET http://gateway.test/ixo/claims/claim/x: 503 the upstream node is unavailable',
      retryAfterMs: 7_000,
    });
  });

  it('reads the body as JSON when it parses, else as text, and none when empty', async () => {
    const json = await httpErrorFrom(
      request,
      new Response('{"code":5,"message":"claim x not found","details":[]}', { status: 404 }),
    );
    const text = await httpErrorFrom(request, new Response('Bad Gateway', { status: 502 }));
    const empty = await httpErrorFrom(request, new Response(null, { status: 500 }));
    expect([json.body, text.body, empty.body]).toEqual([
      { code: 5, message: 'claim x not found', details: [] },
      'Bad Gateway',
      undefined,
    ]);
    expect([json.message, text.message, empty.message]).toEqual([
      'GET http://gateway.test/ixo/claims/claim/x: 404 claim x not found',
      'GET http://gateway.test/ixo/claims/claim/x: 502 Bad Gateway',
      'GET http://gateway.test/ixo/claims/claim/x: 500',
    ]);
  });
});

describe('throwHttpErrors (openapi-fetch middleware)', () => {
  it('rejects an answer outside 2xx with an HttpError and lets 2xx through', async () => {
    await expect(
      throwHttpErrors.onResponse({ request, response: new Response('{}', { status: 200 }) }),
    ).resolves.toBeUndefined();
    await expect(
      throwHttpErrors.onResponse({ request, response: new Response('{}', { status: 429 }) }),
    ).rejects.toMatchObject({
      name: 'HttpError',
      status: 429,
    });
  });
});

describe('NetworkError', () => {
  it("names the cause's code as Node's fetch reports it", () => {
    const cause = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(new NetworkError('GET', request.url, cause).message).toBe(
      'GET http://gateway.test/ixo/claims/claim/x: no answer from the server (fetch failed: ECONNREFUSED)',
    );
  });
});
