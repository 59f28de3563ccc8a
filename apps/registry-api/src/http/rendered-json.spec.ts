import Fastify from 'fastify';
import { registerRenderedJson, renderJson } from './rendered-json';

describe('registerRenderedJson', () => {
  const app = Fastify();
  registerRenderedJson(app);
  app.get('/rendered', () => renderJson({ a: 1 }));
  app.get('/plain', () => ({ a: 1 }));

  afterAll(() => app.close());

  it('sends a rendered answer as its text, with its tag and the JSON content type', async () => {
    const response = await app.inject({ method: 'GET', url: '/rendered' });
    expect({
      body: response.body,
      type: response.headers['content-type'],
      etag: response.headers.etag,
    }).toEqual({
      body: '{"a":1}',
      type: 'application/json; charset=utf-8',
      etag: renderJson({ a: 1 }).etag,
    });
  });

  it('serialises any other answer as Fastify does, without a tag', async () => {
    const response = await app.inject({ method: 'GET', url: '/plain' });
    expect({
      body: response.body,
      type: response.headers['content-type'],
      etag: response.headers.etag,
    }).toEqual({
      body: '{"a":1}',
      type: 'application/json; charset=utf-8',
      etag: undefined,
    });
  });
});
