import { conditionalRequests, MemoryResponseCache } from './conditional-requests';

type Hooks = {
  onRequest: (options: { request: Request; id: string }) => Promise<Request | undefined>;
  onResponse: (options: {
    request: Request;
    response: Response;
    id: string;
  }) => Promise<Response | undefined>;
};

const URL_A = 'http://registry.test/v1/households/stats';

describe('MemoryResponseCache', () => {
  it('keeps the last entries used, dropping the least recently used first', () => {
    const cache = new MemoryResponseCache(2);
    const answer = (etag: string) => ({ etag, headers: [], body: new Uint8Array() });
    cache.set('a', answer('1'));
    cache.set('b', answer('2'));
    cache.get('a');
    cache.set('c', answer('3'));
    expect([cache.get('a')?.etag, cache.get('b'), cache.get('c')?.etag]).toEqual(['1', undefined, '3']);
  });
});

describe('conditionalRequests', () => {
  const middleware = () => conditionalRequests(new MemoryResponseCache()) as unknown as Hooks;

  it('keeps a 200 with an ETag, asks again with If-None-Match and turns the 304 into the kept answer', async () => {
    const hooks = middleware();
    const request = new Request(URL_A);
    expect(await hooks.onRequest({ request, id: '1' })).toBeUndefined();
    const fresh = new Response('{"total_households":7}', {
      status: 200,
      headers: { etag: 'W/"abc"', 'content-type': 'application/json' },
    });
    expect(await hooks.onResponse({ request, response: fresh, id: '1' })).toBeUndefined();
    expect(await fresh.text()).toBe('{"total_households":7}');

    const again = await hooks.onRequest({ request: new Request(URL_A), id: '2' });
    expect(again?.headers.get('if-none-match')).toBe('W/"abc"');
    const kept = await hooks.onResponse({
      request: again!,
      response: new Response(null, { status: 304 }),
      id: '2',
    });
    expect([kept?.status, kept?.headers.get('content-type'), await kept?.text()]).toEqual([
      200,
      'application/json',
      '{"total_households":7}',
    ]);
  });

  it('keeps nothing without an ETag, outside 200 or for another method, and leaves a caller’s If-None-Match alone', async () => {
    const hooks = middleware();
    const request = new Request(URL_A);
    await hooks.onResponse({ request, response: new Response('{}', { status: 200 }), id: '1' });
    await hooks.onResponse({
      request,
      response: new Response('{}', { status: 404, headers: { etag: '"x"' } }),
      id: '2',
    });
    await hooks.onResponse({
      request: new Request(URL_A, { method: 'HEAD' }),
      response: new Response(null, { status: 200, headers: { etag: '"y"' } }),
      id: '3',
    });
    expect(await hooks.onRequest({ request: new Request(URL_A), id: '4' })).toBeUndefined();
    const own = new Request(URL_A, { headers: { 'if-none-match': '"mine"' } });
    await hooks.onResponse({
      request: own,
      response: new Response('{}', { headers: { etag: '"z"' } }),
      id: '5',
    });
    expect(await hooks.onRequest({ request: own, id: '6' })).toBeUndefined();
  });

  it('passes a 304 it did not ask for through unchanged', async () => {
    const hooks = middleware();
    const response = new Response(null, { status: 304 });
    expect(await hooks.onResponse({ request: new Request(URL_A), response, id: '1' })).toBeUndefined();
  });
});
