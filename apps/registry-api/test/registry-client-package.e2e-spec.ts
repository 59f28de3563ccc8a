import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { PURCHASES } from './fixtures/registry-fixture';
import { listening } from './registry-client-kit';
import { type RegistryStack, startRegistryStack, stopRegistryStack } from './registry-test-kit';
import { testSigningKey } from './signing-test-kit';

// @dmrv/registry-client as an integrator gets it from npm: packed the way the release workflow packs it (`pnpm pack`,
// which writes the catalog's and the workspace's versions), with @dmrv/http-client-kit and @dmrv/http-signatures
// beside it, installed into an empty project with no network (its registry dependencies packed from this workspace's
// copies), then imported by its package name from an ES module and from CommonJS, type-checked from strict
// TypeScript in both, and used against a running registry that signs its answers.
jest.setTimeout(180_000);

const run = promisify(execFile);
const CLIENT_DIR = join(REPO_ROOT, 'libs', 'registry-client');

/** The same script, as an ES module (`import`) and as CommonJS (`require`). */
const consumer = (load: string): string => `${load}
const [baseUrl, clientId, secret] = process.argv.slice(2);
(async () => {
  const registry = createRegistryClient({
    baseUrl, credentials: { clientId, secret }, retry: false,
    verifySignatures: { jwksUrl: baseUrl + '/jwks.json' },
  });
  const ids = [];
  let pages = 0;
  for await (const page of registry.paginate('/claims/fuel-purchase/list', { pageSize: 50 })) {
    pages += 1;
    ids.push(...page.data.data.map((purchase) => purchase.fuel_id));
  }
  const missing = await registry.get('/devices/status', { query: { device_id: 'device-999' } }).catch((e) => e);
  const forged = await createRegistryClient({
    baseUrl, credentials: { clientId, secret }, verifySignatures: { jwks: { keys: [] } },
  }).get('/households/stats').catch((e) => e);
  process.stdout.write(JSON.stringify({
    pages, purchases: ids.length, distinct: new Set(ids).size,
    missing: missing instanceof HttpError ? [missing.status, missing.body.message] : String(missing),
    forged: forged instanceof SignatureVerificationError ? forged.reason : String(forged),
  }));
})();
`;

const TYPED = `import {
  createRegistryClient, HttpError, MemoryResponseCache, NetworkError, SignatureVerificationError, TimeoutError,
  type ItemOf, type Schema,
} from '@dmrv/registry-client';
const registry = createRegistryClient({
  baseUrl: 'http://localhost:3000/v1', credentials: { clientId: 'a', secret: 'b' },
  timeoutMs: 5_000, retry: { retries: 3 }, cache: new MemoryResponseCache(),
  verifySignatures: { jwksUrl: 'http://localhost:3000/v1/jwks.json' },
});
export async function purchases(signal: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  for await (const page of registry.paginate('/claims/fuel-purchase/list', { pageSize: 50, signal, query: { project_id: 'p' } })) {
    const items: ItemOf<'/claims/fuel-purchase/list'>[] = page.data.data;
    out.push(...items.map((item) => item.fuel_id ?? ''));
    const resumeAfter: string | null = page.nextCursor;
    void resumeAfter;
  }
  const stats: Schema<'HouseholdStats'> = await registry.get('/households/stats');
  const credits = await registry.get('/credits/issued', { query: { project_id: 'p', time_period: '2024' } });
  void [stats.total_households, credits.credits, HttpError, NetworkError, TimeoutError, SignatureVerificationError];
  // @ts-expect-error -- a route the API does not have
  void registry.get('/nothing');
  // @ts-expect-error -- /credits/issued needs its project and period
  void registry.get('/credits/issued');
  // @ts-expect-error -- not a collection: nothing to page
  void registry.paginate('/households/stats');
  return out;
}
`;

