import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';

// scripts/require-tools.mjs, which `npm test`, `test:e2e`, `test:alerts` and `test:scale` run first: on a PATH of our
// own, with stand-ins for apt-get and sudo that record what they were asked, so no package is really installed.

const SCRIPT = join(REPO_ROOT, 'scripts', 'require-tools.mjs');

describe('scripts/require-tools.mjs', () => {
  let dir: string;
  let bin: string;
  let log: string;

  const executable = (path: string, text: string) => {
    writeFileSync(path, text);
    chmodSync(path, 0o755);
  };
  const run = (args: string[], env: Record<string, string> = {}) => {
    const result = spawnSync(process.execPath, [SCRIPT, ...args], {
      env: { PATH: bin, CHROMIUM_PATH: join(dir, 'no-such-chromium'), ...env },
      encoding: 'utf8',
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  /** An apt-get that logs its arguments and, on install, provides promtool (or fails with `exitCode`). */
  const fakeApt = (installExitCode = 0) => {
    executable(
      join(bin, 'apt-get'),
      `#!/bin/sh\necho "$DEBIAN_FRONTEND apt-get $*" >> '${log}'\n` +
        `if [ "$1" = install ]; then\n` +
        (installExitCode === 0
          ? `  printf '#!/bin/sh\\n' > '${bin}/promtool'; /bin/chmod 755 '${bin}/promtool'\n`
          : `  exit ${installExitCode}\n`) +
        'fi\n',
    );
    // For a run as a user with password-less sudo: this sudo runs what it is given with the same PATH.
    executable(
      join(bin, 'sudo'),
      '#!/bin/sh\n[ "$1" = -n ] && shift\n[ "$1" = true ] && exit 0\n' +
        'if [ "$1" = env ]; then shift; export "$1"; shift; fi\nexec "$@"\n',
    );
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmrv-require-tools-'));
    bin = join(dir, 'bin');
    log = join(dir, 'apt.log');
    mkdirSync(bin);
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('says nothing and exits 0 when every tool is there', () => {
    executable(join(dir, 'chrome'), '#!/bin/sh\n');
    executable(join(bin, 'promtool'), '#!/bin/sh\n');
    expect(run(['chromium', 'promtool'], { CHROMIUM_PATH: join(dir, 'chrome') })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('stops at once naming each missing tool and what to install where apt-get cannot run', () => {
    expect(run(['chromium', 'promtool'])).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'This command needs programs that are not installed (no apt-get that can run as root here):',
        `  - chromium (${join(dir, 'no-such-chromium')}), for the USSD simulator's browser test (e2e tier): Debian/Ubuntu package \`chromium\`, or set CHROMIUM_PATH to a Chromium or Chrome executable`,
        "  - promtool (promtool on PATH), for the alert rules' unit tests (test:alerts): Debian/Ubuntu package `prometheus`, or put a promtool from a Prometheus release on PATH",
        'Install them with: sudo apt-get install chromium prometheus',
        '',
      ].join('\n'),
    });
  });

  it('installs a missing tool from its Debian package, non-interactively, then goes on', () => {
    fakeApt();
    expect(run(['promtool'])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'require-tools: installing prometheus (Debian packages) for promtool\n',
    });
    expect(readFileSync(log, 'utf8')).toBe(
      'noninteractive apt-get update -qq\nnoninteractive apt-get install -y -qq prometheus\n',
    );
    // Installed now: the next run does nothing.
    expect(run(['promtool'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('says what to install by hand when apt-get fails', () => {
    fakeApt(100);
    const result = run(['promtool']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        'require-tools: installing prometheus (Debian packages) for promtool',
        'This command needs programs that are not installed (apt-get install failed):',
        "  - promtool (promtool on PATH), for the alert rules' unit tests (test:alerts): Debian/Ubuntu package `prometheus`, or put a promtool from a Prometheus release on PATH",
        'Install them with: sudo apt-get install prometheus',
        '',
      ].join('\n'),
    );
  });

  it('refuses a tool it does not know', () => {
    expect(run(['chromium', 'netscape'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'require-tools: unknown tool netscape (known: chromium, promtool, postgresql-server, redis-server)\n',
    });
  });

  it.each([
    ['npm test', 'test'],
    ['the e2e tier', 'test:e2e'],
    ['the three tiers of npm test', 'test:all'],
    ['the alert rules', 'test:alerts'],
    ['the scale tier', 'test:scale'],
  ])('runs first in %s', (_label, script) => {
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts[script]).toMatch(/^node scripts\/require-tools\.mjs [a-z -]+ && /);
  });
});
