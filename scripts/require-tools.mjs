#!/usr/bin/env node
// Makes sure the programs a test command needs beyond Node, PostgreSQL and Redis are there before it starts, so that
// the command passes on a fresh machine by itself or stops at once saying what to install:
//   node scripts/require-tools.mjs chromium promtool …
// A missing program is installed from Debian's packages when this runs as root (or with password-less sudo) on a
// machine with apt-get, as scripts/containers/setup.sh installs podman; anywhere else the command stops with one
// message naming each missing program and how to get it. Nothing is printed when everything is there.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** On PATH and executable. */
function onPath(command, env) {
  return (env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What each test command may need: how to find it, the Debian package that brings it, and who needs it. */
export const TOOLS = {
  chromium: {
    present: (env) => executable(env.CHROMIUM_PATH || '/usr/bin/chromium'),
    where: (env) => env.CHROMIUM_PATH || '/usr/bin/chromium',
    package: 'chromium',
    purpose: "the USSD simulator's browser test (e2e tier)",
    otherwise: 'or set CHROMIUM_PATH to a Chromium or Chrome executable',
  },
  promtool: {
    present: (env) => onPath('promtool', env),
    where: () => 'promtool on PATH',
    package: 'prometheus',
    purpose: "the alert rules' unit tests (test:alerts)",
    otherwise: 'or put a promtool from a Prometheus release on PATH',
  },
  'postgresql-server': {
    present: () => postgresServerInstalled('/usr/lib/postgresql'),
    where: () => '/usr/lib/postgresql/<major>/bin/initdb',
    package: 'postgresql',
    purpose: 'the scale tier, which starts its own PostgreSQL primary and standby (test:scale)',
    otherwise: '(Debian/Ubuntu layout)',
  },
  'redis-server': {
    present: (env) => onPath('redis-server', env),
    where: () => 'redis-server on PATH',
    package: 'redis-server',
    purpose: 'the scale tier, which starts its own Redis Cluster and Sentinel (test:scale)',
    otherwise: '',
  },
};

function postgresServerInstalled(root) {
  if (!existsSync(root)) return false;
  return readdirSync(root).some((major) => executable(join(root, major, 'bin', 'initdb')));
}

/** The message for tools that are missing and could not be installed here. */
export function missingMessage(names, env, reason) {
  const lines = names.map((name) => {
    const tool = TOOLS[name];
    return `  - ${name} (${tool.where(env)}), for ${tool.purpose}: Debian/Ubuntu package \`${tool.package}\`${tool.otherwise ? `, ${tool.otherwise}` : ''}`;
  });
  const packages = [...new Set(names.map((name) => TOOLS[name].package))].join(' ');
  return [
    `This command needs programs that are not installed (${reason}):`,
    ...lines,
    `Install them with: sudo apt-get install ${packages}`,
    '',
  ].join('\n');
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** apt-get as root, or through password-less sudo; null when neither is possible here. */
function aptGet(env) {
  if (!onPath('apt-get', env)) return null;
  if (isRoot()) return ['apt-get'];
  if (onPath('sudo', env) && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', env }).status === 0) {
    return ['sudo', '-n', 'env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
  }
  return null;
}

export function requireTools(names, env = process.env) {
  const unknown = names.filter((name) => !(name in TOOLS));
  if (unknown.length > 0) {
    process.stderr.write(
      `require-tools: unknown tool ${unknown.join(', ')} (known: ${Object.keys(TOOLS).join(', ')})\n`,
    );
    return 2;
  }
  const missing = names.filter((name) => !TOOLS[name].present(env));
  if (missing.length === 0) return 0;
  const apt = aptGet(env);
  if (!apt) {
    process.stderr.write(missingMessage(missing, env, 'no apt-get that can run as root here'));
    return 1;
  }
  const packages = [...new Set(missing.map((name) => TOOLS[name].package))];
  process.stderr.write(
    `require-tools: installing ${packages.join(' ')} (Debian packages) for ${missing.join(', ')}\n`,
  );
  const [command, ...prefix] = apt;
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...packages],
  ]) {
    const run = spawnSync(command, [...prefix, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (run.status !== 0) {
      process.stderr.write(missingMessage(missing, env, `apt-get ${args[0]} failed`));
      return 1;
    }
  }
  const still = missing.filter((name) => !TOOLS[name].present(env));
  if (still.length > 0) {
    process.stderr.write(missingMessage(still, env, 'still missing after apt-get install'));
    return 1;
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exit(requireTools(process.argv.slice(2)));
}
