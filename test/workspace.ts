import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';

export interface Manifest {
  name: string;
  version?: string;
  license?: string;
  private?: boolean;
  main?: string;
  files?: string[];
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface WorkspacePackage {
  name: string;
  /** Relative to the repository root, e.g. `libs/proto`. */
  dir: string;
  manifest: Manifest;
}

export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(REPO_ROOT, dir, 'package.json'), 'utf8')) as Manifest;
}

/** Every package pnpm-workspace.yaml lists (`dir/*` and plain directory entries), by name. */
export function workspacePackages(): Map<string, WorkspacePackage> {
  const { packages } = parse(readFileSync(join(REPO_ROOT, 'pnpm-workspace.yaml'), 'utf8')) as {
    packages: string[];
  };
  const dirs = packages.flatMap((entry) =>
    entry.endsWith('/*')
      ? readdirSync(join(REPO_ROOT, entry.slice(0, -2)), { withFileTypes: true })
          .filter((child) => child.isDirectory())
          .map((child) => `${entry.slice(0, -2)}/${child.name}`)
      : [entry],
  );
  const found = new Map<string, WorkspacePackage>();
  for (const dir of dirs.filter((candidate) => existsSync(join(REPO_ROOT, candidate, 'package.json')))) {
    const manifest = readManifest(dir);
    found.set(manifest.name, { name: manifest.name, dir, manifest });
  }
  return found;
}

/**
 * The package and the workspace packages it runs with, transitively: what `pnpm --filter-prod "<name>..."`
 * selects (devDependencies are not followed).
 */
export function productionClosure(name: string, packages: Map<string, WorkspacePackage>): WorkspacePackage[] {
  const selected = new Map<string, WorkspacePackage>();
  const visit = (current: string) => {
    const entry = packages.get(current);
    if (!entry || selected.has(current)) return;
    selected.set(current, entry);
    const { dependencies = {}, optionalDependencies = {}, peerDependencies = {} } = entry.manifest;
    for (const [dependency, range] of Object.entries({
      ...dependencies,
      ...optionalDependencies,
      ...peerDependencies,
    })) {
      if (range.startsWith('workspace:')) visit(dependency);
    }
  };
  visit(name);
  return [...selected.values()];
}
