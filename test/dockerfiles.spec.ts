import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';
import {
  HEALTH_PROTO_FILE,
  loadProtoRoot,
  PROTO_ROOT,
  QUERY_PROTO_FILES,
  REFLECTION_PROTO_FILE,
} from '@dmrv/proto';
import { optionsFromEnv } from '../tools/local-chain-node/src/options';

import { RegistryConfig } from '../apps/registry-api/src/config/registry.config';
import { UssdConfig } from '../apps/ussd-gateway/src/config/ussd.config';
import { ProtocolGatewayConfig } from '../apps/protocol-gateway/src/config/protocol-gateway.config';
import {
  copyPaths,
  Dockerfile,
  dockerIgnores,
  envValues,
  execForm,
  Instruction,
  parseDockerfile,
  readDockerignore,
  Stage,
} from './dockerfile';
import { healthcheckPath, readCompose } from './stack-files';
import { productionClosure, readManifest, workspacePackages } from './workspace';

// No Docker engine runs on the CI machines and no base image can be pulled, so the images are proven from their
// Dockerfiles: each is parsed as BuildKit reads it, and every claim below is checked against the repository (the
// workspace graph, the package manifests, the lockfile, .dockerignore, the compose file). The HEALTHCHECK commands
// themselves are run against the booted services in compose-health.e2e-spec.ts.

const IMAGES = [
  { dir: 'apps/registry-api', service: 'registry-api', port: new RegistryConfig().PORT, http: true },
  { dir: 'apps/ussd-gateway', service: 'ussd-gateway', port: new UssdConfig().PORT, http: true },
  {
    dir: 'apps/protocol-gateway',
    service: 'protocol-gateway',
    port: new ProtocolGatewayConfig().PORT,
    http: true,
  },
  { dir: 'tools/local-chain-node', service: 'local-chain-node', port: optionsFromEnv({}).port, http: false },
] as const;

const packages = workspacePackages();
const rootManifest = readManifest('.') as { packageManager?: string };
const dockerignore = readDockerignore(readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8'));
const { parsed: compose } = readCompose();
const ciRun = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');

function readImage(dir: string): Dockerfile {
  return parseDockerfile(readFileSync(join(REPO_ROOT, dir, 'Dockerfile'), 'utf8'));
}

function stage(dockerfile: Dockerfile, name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
}

function only(instructions: Instruction[], keyword: string): Instruction {
  const matching = instructions.filter((instruction) => instruction.keyword === keyword);
  expect({ keyword, count: matching.length }).toEqual({ keyword, count: 1 });
  return matching[0]!;
}

function sourceFiles(dir: string): string[] {
  const absolute = join(REPO_ROOT, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute, { recursive: true, encoding: 'utf8' })
    .map((entry) => entry.split(sep).join('/'))
    .filter(
      (entry) =>
        entry.endsWith('.ts') &&
        !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry) &&
        !entry.includes('__fixtures__'),
    )
    .map((entry) => `${dir}/${entry}`);
}

describe('the Dockerfiles under test', () => {
  it('are every Dockerfile of the workspace', () => {
    const found = [...packages.values()]
      .filter(({ dir }) => existsSync(join(REPO_ROOT, dir, 'Dockerfile')))
      .map(({ dir }) => dir);
    expect(found.sort()).toEqual(IMAGES.map(({ dir }) => dir).sort());
  });

  it('keep secrets, local state and build output out of the build context', () => {
    for (const path of [
      '.env',
      'secrets/postgres_password',
      '.git/config',
      'node_modules/x',
      'apps/registry-api/dist/main.js',
      '.local-stack/x',
    ]) {
      expect({ path, ignored: dockerIgnores(dockerignore, path) }).toEqual({ path, ignored: true });
    }
  });
});

