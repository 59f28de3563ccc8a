import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';
import { GIT_ENV } from './scratch-git';

// scripts/release.mjs cuts releases in repositories of our own: first a small workspace whose changelog says exactly
// what each release must take, then a clone of this repository, released as a maintainer would.

const SCRIPT = join(REPO_ROOT, 'scripts', 'release.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const today = () => new Date().toISOString().slice(0, 10);

function scratch(dir: string) {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' }).trim();
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const read = (path: string) => readFileSync(join(dir, path), 'utf8');
  const release = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [SCRIPT, ...args],
        { cwd: join(dir, 'apps'), env: GIT_ENV },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: unknown }).code) : 0, stdout, stderr }),
      );
    });
  const version = (path: string) => (JSON.parse(read(`${path}/package.json`)) as { version: string }).version;
  const state = () => ({
    head: git('rev-parse', 'HEAD'),
    tags: git('tag', '--list'),
    status: git('status', '--porcelain'),
  });
  const committed = () => git('show', '--name-only', '--format=', 'HEAD').split('\n').sort();
  return { git, write, read, release, version, state, committed };
}

const UNRELEASED = `## [Unreleased]

### Security

- **alpha**: a security fix,
  on two lines.

### Added

- **alpha**: a route.
- **beta**: a menu.
- **shared**: a parser option.
- **bench**: a new suite.

### Fixed

- **testkit**: a helper fix.
- **All services**: request ids on errors.
- **@x/alpha-client**: the client's types.
`;

const CHANGELOG = `# Changelog

Intro text.

${UNRELEASED}
## [0.1.0] - 2026-11-01

### Added

- Everything.
`;

const overlay = (alpha: string, beta: string) =>
  `images:\n  - name: dmrv-alpha\n    newName: ghcr.io/x/dmrv-alpha\n    newTag: ${alpha}\n  - name: dmrv-beta\n    newName: ghcr.io/x/dmrv-beta\n    newTag: ${beta}\n`;
const OVERLAY = 'deploy/kubernetes/overlays/production/kustomization.yaml';

