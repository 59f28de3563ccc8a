import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { GIT_ENV } from './scratch-git';

// The tags .github/workflows/release.yml pushes an image under, from the app's release tags in a repository of our
// own: `latest` and `<major>.<minor>` never move back to an older release.

const SCRIPT = join(REPO_ROOT, 'scripts', 'image-tags.mjs');
const IMAGE = 'ghcr.io/acme/dmrv-alpha';

describe('scripts/image-tags.mjs', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
  const tags = (...args: string[]) => {
    const run = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const release = (tag: string) => git('tag', '-a', tag, '-m', tag);

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'dmrv-image-tags-'));
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README.md'), '# x\n');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
  });

  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
  });

  it("tags an app's first release with its version, its line and latest", () => {
    release('alpha@0.1.0');
    // Another app's higher versions are not this app's releases.
    release('beta@9.9.9');
    expect(tags(IMAGE, 'alpha', '0.1.0')).toEqual({
      code: 0,
      stdout: `${IMAGE}:0.1.0\n${IMAGE}:0.1\n${IMAGE}:latest\n`,
      stderr: '',
    });
  });

  it('moves the line and latest to the newest release', () => {
    release('alpha@0.2.0');
    release('alpha@1.0.0');
    expect(tags(IMAGE, 'alpha', '1.0.0').stdout).toBe(`${IMAGE}:1.0.0\n${IMAGE}:1.0\n${IMAGE}:latest\n`);
  });

  it('gives a late patch of an older line its line tag but not latest', () => {
    release('alpha@0.2.1');
    expect(tags(IMAGE, 'alpha', '0.2.1').stdout).toBe(`${IMAGE}:0.2.1\n${IMAGE}:0.2\n`);
  });

  it('gives a release pushed after a higher patch of its own line its version only', () => {
    release('alpha@0.2.2');
    expect(tags(IMAGE, 'alpha', '0.2.1').stdout).toBe(`${IMAGE}:0.2.1\n`);
  });

  it('refuses a version that is not MAJOR.MINOR.PATCH, and missing arguments', () => {
    expect(tags(IMAGE, 'alpha', '1.0')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'image-tags: version 1.0 is not MAJOR.MINOR.PATCH\n',
    });
    expect(tags(IMAGE, 'alpha')).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "usage: node scripts/image-tags.mjs <image> <app> <version>   (the app's released versions: its git tags)\n",
    });
  });
});