describe.each(IMAGES.map((image) => [image.dir, image] as const))('%s/Dockerfile', (dir, image) => {
  const dockerfile = readImage(dir);
  const manifest = readManifest(dir);
  const closure = productionClosure(manifest.name, packages);
  const build = stage(dockerfile, 'build');
  const runtime = stage(dockerfile, 'runtime');
  const buildRuns = build.instructions.filter(({ keyword }) => keyword === 'RUN').map(({ args }) => args);
  // Steps that reach the npm registry carry this prefix and the `ca` secret mount (registryRun below).
  const TRUST_CA = 'NODE_EXTRA_CA_CERTS=/run/secrets/ca ';

  it('uses the BuildKit syntax it declares and a pinned Node 24 LTS base, the release .ci/run tests', () => {
    expect(dockerfile.directives.syntax).toMatch(/^docker\/dockerfile:1\.\d+$/);
    const tested = /^PRODUCTION_NODE_VERSION=(24\.\d+\.\d+)$/m.exec(ciRun)?.[1];
    expect(tested).toBeDefined();
    expect(dockerfile.globalArgs).toEqual({ NODE_IMAGE: `node:${tested}-bookworm-slim` });
    // The container tier builds that base locally, under that name (no image can be pulled on CI).
    const setup = readFileSync(join(REPO_ROOT, 'scripts', 'containers', 'setup.sh'), 'utf8');
    expect(/^NODE_VERSION=(\S+)$/m.exec(setup)?.[1]).toBe(tested);
    expect(setup).toContain('NODE_IMAGE="docker.io/library/node:${NODE_VERSION}-bookworm-slim"');
    expect(dockerfile.stages.map(({ name, from }) => [name, from])).toEqual([
      ['build', '${NODE_IMAGE}'],
      ['runtime', '${NODE_IMAGE}'],
    ]);
  });

  it('installs the pnpm release package.json pins', () => {
    const pinned = rootManifest.packageManager;
    expect(pinned).toMatch(/^pnpm@\d+\.\d+\.\d+$/);
    expect(buildRuns[0]).toBe(`${TRUST_CA}npm install --global ${pinned}`);
  });

  it('gives every step that reaches the npm registry, and only those, the optional build secret `ca` as its CA bundle', () => {
    // A TLS-intercepting proxy (CI's, a company's) signs the registry's certificate with its own CA: the bundle comes
    // in as a BuildKit secret (`--secret id=ca,src=…`), never a layer; required=false keeps plain builds working.
    const runs = build.instructions.filter(({ keyword }) => keyword === 'RUN');
    const reaching = runs.filter(({ args }) =>
      / (npm install|pnpm install|pnpm .*deploy) /.test(` ${args} `),
    );
    expect(reaching.map(({ args }) => args.replace(/ .*? (install|deploy) .*$/, ' $1'))).toEqual([
      `${TRUST_CA.trim()} install`,
      `${TRUST_CA.trim()} install`,
      `${TRUST_CA.trim()} deploy`,
    ]);
    for (const run of runs) {
      const expected = reaching.includes(run) ? { mount: 'type=secret,id=ca,required=false' } : {};
      expect({ run: run.args, flags: run.flags }).toEqual({ run: run.args, flags: expected });
      expect({ run: run.args, prefixed: run.args.startsWith(TRUST_CA) }).toEqual({
        run: run.args,
        prefixed: reaching.includes(run),
      });
    }
  });

  it('copies the manifests and the lockfile, installs, and only then copies the sources', () => {
    const installAt = build.instructions.findIndex(
      ({ keyword, args }) => keyword === 'RUN' && args.startsWith(`${TRUST_CA}pnpm install`),
    );
    expect(build.instructions[installAt]!.args).toBe(
      `${TRUST_CA}pnpm install --frozen-lockfile --filter-prod "${manifest.name}..."`,
    );
    const before = build.instructions.slice(0, installAt).filter(({ keyword }) => keyword === 'COPY');
    const copied = before.flatMap((instruction) => {
      const { sources, destination } = copyPaths(instruction);
      // Each file lands where it is in the repository, so the workspace layout is the same as on a laptop.
      for (const source of sources)
        expect({ source, destination }).toEqual({
          source,
          destination: dirname(source) === '.' ? './' : `${dirname(source)}/`,
        });
      return sources;
    });
    const manifests = closure.map(({ dir: packageDir }) => `${packageDir}/package.json`);
    expect(copied.sort()).toEqual(
      ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', ...manifests].sort(),
    );
    for (const path of copied) {
      expect({
        path,
        exists: existsSync(join(REPO_ROOT, path)),
        ignored: dockerIgnores(dockerignore, path),
      }).toEqual({ path, exists: true, ignored: false });
    }
    const after = build.instructions.slice(installAt + 1);
    expect(after[0]).toMatchObject({ keyword: 'COPY', args: '. .', flags: {} });
    expect(after.slice(1).some(({ keyword }) => keyword === 'COPY')).toBe(false);
  });

  it('builds what it installed, then deploys the app with production dependencies only into /out', () => {
    expect(buildRuns.slice(-2)).toEqual([
      `pnpm --filter-prod "${manifest.name}..." run build`,
      `${TRUST_CA}pnpm --filter "${manifest.name}" --prod deploy --legacy /out`,
    ]);
    for (const { dir: packageDir, manifest: packageManifest } of closure) {
      expect({
        packageDir,
        build: (packageManifest as { scripts?: Record<string, string> }).scripts?.build,
      }).toEqual({
        packageDir,
        build: 'rm -rf dist && tsc -p tsconfig.build.json',
      });
    }
  });

  it('ships only the deployed folder, owned by root, and runs it as a non-root user', () => {
    expect(only(runtime.instructions, 'WORKDIR').args).toBe('/app');
    const copy = only(runtime.instructions, 'COPY');
    expect(copy.flags).toEqual({ from: 'build' });
    expect(copyPaths(copy)).toEqual({ sources: ['/out'], destination: './' });
    const user = only(runtime.instructions, 'USER');
    expect(user.args).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    const order = runtime.instructions.map(({ keyword }) => keyword);
    expect(order.indexOf('USER')).toBeGreaterThan(order.indexOf('COPY'));
    expect(order.lastIndexOf('RUN')).toBeLessThan(order.indexOf('USER'));
    expect(execForm(only(runtime.instructions, 'CMD').args)).toEqual(['node', 'dist/main.js']);
    expect(envValues(runtime).NODE_ENV).toBe('production');
  });

  if (dir.startsWith('apps/'))
    it('states the release and commit it is built from (BUILD_VERSION, BUILD_COMMIT → dmrv_build_info), as compose builds it', () => {
      const args = runtime.instructions
        .filter(({ keyword }) => keyword === 'ARG')
        .map(({ args: text }) => text);
      expect(args).toEqual(['BUILD_VERSION=""', 'BUILD_COMMIT=""']);
      expect(envValues(runtime)).toMatchObject({
        DMRV_BUILD_VERSION: '${BUILD_VERSION}',
        DMRV_BUILD_COMMIT: '${BUILD_COMMIT}',
      });
      // After the deployed folder: a new commit invalidates no layer but these.
      const order = runtime.instructions.map(({ keyword }) => keyword);
      expect(order.indexOf('ARG')).toBeGreaterThan(order.indexOf('COPY'));
      const builds = Object.values(compose.services).filter(
        (service) => service.build?.dockerfile === `${dir}/Dockerfile`,
      );
      expect(builds.length).toBeGreaterThan(0);
      for (const service of builds)
        expect(service.build?.args).toEqual({
          BUILD_VERSION: '${BUILD_VERSION:-}',
          BUILD_COMMIT: '${BUILD_COMMIT:-}',
        });
    });

  it('ships every file the service reads at run time', () => {
    // pnpm deploy copies a package's `files` (and package.json) only; dist is built from src by tsconfig.build.json.
    for (const { dir: packageDir, manifest: packageManifest } of closure) {
      expect({ packageDir, files: packageManifest.files }).toEqual({
        packageDir,
        files: expect.arrayContaining(['dist']) as string[],
      });
      const tsconfig = JSON.parse(
        readFileSync(join(REPO_ROOT, packageDir, 'tsconfig.build.json'), 'utf8'),
      ) as {
        compilerOptions: { rootDir: string; outDir: string };
        include: string[];
      };
      expect({ packageDir, ...tsconfig.compilerOptions, include: tsconfig.include }).toEqual({
        packageDir,
        rootDir: 'src',
        outDir: 'dist',
        include: ['src'],
      });
      if (packageDir !== dir)
        expect({ packageDir, main: packageManifest.main }).toEqual({ packageDir, main: 'dist/index.js' });
      // A directory the code reads next to its own dist/ (libs/proto's proto/, the USSD content/) must be in `files` too.
      for (const file of sourceFiles(`${packageDir}/src`)) {
        for (const [, asset] of readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(
          /join\(__dirname, (?:'\.\.', )+'([^']+)'/g,
        )) {
          expect({ file, asset, shipped: packageManifest.files?.includes(asset!) }).toEqual({
            file,
            asset,
            shipped: true,
          });
        }
      }
      for (const shipped of (packageManifest.files ?? []).filter((entry) => entry !== 'dist')) {
        const path = `${packageDir}/${shipped}`;
        expect({
          path,
          exists: existsSync(join(REPO_ROOT, path)),
          ignored: dockerIgnores(dockerignore, path),
        }).toEqual({ path, exists: true, ignored: false });
      }
      expect({ packageDir, ignored: dockerIgnores(dockerignore, `${packageDir}/src/index.ts`) }).toEqual({
        packageDir,
        ignored: false,
      });
    }
    // The entry points: CMD and every command compose runs in this image.
    const commands = Object.values(compose.services)
      .filter((service) => service.image === compose.services[image.service]?.image)
      .map((service) => (service.entrypoint ?? service.command)?.[1] ?? 'dist/main.js');
    for (const command of new Set(['dist/main.js', ...commands])) {
      const source = `${dir}/${command.replace(/^dist\//, 'src/').replace(/\.js$/, '.ts')}`;
      expect({ command, source, exists: existsSync(join(REPO_ROOT, source)) }).toEqual({
        command,
        source,
        exists: true,
      });
    }
    // Nothing test-only ships.
    expect(closure.map(({ name }) => name)).not.toEqual(expect.arrayContaining(['@dmrv/testing']));
    expect(closure.map(({ name }) => name)).not.toContain('@dmrv/embedded-postgres');
  });

  it('answers its health check on the port it exposes and configures', () => {
    const exposed = Number(only(runtime.instructions, 'EXPOSE').args);
    expect(exposed).toBe(image.port);
    const healthcheck = only(runtime.instructions, 'HEALTHCHECK');
    expect(Object.keys(healthcheck.flags).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
    const [cmd, ...rest] = healthcheck.args.split(/\s+/);
    expect(cmd).toBe('CMD');
    const command = execForm(rest.join(' '));
    expect(command?.slice(0, 2)).toEqual(['node', '-e']);
    const script = command![2]!;
    expect(script).toContain('process.exit(1)');
    const published = (compose.services[image.service] as { ports?: string[] }).ports;
    if (image.http) {
      const match =
        /fetch\('http:\/\/127\.0\.0\.1:' \+ \(process\.env\.PORT \|\| (\d+)\) \+ '(\/[^']*)'\)/.exec(script);
      expect(match).not.toBeNull();
      expect(Number(match![1])).toBe(exposed);
      expect(envValues(runtime).PORT).toBe(String(exposed));
      // The same endpoint as compose's healthcheck; compose-health.e2e-spec.ts runs this command against the app.
      expect(match![2]).toBe(healthcheckPath(compose.services[image.service]!));
      // On 127.0.0.1 unless the operator says otherwise (compose.spec.ts), at the port the image exposes.
      expect(published).toEqual([expect.stringMatching(new RegExp(`:-${exposed}\\}:${exposed}$`)) as string]);
    } else {
      expect(script).toContain(`connect(Number(process.env.CHAIN_NODE_PORT || ${exposed}), '127.0.0.1')`);
      expect(envValues(runtime)).toMatchObject({
        CHAIN_NODE_HOST: '0.0.0.0',
        CHAIN_NODE_PORT: String(exposed),
      });
    }
  });
});

