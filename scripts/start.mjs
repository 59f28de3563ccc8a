#!/usr/bin/env node
// `npm start`: installs, builds and starts the local stack (tools/local-stack), skipping the install and the build of
// every package whose inputs have not changed since the last successful one, so that a second start of an unchanged
// tree serves within seconds instead of minutes. Changed is decided by content, never by modification times alone
// (a checkout, a `touch` or an editor's save of the same text changes nothing):
//   install  when the hash of the lockfile, pnpm-workspace.yaml, .npmrc, every workspace package.json and the pinned
//            pnpm differs from the one recorded after the last install, or node_modules is not there;
//   build    of a package when the hash of its files (outside node_modules and dist), the root tsconfig.base.json, the
//            install's hash and the hashes of the workspace packages it depends on differs from the one recorded
//            after its last build, or its built entry point is missing: so a library's change rebuilds what uses it.
// The hashes live in node_modules/.cache/dmrv-start/; deleting that directory makes the next start do everything.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { workspacePackages } from './workspace-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampDir = join(root, 'node_modules', '.cache', 'dmrv-start');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'coverage']);

const log = (line) => process.stdout.write(`npm start: ${line}\n`);

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(path);
    return entry.isFile() && !entry.name.endsWith('.tsbuildinfo') ? [path] : [];
  });
}

/** One hash over files' paths and contents, in a fixed order. */
function hashFiles(paths, extra = []) {
  const hash = createHash('sha256');
  for (const value of extra) hash.update(`${value}\0`);
  for (const path of [...paths].sort()) {
    hash.update(`${relative(root, path)}\0`);
    hash.update(existsSync(path) ? readFileSync(path) : 'missing');
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamps() {
  try {
    return JSON.parse(readFileSync(join(stampDir, 'stamps.json'), 'utf8'));
  } catch {
    return { install: null, builds: {} };
  }
}

function writeStamps(stamps) {
  mkdirSync(stampDir, { recursive: true });
  writeFileSync(join(stampDir, 'stamps.json'), `${JSON.stringify(stamps, null, 2)}\n`);
}

function pnpm(...args) {
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'pnpm.mjs'), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    process.stderr.write(`npm start: pnpm ${args.join(' ')} failed (exit ${run.status ?? run.signal})\n`);
    process.exit(1);
  }
}

const packages = workspacePackages(root);
const stamps = readStamps();
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const installHash = hashFiles(
  [
    'package.json',
    'pnpm-lock.yaml',
    'pnpm-workspace.yaml',
    '.npmrc',
    ...packages.map(({ dir }) => `${dir}/package.json`),
  ].map((path) => join(root, path)),
  [packageManager, process.platform, process.arch],
);
if (stamps.install === installHash && existsSync(join(root, 'node_modules', '.modules.yaml'))) {
  log('dependencies unchanged since the last install: not installing');
} else {
  pnpm('install', '--frozen-lockfile');
  stamps.install = installHash;
  stamps.builds = {};
  writeStamps(stamps);
}

// Each package's hash takes in those of the workspace packages it depends on, so a change reaches its dependents.
const byName = new Map(packages.map((pkg) => [pkg.manifest.name, pkg]));
const hashes = new Map();
const baseConfig = join(root, 'tsconfig.base.json');
function buildHash(pkg) {
  if (hashes.has(pkg.dir)) return hashes.get(pkg.dir);
  hashes.set(pkg.dir, 'cycle');
  const {
    dependencies = {},
    devDependencies = {},
    optionalDependencies = {},
    peerDependencies = {},
  } = pkg.manifest;
  const deps = Object.entries({
    ...peerDependencies,
    ...optionalDependencies,
    ...devDependencies,
    ...dependencies,
  })
    .filter(([name, range]) => String(range).startsWith('workspace:') && byName.has(name))
    .map(([name]) => `${name}=${buildHash(byName.get(name))}`)
    .sort();
  const hash = hashFiles([...filesUnder(join(root, pkg.dir)), baseConfig], [installHash, ...deps]);
  hashes.set(pkg.dir, hash);
  return hash;
}

const built = (pkg) => existsSync(join(root, pkg.dir, pkg.manifest.main ?? 'dist'));
const buildable = packages.filter((pkg) => pkg.manifest.scripts?.build);
const stale = buildable.filter((pkg) => stamps.builds[pkg.dir] !== buildHash(pkg) || !built(pkg));
if (stale.length === 0) {
  log(`no source changed since the last build: not building (${buildable.length} packages)`);
} else {
  log(
    `building ${stale.length} of ${buildable.length} packages: ${stale.map((pkg) => pkg.manifest.name).join(' ')}`,
  );
  pnpm(
    ...stale.flatMap((pkg) => ['--filter', pkg.manifest.name]),
    '--workspace-concurrency=2',
    'run',
    'build',
  );
  for (const pkg of stale) stamps.builds[pkg.dir] = buildHash(pkg);
  writeStamps(stamps);
}

await import(pathToFileURL(join(root, 'tools', 'local-stack', 'dist', 'main.js')).href);
