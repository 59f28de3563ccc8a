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
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

// @dmrv/chain-client as an integrator gets it from npm: packed the way the release workflow packs it (`pnpm pack`,
// which writes the catalog's and the workspace's versions), with @dmrv/http-client-kit beside it, installed into an
// empty project with no network (its registry dependencies, openapi-fetch and openapi-typescript-helpers, packed from
// this workspace's copies), then imported by its package name from an ES module and from CommonJS, type-checked from
// strict TypeScript in both, and used against a running gateway.
jest.setTimeout(180_000);

const run = promisify(execFile);
const CLIENT_DIR = join(REPO_ROOT, 'libs', 'chain-client');

/** The same script, as an ES module (`import`) and as CommonJS (`require`). */
const consumer = (load: string): string => `${load}
const [baseUrl] = process.argv.slice(2);
(async () => {
  const chain = createChainClient({ baseUrl, retry: false });
  const ids = [];
  let pages = 0;
  for await (const page of chain.paginate('/ixo/claims/claims', { pageSize: 50 })) {
    pages += 1;
    ids.push(...page.data.claims.map((claim) => claim.claim_id));
  }
  const missing = await chain.get('/ixo/claims/claim/{id}', { params: { path: { id: 'nope' } } }).catch((e) => e);
  const params = await chain.get('/ixo/claims/params');
  process.stdout.write(JSON.stringify({
    pages, claims: ids.length, distinct: new Set(ids).size,
    missing: missing instanceof HttpError ? [missing.status, missing.body.code] : String(missing),
    fee: params.params.network_fee_percentage,
    duration: String(parseDuration('3600s').seconds),
  }));
})();
`;

const TYPED = `import { createChainClient, HttpError, NetworkError, TimeoutError, type Schema } from '@dmrv/chain-client';
const chain = createChainClient({ baseUrl: 'http://localhost:3002', timeoutMs: 5_000, retry: { retries: 3 } });
export async function collections(signal: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  for await (const page of chain.paginate('/ixo/claims/claims', { pageSize: 50, signal })) {
    const claims: Schema<'ixo.claims.v1beta1.Claim'>[] = page.data.claims;
    out.push(...claims.map((claim) => claim.collection_id));
    const resumeAfter: string | null = page.nextCursor;
    void resumeAfter;
  }
  const { claim } = await chain.get('/ixo/claims/claim/{id}', { params: { path: { id: 'x' } } });
  const submitted: string | null | undefined = claim?.submission_date;
  const fee: string = (await chain.get('/ixo/claims/params')).params!.network_fee_percentage;
  void [submitted, fee, HttpError, NetworkError, TimeoutError];
  // @ts-expect-error -- a route the chain does not have
  void chain.get('/ixo/nothing');
  // @ts-expect-error -- the claim route needs its id
  void chain.get('/ixo/claims/claim/{id}');
  // @ts-expect-error -- the gateway prints proto names, not camelCase
  void claim?.collectionId;
  // @ts-expect-error -- not a list route: nothing to page
  void chain.paginate('/ixo/claims/params');
  return out;
}
`;

describe('@dmrv/chain-client, packed and installed into an empty project', () => {
  let scratch: string;
  let project: string;
  let node: LocalChainNode;
  let gateway: Gateway;
  let baseUrl: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-chain-client-'));
    await run(
      process.execPath,
      [
        join(REPO_ROOT, 'scripts', 'pnpm.mjs'),
        '--filter',
        '@dmrv/chain-client',
        '--filter',
        '@dmrv/http-client-kit',
        'pack',
        '--pack-destination',
        scratch,
      ],
      { cwd: REPO_ROOT },
    );
    // Copies first: pnpm's store hard-links identical files, and npm drops hard links when it unpacks a tarball.
    const openapiFetch = realpathSync(join(CLIENT_DIR, 'node_modules', 'openapi-fetch'));
    for (const [name, source] of [
      ['openapi-fetch', openapiFetch],
      ['openapi-typescript-helpers', join(dirname(openapiFetch), 'openapi-typescript-helpers')],
    ] as const) {
      cpSync(source, join(scratch, 'copies', name), { recursive: true, dereference: true });
      await run('npm', ['pack', join(scratch, 'copies', name), '--loglevel=error'], { cwd: scratch });
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

    node = await startNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    await gateway.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(gateway.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  const manifest = (name: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(project, 'node_modules', '@dmrv', name, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;

  it('is a public package with ESM and CommonJS builds through `exports`, its licence, and pinned dependencies', () => {
    const gatewayVersion = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'apps', 'protocol-gateway', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const kit = manifest('http-client-kit');
    const client = manifest('chain-client');
    const dualExports = {
      '.': {
        import: { types: './dist/esm/index.d.ts', default: './dist/esm/index.js' },
        require: { types: './dist/cjs/index.d.ts', default: './dist/cjs/index.js' },
      },
      './package.json': './package.json',
    };
    expect({
      name: client.name,
      // Released with the protocol gateway under its version (apps/protocol-gateway/package.json, dmrv.releasedWith).
      version: client.version,
      private: client.private,
      license: client.license,
      exports: client.exports,
      dependencies: client.dependencies,
      repository: (client.repository as { directory: string }).directory,
    }).toEqual({
      name: '@dmrv/chain-client',
      version: gatewayVersion,
      private: undefined,
      license: 'Apache-2.0',
      exports: dualExports,
      dependencies: { 'openapi-fetch': '0.17.0', '@dmrv/http-client-kit': kit.version },
      repository: 'libs/chain-client',
    });
    expect({
      name: kit.name,
      license: kit.license,
      exports: kit.exports,
      dependencies: kit.dependencies,
    }).toEqual({
      name: '@dmrv/http-client-kit',
      license: 'Apache-2.0',
      exports: dualExports,
      dependencies: undefined,
    });
  });

  it('uses no Node-only API: its built code names neither Buffer, process nor a node: module', () => {
    for (const name of ['chain-client', 'http-client-kit']) {
      for (const build of ['esm', 'cjs']) {
        const folder = join(project, 'node_modules', '@dmrv', name, 'dist', build);
        for (const file of readdirSync(folder).filter((entry) => entry.endsWith('.js'))) {
          const code = readFileSync(join(folder, file), 'utf8');
          expect({
            file: `${name}/${build}/${file}`,
            nodeOnly: code.match(/\bBuffer\b|\bprocess\.|node:/g),
          }).toEqual({
            file: `${name}/${build}/${file}`,
            nodeOnly: null,
          });
        }
      }
    }
  });

  it.each([
    [
      'an ES module (import)',
      'call.mjs',
      "import { createChainClient, HttpError, parseDuration } from '@dmrv/chain-client';",
    ],
    [
      'CommonJS (require)',
      'call.cjs',
      "const { createChainClient, HttpError, parseDuration } = require('@dmrv/chain-client');",
    ],
  ])(
    'from %s: every claim of the 260 once through paginate, errors and decimals as printed',
    async (_kind, file, load) => {
      writeFileSync(join(project, file), consumer(load));
      const { stdout } = await run(process.execPath, [file, baseUrl], { cwd: project });
      expect(JSON.parse(stdout)).toEqual({
        pages: 6,
        claims: 260,
        distinct: 260,
        missing: [404, 5],
        fee: '1.500000000000000000',
        duration: '3600',
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
