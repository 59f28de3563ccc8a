import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AddressInfo } from 'node:net';
import { FRAMEWORK_ERROR_MESSAGES } from '@dmrv/http-kit';
import { CompletedRequest, RequestLogging } from '@dmrv/logging';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { get, startApp, stopRegistryStack } from './registry-test-kit';

// What the HTTP layer shared by the three services does for this one: its access line and the requests that
// Fastify or Node refuse before any route.
describe('registry-api at the HTTP edge', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    database = await createTestDatabase('registry_http_edge');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url });
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('the access line names the authenticated client by id, and no client when authentication failed', async () => {
    const logged: CompletedRequest[] = [];
    const logging = app.get(RequestLogging);
    const completed = jest
      .spyOn(logging, 'completed')
      .mockImplementation((request) => void logged.push(request));
    try {
      expect(
        (await get(app, '/v1/households/stats', { authorization: basicAuth(fixture.client) })).statusCode,
      ).toBe(200);
      expect((await get(app, '/v1/households/stats')).statusCode).toBe(401);
    } finally {
      completed.mockRestore();
    }
    expect(logged.map(({ url, clientId, client }) => ({ url, clientId, client }))).toEqual([
      { url: '/v1/households/stats', clientId: fixture.client.clientId, client: '127.0.0.1' },
      { url: '/v1/households/stats', clientId: undefined, client: '127.0.0.1' },
    ]);
  });

  it('a path that is not valid percent-encoding: 400 { message } with the request id', async () => {
    const response = await get(app, '/v1/households/%zz', { 'x-request-id': 'bad-url-1' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toBe('bad-url-1');
    expect(response.json()).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.badUrl });
  });

  it('headers over the limit: 431 { message }', async () => {
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/v1/households/stats`, {
      headers: { 'x-big': 'a'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ message: FRAMEWORK_ERROR_MESSAGES.headersTooLarge });
  });
});