describe('run-time files beyond dist/', () => {
  it.each(['apps/registry-api', 'apps/ussd-gateway'])(
    '%s: every migration is compiled into dist and registered',
    (dir) => {
      const migrations = readdirSync(join(REPO_ROOT, dir, 'src', 'database', 'migrations')).filter(
        (file) => /^\d+-.+\.ts$/.test(file) && !file.includes('spec'),
      );
      expect(migrations.length).toBeGreaterThan(0);
      const registry = sourceFiles(`${dir}/src/database`)
        .map((file) => readFileSync(join(REPO_ROOT, file), 'utf8'))
        .join('\n');
      for (const file of migrations) {
        expect({
          file,
          registered: registry.includes(`'./migrations/${file.replace(/\.ts$/, '')}'`),
        }).toEqual({ file, registered: true });
      }
    },
  );

  it('protocol-gateway and local-chain-node: every .proto they load is in libs/proto/proto or protobufjs, both shipped', () => {
    const root = loadProtoRoot([...QUERY_PROTO_FILES, HEALTH_PROTO_FILE, REFLECTION_PROTO_FILE]);
    const protobufjs = dirname(require.resolve('protobufjs/package.json'));
    // Relative names are the well-known types compiled into protobufjs; every other file is read from disk.
    const fromDisk = root.files.filter((file) => isAbsolute(file));
    expect(fromDisk.length).toBeGreaterThan(QUERY_PROTO_FILES.length);
    expect(
      fromDisk.filter((file) => !file.startsWith(PROTO_ROOT + sep) && !file.startsWith(protobufjs + sep)),
    ).toEqual([]);
    expect(relative(REPO_ROOT, PROTO_ROOT)).toBe(join('libs', 'proto', 'proto'));
    const proto = readManifest('libs/proto');
    expect(proto.files).toContain('proto');
    expect(proto.dependencies).toHaveProperty('protobufjs');
    for (const app of ['@dmrv/protocol-gateway', '@dmrv/local-chain-node']) {
      expect(productionClosure(app, packages).map(({ name }) => name)).toContain('@dmrv/proto');
    }
  });

  it('registry-api: the OpenAPI document is built in code; Swagger UI assets come with @nestjs/swagger', () => {
    const registry = readManifest('apps/registry-api');
    expect(registry.dependencies).toHaveProperty('@nestjs/swagger');
    expect(registry.dependencies).toHaveProperty('@fastify/static');
    const lockfile = parse(readFileSync(join(REPO_ROOT, 'pnpm-lock.yaml'), 'utf8')) as {
      snapshots: Record<string, { dependencies?: Record<string, string> }>;
    };
    const swagger = Object.entries(lockfile.snapshots).filter(([key]) => key.startsWith('@nestjs/swagger@'));
    expect(swagger.length).toBe(1);
    expect(swagger[0]![1].dependencies).toHaveProperty('swagger-ui-dist');
  });

  it('ussd-gateway: the content files ship beside dist (package files); CONTENT_FILE is an operator mount, unset in compose', () => {
    expect(readManifest('apps/ussd-gateway').files).toEqual(['dist', 'content']);
    expect(existsSync(join(REPO_ROOT, 'apps/ussd-gateway/content/en.json'))).toBe(true);
    expect(compose.services['ussd-gateway']?.environment ?? {}).not.toHaveProperty('CONTENT_FILE');
  });
});
