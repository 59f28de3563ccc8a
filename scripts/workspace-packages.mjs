// The workspace's packages as pnpm-workspace.yaml lists them (`dir/*` and plain entries), each with its manifest,
// read with Node alone: the scripts that use it (start.mjs, release.mjs) run before anything is installed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** [{ dir, manifest }] with `dir` relative to `root`, e.g. `libs/proto`. */
export function workspacePackages(root) {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:\s+-\s+.+\n?)+)/m.exec(yaml)?.[1] ?? '';
  const entries = [...block.matchAll(/-\s+['"]?([^'"\n]+)['"]?/g)].map(([, entry]) => entry.trim());
  const dirs = entries.flatMap((entry) =>
    entry.endsWith('/*') && existsSync(join(root, entry.slice(0, -2)))
      ? readdirSync(join(root, entry.slice(0, -2))).map((child) => `${entry.slice(0, -2)}/${child}`)
      : [entry],
  );
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }));
}
