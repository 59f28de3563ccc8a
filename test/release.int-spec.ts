import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { GIT_ENV } from './scratch-git';

const SCRIPT = join(REPO_ROOT, 'scripts', 'release.mjs');


const CHANGELOG = `# Changelog

Intro text.

## [Unreleased]

## [0.1.0] - 2026-11-01

### Added

- Everything.
`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('scripts/release.mjs on a temporary repository', () => {
  let repo: string;

  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8' }).trim();
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), content);
  };
  const commit = (path: string, content: string, subject: string) => {
    write(path, content);
    git('add', path);
    git('commit', '-q', '-m', subject);
    return git('rev-parse', '--short', 'HEAD');
  };
  const release = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [SCRIPT, ...args],
        { cwd: join(repo, 'apps'), env: GIT_ENV },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
      );
    });
  const version = (app: string) =>
    (JSON.parse(readFileSync(join(repo, 'apps', app, 'package.json'), 'utf8')) as { version: string })
      .version;
  const today = () => new Date().toISOString().slice(0, 10);
  const state = () => ({
    head: git('rev-parse', 'HEAD'),
    tags: git('tag', '--list'),
    status: git('status', '--porcelain'),
  });

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'dmrv-release-'));
    git('init', '-q', '-b', 'main');
    write('package.json', '{ "name": "root", "private": true }\n');
    write('pnpm-workspace.yaml', "packages:\n  - apps/*\n  - 'libs/*'\n");
    write(
      'apps/alpha/package.json',
      '{\n  "name": "@x/alpha",\n  "version": "0.1.0",\n  "license": "Apache-2.0",\n  "dependencies": { "@x/shared": "workspace:*", "left-pad": "1.3.0" },\n  "devDependencies": { "@x/testkit": "workspace:*" }\n}\n',
    );
    write('apps/beta/package.json', '{\n  "name": "@x/beta",\n  "version": "1.4.2"\n}\n');
    write('libs/shared/package.json', '{ "name": "@x/shared" }\n');
    write('libs/testkit/package.json', '{ "name": "@x/testkit" }\n');
    write('CHANGELOG.md', CHANGELOG);
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    git('tag', '-a', 'alpha@0.1.0', '-m', 'alpha 0.1.0');
    git('tag', '-a', 'beta@1.4.2', '-m', 'beta 1.4.2');
  });

  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
  });

  const hashes: Record<string, string> = {};

  it('collects the commits touching the app and the libraries it ships with, filed by their first word', async () => {
    hashes.route = commit('apps/alpha/src/route.ts', 'export {};\n', 'alpha: add a route');
    hashes.menu = commit('apps/beta/src/menu.ts', 'export {};\n', 'beta: fix the menu');
    hashes.parser = commit('libs/shared/src/parser.ts', 'export {};\n', 'shared: fix a parser');
    hashes.testkit = commit('libs/testkit/src/kit.ts', 'export {};\n', 'testkit: add a helper');
    hashes.docs = commit('README.md', '# x\n', 'docs: a readme');
    hashes.endpoint = commit('apps/alpha/src/old.ts', '// gone\n', 'alpha: remove the old endpoint');
    hashes.tune = commit('apps/alpha/src/route.ts', 'export const a = 1;\n', 'alpha: cheaper route');
    const before = state();

    const dry = await release('alpha', 'minor', '--dry-run');

    expect(dry.code).toBe(0);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toBe(
      [
        'alpha: 0.1.0 -> 0.2.0, tag alpha@0.2.0, 4 commit(s) since alpha@0.1.0',
        '',
        `## [alpha@0.2.0] - ${today()}`,
        '',
        '### Added',
        '',
        `- alpha: add a route (${hashes.route})`,
        '',
        '### Changed',
        '',
        `- alpha: cheaper route (${hashes.tune})`,
        '',
        '### Removed',
        '',
        `- alpha: remove the old endpoint (${hashes.endpoint})`,
        '',
        '### Fixed',
        '',
        `- shared: fix a parser (${hashes.parser})`,
        '',
        '(dry run: nothing changed)',
        '',
      ].join('\n'),
    );
    expect(state()).toEqual(before);
    expect(version('alpha')).toBe('0.1.0');
  });

  it('bumps the version, writes the section under Unreleased, commits both files and tags the commit', async () => {
    const run = await release('alpha', 'minor');

    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'committed and tagged alpha@0.2.0; push with: git push && git push origin alpha@0.2.0',
    );
    expect(version('alpha')).toBe('0.2.0');
    const manifest = readFileSync(join(repo, 'apps', 'alpha', 'package.json'), 'utf8');
    expect(manifest).toContain('  "version": "0.2.0",\n  "license": "Apache-2.0",');
    const changelog = readFileSync(join(repo, 'CHANGELOG.md'), 'utf8');
    expect(
      changelog.startsWith(
        `# Changelog\n\nIntro text.\n\n## [Unreleased]\n\n## [alpha@0.2.0] - ${today()}\n\n### Added\n\n`,
      ),
    ).toBe(true);
    expect(changelog).toContain(`- shared: fix a parser (${hashes.parser})\n\n## [0.1.0] - 2026-11-01\n`);
    expect(changelog).not.toContain('beta: fix the menu');
    expect(changelog).not.toContain('testkit');
    expect(changelog).not.toContain('docs: a readme');
    expect(git('log', '-1', '--format=%s')).toBe('alpha: release 0.2.0');
    expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
      'CHANGELOG.md',
      'apps/alpha/package.json',
    ]);
    expect(git('rev-parse', 'alpha@0.2.0^{commit}')).toBe(git('rev-parse', 'HEAD'));
    expect(git('cat-file', '-t', 'alpha@0.2.0')).toBe('tag');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('refuses a release with no new commits since the last tag, changing nothing', async () => {
    const before = state();
    const run = await release('alpha', 'patch');
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'release: no commits touching apps/alpha, libs/shared since alpha@0.2.0\n',
    });
    expect(state()).toEqual(before);
  });

  it("releases another app from its own tag; the first app's release commit is not its change", async () => {
    const run = await release('beta', 'major');
    expect(run.code).toBe(0);
    expect(version('beta')).toBe('2.0.0');
    const changelog = readFileSync(join(repo, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toContain(
      `## [Unreleased]\n\n## [beta@2.0.0] - ${today()}\n\n### Fixed\n\n- beta: fix the menu (${hashes.menu})\n\n## [alpha@0.2.0]`,
    );
    expect(git('describe', '--exact-match', 'HEAD')).toBe('beta@2.0.0');
  });

  it('refuses to release from a working tree with uncommitted changes', async () => {
    commit('apps/alpha/src/next.ts', 'export {};\n', 'alpha: add next');
    write('apps/alpha/src/next.ts', 'export const dirty = true;\n');
    const before = state();
    const run = await release('alpha', 'patch');
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'release: the working tree has uncommitted changes; commit or stash them first\n',
    });
    expect(state()).toEqual(before);
    git('checkout', '--', 'apps/alpha/src/next.ts');
  });

  it('cuts the first release of an app with no tag from its whole history, or from --since', async () => {
    write('apps/gamma/package.json', '{\n  "name": "@x/gamma",\n  "version": "0.1.0"\n}\n');
    git('add', '.');
    git('commit', '-q', '-m', 'gamma: new app');
    const base = git('rev-parse', '--short', 'HEAD');
    const fix = commit('apps/gamma/src/a.ts', 'export {};\n', 'gamma: fix start-up');
    const since = await release('gamma', 'patch', '--dry-run', '--since', base);
    expect(since.code).toBe(0);
    expect(since.stdout).toContain(`gamma: 0.1.0 -> 0.1.1, tag gamma@0.1.1, 1 commit(s) since ${base}`);
    expect(since.stdout).toContain(`### Fixed\n\n- gamma: fix start-up (${fix})\n`);

    const run = await release('gamma', 'patch');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.split('\n')[0]).toBe('gamma: 0.1.0 -> 0.1.1, tag gamma@0.1.1, 2 commit(s) (first release: no gamma@* tag)');
    expect(version('gamma')).toBe('0.1.1');
    expect(readFileSync(join(repo, 'CHANGELOG.md'), 'utf8')).toContain(
      `## [Unreleased]\n\n## [gamma@0.1.1] - ${today()}\n\n### Added\n\n- gamma: new app (${base})\n\n### Fixed\n\n- gamma: fix start-up (${fix})\n\n## [beta@2.0.0]`,
    );
    expect(git('describe', '--exact-match', 'HEAD')).toBe('gamma@0.1.1');
    expect(git('status', '--porcelain')).toBe('');
  });

  it('releases the packages an app names in dmrv.releasedWith under its version and the production overlay’s image tag, in the same commit', async () => {
    write(
      'apps/delta/package.json',
      '{\n  "name": "@x/delta",\n  "version": "1.0.0",\n  "dmrv": { "releasedWith": ["libs/delta-client"] }\n}\n',
    );
    write('libs/delta-client/package.json', '{\n  "name": "@x/delta-client",\n  "version": "1.0.0"\n}\n');
    const overlay = (tag: string) =>
      `images:\n  - name: dmrv-delta\n    newName: ghcr.io/x/dmrv-delta\n    newTag: ${tag}\n  - name: dmrv-alpha\n    newName: ghcr.io/x/dmrv-alpha\n    newTag: 0.2.0\n`;
    write('deploy/kubernetes/overlays/production/kustomization.yaml', overlay('1.0.0'));
    git('add', '.');
    git('commit', '-q', '-m', 'delta: new app and its client');
    const run = await release('delta', 'minor');
    expect(run.code).toBe(0);
    expect(version('delta')).toBe('1.1.0');
    expect(
      (JSON.parse(readFileSync(join(repo, 'libs', 'delta-client', 'package.json'), 'utf8')) as { version: string })
        .version,
    ).toBe('1.1.0');
    expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual([
      'CHANGELOG.md',
      'apps/delta/package.json',
      'deploy/kubernetes/overlays/production/kustomization.yaml',
      'libs/delta-client/package.json',
    ]);
    // The production overlay runs the new image; the other app's image stays.
    expect(readFileSync(join(repo, 'deploy/kubernetes/overlays/production/kustomization.yaml'), 'utf8')).toBe(
      overlay('1.1.0'),
    );
    expect(git('describe', '--exact-match', 'HEAD')).toBe('delta@1.1.0');
  });

  it.each([
    [[], 'release: an app and a version step are required'],
    [['alpha', 'huge'], 'release: unknown version step huge'],
    [['omega', 'patch'], 'release: no app omega (apps/omega/package.json)'],
    [['../libs', 'patch'], 'release: no app ../libs (apps/../libs/package.json)'],
    [['alpha', 'patch', '--force'], "release: Unknown option '--force'"],
  ])('answers %j with usage and exit 2', async (args, message) => {
    const run = await release(...args);
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`${message}`)).toBe(true);
    expect(run.stderr).toContain(
      'usage: node scripts/release.mjs <app> <patch|minor|major> [--dry-run] [--since <ref>]',
    );
  });
});
