#!/usr/bin/env node
// Runs the pnpm version pinned in package.json#packageManager on a machine that has only Node and npm.
// Corepack is not used: its signature check fails for recent pnpm releases on Node 20's bundled corepack.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { packageManager } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const result = spawnSync(npx, ['--yes', packageManager, ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, npm_config_update_notifier: 'false' },
});
if (result.error) {
  console.error(`could not run ${packageManager} through npx: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
