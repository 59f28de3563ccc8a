import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, REPO_ROOT, TestDatabase } from '@dmrv/testing';
import { basicAuth, loadFixture, RegistryFixture } from './fixtures/registry-fixture';
import { get, startApp } from './registry-test-kit';

// @dmrv/registry-client as an integrator gets it from npm: packed the way the release workflow packs it
// (`pnpm pack`, which resolves the workspace's catalog: versions), installed into an empty project with no network
// (it has no runtime dependencies), imported by its package name from plain JavaScript and type-checked from
// TypeScript, and used against a running registry API.
jest.setTimeout(120_000);

const run = promisify(execFile);

describe('@dmrv/registry-client, packed and installed into an empty project', () => {
  let scratch: string;
  let project: string;
  let tarball: string;
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let baseUrl: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-registry-client-'));
    await run(
      process.execPath,
      [
        join(REPO_ROOT, 'scripts', 'pnpm.mjs'),
        '--filter',
        '@dmrv/registry-client',
        'pack',
        '--pack-destination',
        scratch,
      ],
      { cwd: REPO_ROOT },
    );
    tarball = join(scratch, readdirSync(scratch).find((file) => file.endsWith('.tgz'))!);
    project = join(scratch, 'consumer');
    await run('mkdir', [project]);
    writeFileSync(
      join(project, 'package.json'),
      '{ "name": "consumer", "version": "1.0.0", "private": true }\n',
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], {
      cwd: project,
    });

    database = await createTestDatabase('registry_client_package');
    fixture = await loadFixture(database.url);
    app = await startApp({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
    await app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await app?.close();
    await fixture?.close();
    await database?.drop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('is a public package with its built JavaScript, declarations, licence and repository, and no dependencies', () => {
    const installed = join(project, 'node_modules', '@dmrv', 'registry-client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const expectedVersion = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'apps', 'registry-api', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    expect({
      name: manifest.name,
      version: manifest.version,
      private: manifest.private,
      license: manifest.license,
      main: manifest.main,
      types: manifest.types,
      dependencies: manifest.dependencies,
      repository: (manifest.repository as { directory: string }).directory,
      devDependencies: manifest.devDependencies,
    }).toEqual({
      name: '@dmrv/registry-client',
      // Released with registry-api under its version (apps/registry-api/package.json, dmrv.releasedWith).
      version: expectedVersion,
      private: undefined,
      license: 'Apache-2.0',
      main: 'dist/index.js',
      types: 'dist/index.d.ts',
      dependencies: undefined,
      repository: 'libs/registry-client',
      // pnpm pack wrote the catalog's version, which npm understands.
      devDependencies: { typescript: expect.stringMatching(/^\d+\.\d+\.\d+$/) as string },
    });
    expect(
      readdirSync(join(installed, 'dist'))
        .filter((file) => file.endsWith('.d.ts'))
        .sort(),
    ).toEqual(['generated.d.ts', 'index.d.ts', 'registry-client.d.ts']);
  });

  it('calls the running registry API from plain JavaScript, by the package name', async () => {
    writeFileSync(
      join(project, 'call.cjs'),
      `const { RegistryClient, RegistryApiError } = require('@dmrv/registry-client');
const [baseUrl, clientId, secret] = process.argv.slice(2);
(async () => {
  const registry = new RegistryClient({ baseUrl, clientId, secret });
  const stats = await registry.getHouseholdStats();
  const refused = await registry.getDeviceStatus({ device_id: 'device-999' }).catch((error) => error);
  process.stdout.write(JSON.stringify({ stats, refused: refused instanceof RegistryApiError ? refused.status : String(refused) }));
})();
`,
    );
    const { stdout } = await run(
      process.execPath,
      ['call.cjs', baseUrl, fixture.client.clientId, fixture.client.secret],
      { cwd: project },
    );
    const expected = (
      await get(app, '/v1/households/stats', { authorization: basicAuth(fixture.client) })
    ).json();
    expect(JSON.parse(stdout)).toEqual({ stats: expected, refused: 404 });
  });

  it('type-checks a TypeScript caller against the declarations it ships (exports map, node16 resolution)', async () => {
    writeFileSync(
      join(project, 'typed.ts'),
      `import { RegistryClient } from '@dmrv/registry-client';
const registry = new RegistryClient({ baseUrl: 'http://localhost/v1', clientId: 'a', secret: 'b' });
export async function households(): Promise<number> {
  const stats = await registry.getHouseholdStats();
  return stats.total_households ?? 0;
}
// @ts-expect-error -- an operation the API does not have
void registry.getNothing();
`,
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    // A Node project has @types/node (the client's options take Node's global fetch); the repository's copy stands in.
    const typeRoots = join(REPO_ROOT, 'node_modules', '@types');
    const args = [
      '--noEmit',
      '--strict',
      '--module',
      'node16',
      '--moduleResolution',
      'node16',
      '--target',
      'es2022',
      '--typeRoots',
      typeRoots,
      '--types',
      'node',
      'typed.ts',
    ];
    const result = await run(process.execPath, [tsc, ...args], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  });
});
