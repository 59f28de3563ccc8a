import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';

// scripts/start.mjs (`npm start`) in a workspace of our own: the script as it is, beside a pnpm that records what it
// is asked (and builds by writing dist/) and a local stack that only says it started. What is installed or built on
// a second start must follow the content of the inputs, never their modification times.

describe('scripts/start.mjs: install and build only what changed', () => {
  let dir: string;

  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const calls = () => readFileSync(join(dir, 'pnpm.log'), 'utf8').split('\n').filter(Boolean);
  const start = (env: Record<string, string> = {}) => {
    writeFileSync(join(dir, 'pnpm.log'), '');
    const run = spawnSync(process.execPath, [join(dir, 'scripts', 'start.mjs')], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr, pnpm: calls() };
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmrv-start-'));
    mkdirSync(join(dir, 'scripts'));
    for (const script of ['start.mjs', 'workspace-packages.mjs'])
      copyFileSync(join(REPO_ROOT, 'scripts', script), join(dir, 'scripts', script));
    // The pnpm stand-in: logs its arguments; install makes node_modules, a build writes each filtered package's dist.
    write(
      'scripts/pnpm.mjs',
      `import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
const args = process.argv.slice(2);
appendFileSync('pnpm.log', args.join(' ') + '\\n');
if (process.env.FAIL_BUILD && args.includes('build')) process.exit(3);
if (args[0] === 'install') { mkdirSync('node_modules', { recursive: true }); writeFileSync('node_modules/.modules.yaml', ''); }
const names = args.flatMap((arg, at) => (args[at - 1] === '--filter' ? [arg] : []));
for (const group of ['apps', 'libs', 'tools']) for (const child of readdirSync(group)) {
  const dir = group + '/' + child;
  if (names.includes(JSON.parse(readFileSync(dir + '/package.json', 'utf8')).name)) {
    mkdirSync(dir + '/dist', { recursive: true }); writeFileSync(dir + '/dist/index.js', '');
  }
}
`,
    );
    write('tools/local-stack/dist/main.js', "process.stdout.write('local stack started\\n');\n");
    write('package.json', '{ "name": "root", "private": true, "packageManager": "pnpm@10.34.9" }\n');
    write('pnpm-lock.yaml', 'lockfileVersion: 9.0\n');
    write('pnpm-workspace.yaml', 'packages:\n  - apps/*\n  - libs/*\n  - tools/*\n');
    write('tsconfig.base.json', '{}\n');
    write(
      'libs/shared/package.json',
      '{ "name": "@x/shared", "main": "dist/index.js", "scripts": { "build": "tsc" } }\n',
    );
    write('libs/shared/src/index.ts', 'export const a = 1;\n');
    write(
      'apps/api/package.json',
      '{ "name": "@x/api", "main": "dist/index.js", "scripts": { "build": "tsc" }, "dependencies": { "@x/shared": "workspace:*" } }\n',
    );
    write('apps/api/src/main.ts', 'export {};\n');
    write(
      'apps/other/package.json',
      '{ "name": "@x/other", "main": "dist/index.js", "scripts": { "build": "tsc" } }\n',
    );
    write('apps/other/src/main.ts', 'export {};\n');
    write('tools/local-stack/package.json', '{ "name": "@x/local-stack", "private": true }\n');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs and builds everything the first time, then starts the stack', () => {
    expect(start()).toEqual({
      code: 0,
      stdout: 'npm start: building 3 of 3 packages: @x/api @x/other @x/shared\nlocal stack started\n',
      stderr: '',
      pnpm: [
        'install --frozen-lockfile',
        '--filter @x/api --filter @x/other --filter @x/shared --workspace-concurrency=2 run build',
      ],
    });
  });

  it('neither installs nor builds a second time on an unchanged tree', () => {
    expect(start()).toEqual({
      code: 0,
      stdout:
        'npm start: dependencies unchanged since the last install: not installing\n' +
        'npm start: no source changed since the last build: not building (3 packages)\nlocal stack started\n',
      stderr: '',
      pnpm: [],
    });
  });

  it('ignores modification times: a file saved with the same content changes nothing', () => {
    const later = new Date(Date.now() + 60_000);
    for (const path of ['pnpm-lock.yaml', 'libs/shared/src/index.ts', 'apps/api/package.json'])
      utimesSync(join(dir, path), later, later);
    expect(start().pnpm).toEqual([]);
  });

  it('rebuilds a changed library and what depends on it, and nothing else', () => {
    write('libs/shared/src/index.ts', 'export const a = 2;\n');
    const run = start();
    expect(run.pnpm).toEqual(['--filter @x/api --filter @x/shared --workspace-concurrency=2 run build']);
    expect(run.stdout).toContain('npm start: building 2 of 3 packages: @x/api @x/shared\n');
    expect(start().pnpm).toEqual([]);
  });

  it('rebuilds a package whose build output is gone', () => {
    rmSync(join(dir, 'apps/other/dist'), { recursive: true });
    expect(start().pnpm).toEqual(['--filter @x/other --workspace-concurrency=2 run build']);
  });

  it('installs, and rebuilds everything, when the lockfile changes', () => {
    write('pnpm-lock.yaml', 'lockfileVersion: 9.0\n# a dependency bumped\n');
    expect(start().pnpm).toEqual([
      'install --frozen-lockfile',
      '--filter @x/api --filter @x/other --filter @x/shared --workspace-concurrency=2 run build',
    ]);
  });

  it('stops on a failed build without starting the stack, and builds again on the next start', () => {
    write('apps/other/src/main.ts', 'export const broken = true;\n');
    expect(start({ FAIL_BUILD: '1' })).toEqual({
      code: 1,
      stdout:
        'npm start: dependencies unchanged since the last install: not installing\n' +
        'npm start: building 1 of 3 packages: @x/other\n',
      stderr: 'npm start: pnpm --filter @x/other --workspace-concurrency=2 run build failed (exit 3)\n',
      pnpm: ['--filter @x/other --workspace-concurrency=2 run build'],
    });
    expect(start().pnpm).toEqual(['--filter @x/other --workspace-concurrency=2 run build']);
  });
});