describe('scripts/release.mjs on a workspace of our own', () => {
  let dir: string;
  let repo: ReturnType<typeof scratch>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmrv-release-'));
    repo = scratch(dir);
    repo.git('init', '-q', '-b', 'main');
    repo.write('package.json', '{ "name": "root", "private": true }\n');
    repo.write('pnpm-workspace.yaml', "packages:\n  - apps/*\n  - 'libs/*'\n");
    repo.write(
      'apps/alpha/package.json',
      '{\n  "name": "@x/alpha",\n  "version": "0.1.0",\n  "license": "Apache-2.0",\n  "dmrv": { "releasedWith": ["libs/alpha-client"] },\n  "dependencies": { "@x/shared": "workspace:*", "left-pad": "1.3.0" },\n  "devDependencies": { "@x/testkit": "workspace:*" }\n}\n',
    );
    repo.write(
      'apps/beta/package.json',
      '{\n  "name": "@x/beta",\n  "version": "1.4.2",\n  "dependencies": { "@x/shared": "workspace:*" }\n}\n',
    );
    repo.write('libs/shared/package.json', '{ "name": "@x/shared" }\n');
    repo.write('libs/testkit/package.json', '{ "name": "@x/testkit" }\n');
    repo.write(
      'libs/alpha-client/package.json',
      '{\n  "name": "@x/alpha-client",\n  "version": "0.1.0"\n}\n',
    );
    repo.write(OVERLAY, overlay('0.1.0', '1.4.2'));
    repo.write('CHANGELOG.md', CHANGELOG);
    repo.git('add', '.');
    repo.git('commit', '-q', '-m', 'initial');
    repo.git('tag', '-a', 'alpha@0.1.0', '-m', 'alpha 0.1.0');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const alphaSection = () =>
    [
      `## [alpha@0.2.0] - ${today()}`,
      '',
      '### Added',
      '',
      '- **alpha**: a route.',
      '- **shared**: a parser option.',
      '',
      '### Fixed',
      '',
      '- **All services**: request ids on errors.',
      "- **@x/alpha-client**: the client's types.",
      '',
      '### Security',
      '',
      '- **alpha**: a security fix,',
      '  on two lines.',
      '',
    ].join('\n');

  it("shows the app's own entries from [Unreleased], grouped, and changes nothing on a dry run", async () => {
    const before = repo.state();
    expect(await repo.release('alpha', 'minor', '--dry-run')).toEqual({
      code: 0,
      stdout: `alpha: 0.1.0 -> 0.2.0, tag alpha@0.2.0, 5 entries from [Unreleased]\n\n${alphaSection()}\n(dry run: nothing changed)\n`,
      stderr: '',
    });
    expect(repo.state()).toEqual(before);
    expect(repo.read('CHANGELOG.md')).toBe(CHANGELOG);
  });

  it('moves them under the new version and sets the version and the image tag in one tagged commit', async () => {
    const run = await repo.release('alpha', 'minor');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'committed and tagged alpha@0.2.0; push with: git push && git push origin alpha@0.2.0',
    );
    // Entries of alpha alone are gone; those it shares with beta stay for beta, their scope naming it.
    expect(repo.read('CHANGELOG.md')).toBe(
      [
        '# Changelog',
        '',
        'Intro text.',
        '',
        '## [Unreleased]',
        '',
        '### Added',
        '',
        '- **beta**: a menu.',
        '- **beta** (shared): a parser option.',
        '- **bench**: a new suite.',
        '',
        '### Fixed',
        '',
        '- **testkit**: a helper fix.',
        '- **beta** (All services): request ids on errors.',
        '',
        alphaSection(),
        '## [0.1.0] - 2026-11-01',
        '',
        '### Added',
        '',
        '- Everything.',
        '',
      ].join('\n'),
    );
    expect(repo.version('apps/alpha')).toBe('0.2.0');
    expect(repo.version('libs/alpha-client')).toBe('0.2.0');
    expect(repo.read('apps/alpha/package.json')).toContain(
      '  "version": "0.2.0",\n  "license": "Apache-2.0",',
    );
    expect(repo.read(OVERLAY)).toBe(overlay('0.2.0', '1.4.2'));
    expect(repo.git('log', '-1', '--format=%s')).toBe('alpha: release 0.2.0');
    expect(repo.committed()).toEqual([
      'CHANGELOG.md',
      'apps/alpha/package.json',
      OVERLAY,
      'libs/alpha-client/package.json',
    ]);
    expect(repo.git('rev-parse', 'alpha@0.2.0^{commit}')).toBe(repo.git('rev-parse', 'HEAD'));
    expect(repo.git('cat-file', '-t', 'alpha@0.2.0')).toBe('tag');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('refuses a release with no entry for the app under [Unreleased], changing nothing', async () => {
    const before = repo.state();
    expect(await repo.release('alpha', 'patch')).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'release: no entry under [Unreleased] in CHANGELOG.md names alpha or a package it ships with; write what ' +
        'changed for its users there first (CONTRIBUTING.md, "Changelog entries")\n',
    });
    expect(repo.state()).toEqual(before);
  });

  it('releases the other app with what was left for it; entries naming no app stay unreleased', async () => {
    const run = await repo.release('beta', 'major');
    expect(run.code).toBe(0);
    expect(repo.version('apps/beta')).toBe('2.0.0');
    expect(repo.read(OVERLAY)).toBe(overlay('0.2.0', '2.0.0'));
    expect(repo.read('CHANGELOG.md')).toContain(
      [
        '## [Unreleased]',
        '',
        '### Added',
        '',
        '- **bench**: a new suite.',
        '',
        '### Fixed',
        '',
        '- **testkit**: a helper fix.',
        '',
        `## [beta@2.0.0] - ${today()}`,
        '',
        '### Added',
        '',
        '- **beta**: a menu.',
        '- **beta** (shared): a parser option.',
        '',
        '### Fixed',
        '',
        '- **beta** (All services): request ids on errors.',
        '',
        `## [alpha@0.2.0] - ${today()}`,
      ].join('\n'),
    );
    expect(repo.committed()).toEqual(['CHANGELOG.md', 'apps/beta/package.json', OVERLAY]);
    expect(repo.git('describe', '--exact-match', 'HEAD')).toBe('beta@2.0.0');
  });

  it('refuses to release from a working tree with uncommitted changes', async () => {
    repo.write(
      'CHANGELOG.md',
      repo.read('CHANGELOG.md').replace('## [Unreleased]\n', '## [Unreleased]\n\n- **alpha**: more.\n'),
    );
    const before = repo.state();
    expect(await repo.release('alpha', 'patch')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'release: the working tree has uncommitted changes; commit or stash them first\n',
    });
    expect(repo.state()).toEqual(before);
    repo.git('checkout', '--', 'CHANGELOG.md');
  });

  it.each([
    [[], 'release: an app and a version step are required'],
    [['alpha', 'huge'], 'release: unknown version step huge'],
    [['omega', 'patch'], 'release: no app omega (apps/omega/package.json)'],
    [['../libs', 'patch'], 'release: no app ../libs (apps/../libs/package.json)'],
    [['alpha', 'patch', '--since', 'main'], "release: Unknown option '--since'"],
  ])('answers %j with usage and exit 2', async (args, message) => {
    const run = await repo.release(...args);
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(message)).toBe(true);
    expect(run.stderr).toContain('usage: node scripts/release.mjs <app> <patch|minor|major> [--dry-run]');
  });
});

