import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  createTestDatabase,
  exampleEnv,
  STOPPED_PORT,
  REPO_ROOT,
  TestDatabase,
  TEST_REDIS_URL,
} from '@dmrv/testing';
import { LocalChainNode, startLocalChainNode } from '../tools/local-chain-node/src';
import { bootstrap as bootstrapRegistry } from '../apps/registry-api/src/bootstrap';
import { bootstrap as bootstrapUssd } from '../apps/ussd-gateway/src/bootstrap';
import { bootstrap as bootstrapProtocol } from '../apps/protocol-gateway/src/bootstrap';
import { execForm, parseDockerfile } from './dockerfile';
import { APP_SERVICES, healthcheckPath, readCompose } from './stack-files';

/** The `node -e <script>` of an image's HEALTHCHECK. */
function dockerHealthcheck(dir: string): string {
  const dockerfile = parseDockerfile(readFileSync(join(REPO_ROOT, dir, 'Dockerfile'), 'utf8'));
  const runtime = dockerfile.stages[dockerfile.stages.length - 1]!;
  const healthcheck = runtime.instructions.find(({ keyword }) => keyword === 'HEALTHCHECK')!;
  const command = execForm(healthcheck.args.replace(/^CMD\s+/, ''))!;
  expect(command.slice(0, 2)).toEqual(['node', '-e']);
  return command[2]!;
}

/** Runs a HEALTHCHECK script as Docker would (its exit code is the verdict), with the image's variables. */
function runHealthcheck(script: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-e', script],
      { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 },
      (error) => resolve(error ? Number((error as { code?: unknown }).code ?? 1) : 0),
    );
  });
}

// The healthchecks in docker-compose.yml and the Dockerfiles must name an endpoint the app really serves, and the
// Dockerfiles' commands must pass against a ready service.
describe('compose and Dockerfile healthchecks target real endpoints', () => {
  const { parsed } = readCompose();
  let database: TestDatabase;
  let chainNode: LocalChainNode;
  const example = exampleEnv();

  beforeAll(async () => {
    database = await createTestDatabase('compose_health');
    chainNode = await startLocalChainNode({ port: 0 });
  });

  afterAll(async () => {
    await chainNode?.stop();
    await database?.drop();
  });

  async function boot(service: string, upstream: string): Promise<NestFastifyApplication> {
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
        return (await bootstrapProtocol({ ...quiet, GRPC_UPSTREAM: upstream })).app;
      default:
        throw new Error(`no bootstrap for ${service}`);
    }
  }

  it.each(APP_SERVICES.map(({ service }) => service))(
    '%s serves the path its compose healthcheck fetches',
    async (service) => {
      const path = healthcheckPath(parsed.services[service]!);
      expect(path).toBeDefined();
      // A gateway without its upstream: 503 is a real answer; 404 would mean a dead check.
      const app = await boot(service, `127.0.0.1:${STOPPED_PORT}`);
      try {
        await app.init();
        await app.getHttpAdapter().getInstance().ready();
        const response = await app.inject({ method: 'GET', url: path! });
        expect([200, 503]).toContain(response.statusCode);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
      } finally {
        await app.close();
      }
    },
  );

  it.each(APP_SERVICES.map(({ service, app }) => [service, `apps/${app}`] as const))(
    "%s passes its Dockerfile's HEALTHCHECK when ready, and fails it when nothing listens",
    async (service, dir) => {
      const script = dockerHealthcheck(dir);
      const app = await boot(service, chainNode.address);
      try {
        await app.listen({ port: 0, host: '127.0.0.1' });
        const { port } = app.getHttpServer().address() as AddressInfo;
        expect(await runHealthcheck(script, { PORT: String(port) })).toBe(0);
      } finally {
        await app.close();
      }
      expect(await runHealthcheck(script, { PORT: String(STOPPED_PORT) })).toBe(1);
    },
  );

  it("the local chain node passes its Dockerfile's HEALTHCHECK, and a closed port fails it", async () => {
    const script = dockerHealthcheck('tools/local-chain-node');
    expect(await runHealthcheck(script, { CHAIN_NODE_PORT: String(chainNode.port) })).toBe(0);
    expect(await runHealthcheck(script, { CHAIN_NODE_PORT: String(STOPPED_PORT) })).toBe(1);
  });
});