describe('@dmrv/registry-client, packed and installed into an empty project', () => {
  let scratch: string;
  let project: string;
  let stack: RegistryStack;
  let baseUrl: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-registry-client-'));
    const filters = ['@dmrv/registry-client', '@dmrv/http-client-kit', '@dmrv/http-signatures'].flatMap(
      (name) => ['--filter', name],
    );
    await run(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'pnpm.mjs'), ...filters, 'pack', '--pack-destination', scratch],
      { cwd: REPO_ROOT },
    );
    // Copies first: pnpm's store hard-links identical files, and npm drops hard links when it unpacks a tarball.
    const openapiFetch = realpathSync(join(CLIENT_DIR, 'node_modules', 'openapi-fetch'));
    for (const [name, source] of [
      ['openapi-fetch', openapiFetch],
      ['openapi-typescript-helpers', join(dirname(openapiFetch), 'openapi-typescript-helpers')],
      [
        'structured-headers',
        realpathSync(join(REPO_ROOT, 'libs', 'http-signatures', 'node_modules', 'structured-headers')),
      ],
    ] as const) {
      cpSync(source, join(scratch, 'copies', name), { recursive: true, dereference: true });
      // No scripts: structured-headers' `prepare` builds from sources its package does not ship.
      await run('npm', ['pack', join(scratch, 'copies', name), '--ignore-scripts', '--loglevel=error'], {
        cwd: scratch,
      });
    }
    project = join(scratch, 'consumer');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      '{ "name": "consumer", "version": "1.0.0", "private": true }\n',
    );
    const tarballs = readdirSync(scratch)
      .filter((file) => file.endsWith('.tgz'))
      .map((file) => join(scratch, file));
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs], {
      cwd: project,
    });

    const key = await testSigningKey();
    stack = await startRegistryStack('registry_client_package', {
      RATE_LIMIT_PER_MINUTE: '0',
      SIGNING_KEY: key.pem,
    });
    baseUrl = await listening(stack.app);
  });

  afterAll(async () => {
    if (stack) await stopRegistryStack(stack);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const manifest = (name: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(project, 'node_modules', '@dmrv', name, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;

  it('is a public package with ESM and CommonJS builds through `exports`, its licence, and pinned dependencies', () => {
    const registryVersion = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'apps', 'registry-api', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const client = manifest('registry-client');
    expect({
      name: client.name,
      // Released with registry-api under its version (apps/registry-api/package.json, dmrv.releasedWith).
      version: client.version,
      private: client.private,
      license: client.license,
      exports: client.exports,
      dependencies: client.dependencies,
      repository: (client.repository as { directory: string }).directory,
    }).toEqual({
      name: '@dmrv/registry-client',
      version: registryVersion,
      private: undefined,
      license: 'Apache-2.0',
      exports: {
        '.': {
          import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
          require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
        },
        './package.json': './package.json',
      },
      dependencies: {
        '@dmrv/http-client-kit': manifest('http-client-kit').version,
        '@dmrv/http-signatures': manifest('http-signatures').version,
        'openapi-fetch': '0.17.0',
      },
      repository: 'libs/registry-client',
    });
    const signatures = manifest('http-signatures');
    expect({
      private: signatures.private,
      license: signatures.license,
      dependencies: signatures.dependencies,
    }).toEqual({
      private: undefined,
      license: 'Apache-2.0',
      dependencies: { 'structured-headers': '1.0.1' },
    });
  });

  it('uses no Node-only API: its built code names neither Buffer, process nor a node: module', () => {
    const folders = [
      ...['esm', 'cjs'].map((build) => join('registry-client', 'dist', build)),
      join('http-signatures', 'dist'),
    ];
    for (const folder of folders) {
      const path = join(project, 'node_modules', '@dmrv', folder);
      for (const file of readdirSync(path).filter((entry) => entry.endsWith('.js'))) {
        const code = readFileSync(join(path, file), 'utf8');
        expect({ file: `${folder}/${file}`, nodeOnly: code.match(/\bBuffer\b|\bprocess\.|node:/g) }).toEqual({
          file: `${folder}/${file}`,
          nodeOnly: null,
        });
      }
    }
  });

  it.each([
    [
      'an ES module (import)',
      'call.mjs',
      "import { createRegistryClient, HttpError, SignatureVerificationError } from '@dmrv/registry-client';",
    ],
    [
      'CommonJS (require)',
      'call.cjs',
      "const { createRegistryClient, HttpError, SignatureVerificationError } = require('@dmrv/registry-client');",
    ],
  ])(
    'from %s: every purchase once through paginate, verified; errors typed; a foreign key set refused',
    async (_kind, file, load) => {
      writeFileSync(join(project, file), consumer(load));
      const { stdout } = await run(
        process.execPath,
        [file, baseUrl, stack.fixture.client.clientId, stack.fixture.client.secret],
        { cwd: project },
      );
      expect(JSON.parse(stdout)).toEqual({
        pages: Math.ceil(PURCHASES.length / 50),
        purchases: PURCHASES.length,
        distinct: PURCHASES.length,
        missing: [404, 'No device matches the request'],
        forged: 'unknown-key',
      });
    },
  );

  it.each([
    ['an ES module and as CommonJS (Node 16+ resolution)', ['typed.mts', 'typed.cts'], { types: ['node'] }],
    [
      'a browser build (the DOM library, no Node types)',
      ['typed.mts'],
      { types: [], lib: ['es2022', 'dom'] },
    ],
  ])('type-checks strict TypeScript as %s', async (_kind, files, options) => {
    for (const file of files) writeFileSync(join(project, file), TYPED);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          module: 'node16',
          moduleResolution: 'node16',
          target: 'es2022',
          // A Node project has @types/node (fetch's types); the repository's copy stands in.
          typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
          ...options,
        },
        files,
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project }).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  });
});
