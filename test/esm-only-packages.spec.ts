import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Config } from 'jest';
import { REPO_ROOT } from '@dmrv/testing';
import { Manifest, readManifest, workspacePackages } from './workspace';

type ProjectConfig = Exclude<NonNullable<Config['projects']>[number], string>;

/** Where `require(name)` from `dir` lands, or null for a package with no `require` entry to resolve (types only). */
function requireEntry(dir: string, name: string): string | null {
  try {
    return createRequire(join(REPO_ROOT, dir, 'package.json')).resolve(name);
  } catch {
    return null;
  }
}

/** Node's rule: `.mjs`, or `.js` whose nearest package.json says `"type": "module"`. */
function isEsm(file: string): boolean {
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: string }).type === 'module';
}

function esmOnlyDependencies(): Map<string, string> {
  const manifests: Array<{ dir: string; manifest: Manifest }> = [
    { dir: '.', manifest: readManifest('.') },
    ...[...workspacePackages().values()].map(({ dir, manifest }) => ({ dir, manifest })),
  ];
  const found = new Map<string, string>();
  for (const { dir, manifest } of manifests) {
    const { dependencies = {}, devDependencies = {}, optionalDependencies = {} } = manifest;
    for (const [name, range] of Object.entries({
      ...dependencies,
      ...devDependencies,
      ...optionalDependencies,
    })) {
      if (range.startsWith('workspace:')) continue;
      const entry = requireEntry(dir, name);
      if (entry && isEsm(entry)) found.set(name, entry);
    }
  }
  return found;
}

describe('dependencies published only as ES modules', () => {
  const jestConfig = createRequire(__filename)(join(REPO_ROOT, 'jest.config.js')) as Config;
  const projects = (jestConfig.projects ?? []) as ProjectConfig[];
  const esmOnly = esmOnlyDependencies();

  it('finds the ones this workspace has (the check below is not vacuous)', () => {
    expect([...esmOnly.keys()]).toEqual(expect.arrayContaining(['@nestjs/typeorm', '@nestjs/terminus']));
  });

  it.each(projects.map((project) => [project.displayName as string, project] as const))(
    'are compiled to CommonJS in the %s tier (ESM_ONLY_PACKAGES in jest.config.js)',
    (_tier, project) => {
      const transforms = Object.keys(project.transform ?? {}).map((pattern) => new RegExp(pattern));
      const ignored = ((project.transformIgnorePatterns ?? []) as string[]).map(
        (pattern) => new RegExp(pattern),
      );
      for (const [name, entry] of esmOnly) {
        expect({ name, transformed: transforms.some((pattern) => pattern.test(entry)) }).toEqual({
          name,
          transformed: true,
        });
        expect({ name, ignored: ignored.some((pattern) => pattern.test(entry)) }).toEqual({
          name,
          ignored: false,
        });
      }
    },
  );
});
