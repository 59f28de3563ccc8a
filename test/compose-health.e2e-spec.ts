import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, exampleEnv, freePort, TestDatabase, TEST_REDIS_URL } from '@dmrv/testing';
import { bootstrap as bootstrapRegistry } from '../apps/registry-api/src/bootstrap';
import { bootstrap as bootstrapUssd } from '../apps/ussd-gateway/src/bootstrap';
import { bootstrap as bootstrapProtocol } from '../apps/protocol-gateway/src/bootstrap';
import { APP_SERVICES, healthcheckPath, readCompose } from './stack-files';

// The healthchecks in docker-compose.yml (and the Dockerfiles) must name an endpoint the app really serves.
describe('compose healthchecks target real endpoints', () => {
  const { parsed } = readCompose();
  let database: TestDatabase;
  const example = exampleEnv();

  beforeAll(async () => {
    database = await createTestDatabase('compose_health');
  });

  afterAll(async () => {
    await database.drop();
  });

  async function boot(service: string): Promise<NestFastifyApplication> {
    const quiet = { LOG_LEVEL: 'silent' };
    switch (service) {
      case 'registry-api':
        return (await bootstrapRegistry({ ...quiet, DATABASE_URL: database.url })).app;
      case 'ussd-gateway':
        return (
          await bootstrapUssd({
            ...quiet,
            DATABASE_URL: database.url,
            REDIS_URL: TEST_REDIS_URL,
            REDIS_KEY_PREFIX: `dmrv_test:${process.env.DMRV_TEST_RUN_ID}:compose:`,
            PIN_ENCRYPTION_KEY: example.PIN_ENCRYPTION_KEY,
          })
        ).app;
      case 'protocol-gateway':
        return (await bootstrapProtocol({ ...quiet, GRPC_UPSTREAM: `127.0.0.1:${await freePort()}` })).app;
      default:
        throw new Error(`no bootstrap for ${service}`);
    }
  }

  it.each(APP_SERVICES.map(({ service }) => service))('%s serves the path its healthcheck fetches', async (service) => {
    const path = healthcheckPath(parsed.services[service]!);
    expect(path).toBeDefined();
    const app = await boot(service);
    try {
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
      const response = await app.inject({ method: 'GET', url: path! });
      // 503 is a real answer (a dependency is down here on purpose for the gateway); 404 would mean a dead check.
      expect([200, 503]).toContain(response.statusCode);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    } finally {
      await app.close();
    }
  });
});