describe('scripts/release.mjs on a clone of this repository', () => {
  let dir: string;
  let repo: ReturnType<typeof scratch>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmrv-release-clone-'));
    execFileSync('git', ['clone', '--quiet', '--shared', REPO_ROOT, dir], { env: GIT_ENV });
    repo = scratch(dir);
    repo.git(
      'checkout',
      '--quiet',
      '-B',
      'release-test',
      execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim(),
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("cuts a registry-api release: its entries in its section, the client's version and the overlay's tag with it", async () => {
    // An entry of the kind a change adds with it, so the test does not depend on what [Unreleased] holds today.
    repo.write(
      'CHANGELOG.md',
      repo
        .read('CHANGELOG.md')
        .replace(
          '## [Unreleased]\n',
          '## [Unreleased]\n\n### Fixed\n\n- **registry-api**: the entry of the release test.\n',
        ),
    );
    repo.git('commit', '-q', '-am', 'registry-api: an entry');
    const apps = ['registry-api', 'ussd-gateway', 'protocol-gateway'];
    const before = Object.fromEntries(apps.map((app) => [app, repo.version(`apps/${app}`)]));
    const [major, minor, patch] = before['registry-api']!.split('.').map(Number);
    const next = `${major}.${minor}.${patch! + 1}`;

    const run = await repo.release('registry-api', 'patch');

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(repo.version('apps/registry-api')).toBe(next);
    expect(repo.version('libs/registry-client')).toBe(next);
    const images = (parse(repo.read(OVERLAY)) as { images: Array<{ name: string; newTag: string }> }).images;
    expect(Object.fromEntries(images.map(({ name, newTag }) => [name, newTag]))).toEqual({
      'dmrv-registry-api': next,
      'dmrv-ussd-gateway': before['ussd-gateway'],
      'dmrv-protocol-gateway': before['protocol-gateway'],
    });
    expect(repo.committed()).toEqual([
      'CHANGELOG.md',
      'apps/registry-api/package.json',
      OVERLAY,
      'libs/registry-client/package.json',
    ]);
    expect(repo.git('describe', '--exact-match', 'HEAD')).toBe(`registry-api@${next}`);

    const changelog = repo.read('CHANGELOG.md');
    const unreleased = changelog.split('## [Unreleased]\n')[1]!.split('\n## [')[0]!;
    const section = changelog.split(`## [registry-api@${next}] - ${today()}\n`)[1]!.split('\n## [')[0]!;
    const scopes = (text: string) => [...text.matchAll(/^- \*\*([^*]+)\*\*/gm)].map(([, scope]) => scope!);
    expect(section).toContain('### Fixed\n\n- **registry-api**: the entry of the release test.\n');
    // Entries, not commit subjects; none of another app's or of the repository's own tooling.
    expect(section).not.toMatch(/\([0-9a-f]{7,}\)$/m);
    expect(
      scopes(section).filter((scope) =>
        /^(ussd-gateway|protocol-gateway|bench|tests?|docs|deploy)$/i.test(scope),
      ),
    ).toEqual([]);
    // Nothing of registry-api's stays unreleased; the other apps' entries do.
    expect(
      scopes(unreleased).filter((scope) => /registry-api|registry-client|all services/i.test(scope)),
    ).toEqual([]);
    expect(scopes(unreleased).filter((scope) => scope.startsWith('ussd-gateway')).length).toBeGreaterThan(0);
  });
});
