#!/usr/bin/env node
// Checks every GitHub Actions workflow (.github/workflows/*.yml|yaml) and every action of ours (action.yml|yaml
// under .github/) against the schemas GitHub publishes, with @action-validator/cli (pinned in the catalog). It reads
// one file per run, so each file gets its own run; the failures are printed with the file's name.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const validator = join(root, 'node_modules', '.bin', 'action-validator');

function yamlFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

const workflows = yamlFiles(join(root, '.github', 'workflows'));
const actions = yamlFiles(join(root, '.github')).filter((path) => /(^|\/)action\.ya?ml$/.test(path));
const files = [...workflows, ...actions];
if (files.length === 0) {
  process.stderr.write('lint-workflows: no workflow under .github/workflows\n');
  process.exit(1);
}

const failed = [];
for (const file of files) {
  const run = spawnSync(validator, [file], { encoding: 'utf8' });
  if (run.error) {
    process.stderr.write(`lint-workflows: could not run action-validator: ${run.error.message}\n`);
    process.exit(1);
  }
  if (run.status !== 0) {
    failed.push(relative(root, file));
    process.stderr.write(`${relative(root, file)}:\n${run.stdout}${run.stderr}\n`);
  }
}
if (failed.length > 0) {
  process.stderr.write(
    `action-validator: ${failed.length} of ${files.length} file(s) invalid: ${failed.join(', ')}\n`,
  );
  process.exit(1);
}
process.stdout.write(`action-validator: ${files.length} workflow file(s) valid\n`);
