import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { buildOpenApiDocument } from '../src/registry-openapi';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { get, startApp, stopRegistryStack } from './registry-test-kit';

interface Operation {
  security?: unknown[];
}

/**
 * Every GET route the document publishes (and the `/fuel/usage` alias), each with an answerable query: the
 * guards are global, so each route must get them whether Nest or anything else serves it.
 */
async function protectedRoutes(): Promise<string[]> {
  const document = (await buildOpenApiDocument('/v1')) as unknown as {
    paths: Record<string, { get?: Operation }>;
  };
  const query: Record<string, string> = {
    '/credits/issued': '?project_id=project-a&time_period=2024-Q1',
  };
  const paths = Object.entries(document.paths)
    .filter(([, item]) => item.get !== undefined && item.get.security?.length !== 0)
    .map(([path]) => path);
  // Paths in the document are relative to its server, `/v1`.
  return [...paths, '/fuel/usage'].map((path) => `/v1${path}${query[path] ?? ''}`);
}

describe('registry-api guards on every route (authentication, then the per-client rate limit)', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let routes: string[];

  beforeAll(async () => {
    routes = await protectedRoutes();
    database = await createTestDatabase('registry_route_guards');
    fixture = await loadFixture(database.url);
    // A budget of exactly one request per route.
    app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: String(routes.length) });
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  it('finds the routes to check (the checks below are not vacuous)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(23);
    expect(routes).toEqual(
      expect.arrayContaining(['/v1/devices/status', '/v1/households/stats', '/v1/claims/fuel-purchase/list']),
    );
  });

  it('answers 401 {message} with WWW-Authenticate on every route without credentials', async () => {
    for (const url of routes) {
      const response = await get(app, url);
      expect({ url, status: response.statusCode, body: response.json() }).toEqual({
        url,
        status: 401,
        body: { message: 'Authentication required' },
      });
      expect(response.headers['www-authenticate']).toMatch(/^Basic realm="registry"/);
    }
  });

  it('counts every route against one budget per client, then answers 429 {message} on every route', async () => {
    const auth = { authorization: basicAuth(fixture.client) };
    const served = [];
    for (const url of routes) {
      const response = await get(app, url, auth);
      served.push({
        url,
        status: response.statusCode,
        limit: response.headers['x-ratelimit-limit'],
        remaining: response.headers['x-ratelimit-remaining'],
      });
    }
    expect(served).toEqual(
      routes.map((url, index) => ({
        url,
        status: 200,
        limit: String(routes.length),
        remaining: String(routes.length - 1 - index),
      })),
    );
    for (const url of routes) {
      const response = await get(app, url, auth);
      expect({ url, status: response.statusCode, body: response.json() }).toEqual({
        url,
        status: 429,
        body: { message: 'ThrottlerException: Too Many Requests' },
      });
      expect(response.headers['retry-after']).toBeDefined();
    }
  });
});
