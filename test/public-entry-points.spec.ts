import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '@dmrv/testing';

/**
 * A package's public surface is what its package.json `exports` map declares (the bare name only, for a package
 * without one). A path below it (`pkg/cjs/storage`, `pkg/dist/…`, `pkg/lib/…`) is the package's private layout:
 * it moves in any release without notice, so our code may not depend on it.
 */

const SOURCE_ROOTS = ['apps', 'libs', 'tools', 'bench'];

/**
 * Subpaths of packages that publish no exports map but document the subpath as an entry point of their own. Each
 * entry names where the package documents it; nothing else gets in this way.
 */
const DOCUMENTED_ENTRY_POINTS: ReadonlyMap<string, string> = new Map([
  // protobufjs 8 README, "Reflection vs. static code" → ext/README.md#descriptor: the descriptor.proto extension.
  ['protobufjs/ext/descriptor', 'protobufjs README, ext/descriptor'],
]);
const TEST_FILE = /\.(spec|e2e-spec|int-spec|smoke-spec|scale-spec)\.ts$/;

/** Non-test TypeScript sources: test files and the helpers under a `test/` folder are not shipped. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'test'].includes(entry.name) ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !TEST_FILE.test(entry.name)
      ? [path]
      : [];
  });
}

/** Every module specifier a file names: static and dynamic imports, re-exports, `require()`, `import x = require()`. */
export function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
}

/** `@scope/name/sub/path` → [`@scope/name`, `./sub/path`]; `name` → [`name`, `.`]. */
export function splitSpecifier(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return [parts.slice(0, length).join('/'), rest === '' ? '.' : `./${rest}`];
}

type Exports = string | null | Exports[] | { [key: string]: Exports };

/** Whether an `exports` map declares a subpath (exact keys, then `*` patterns; a `null` target closes a subpath). */
export function exportsDeclare(exports: Exports | undefined, subpath: string): boolean {
  if (subpath === '.') return true;
  if (exports === undefined || exports === null || typeof exports === 'string' || Array.isArray(exports))
    return false;
  const keys = Object.keys(exports);
  // A map of conditions (no key starting with '.') is the "." entry alone.
  if (!keys.some((key) => key.startsWith('.'))) return false;
  if (keys.includes(subpath)) return exports[subpath] !== null;
  const patterns = keys
    .filter((key) => {
      const star = key.indexOf('*');
      if (star === -1) return false;
      const prefix = key.slice(0, star);
      const suffix = key.slice(star + 1);
      return subpath.length >= key.length - 1 && subpath.startsWith(prefix) && subpath.endsWith(suffix);
    })
    // Node picks the pattern with the longest prefix before the `*`.
    .sort((a, b) => b.indexOf('*') - a.indexOf('*'));
  return patterns.length > 0 && exports[patterns[0]!] !== null;
}

/** The package.json Node would find for `name` from `fromDir` (walking up node_modules folders), or undefined. */
function manifestOf(name: string, fromDir: string): { exports?: Exports } | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return JSON.parse(readFileSync(candidate, 'utf8')) as { exports?: Exports };
    if (dirname(dir) === dir) return undefined;
  }
}

interface Violation {
  file: string;
  specifier: string;
}

/** Package subpaths (below the bare name) that the sources import, with the directory of one importing file. */
function subpathImports(root: string): Array<Violation & { fromDir: string; name: string; subpath: string }> {
  const found = [];
  for (const sourceRoot of SOURCE_ROOTS) {
    for (const file of sourceFiles(join(root, sourceRoot))) {
      for (const specifier of specifiersOf(readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) continue;
        const [name, subpath] = splitSpecifier(specifier);
        if (subpath !== '.')
          found.push({ file: relative(root, file), specifier, fromDir: dirname(file), name, subpath });
      }
    }
  }
  return found;
}

export function privatePathImports(root: string): Violation[] {
  return subpathImports(root)
    .filter(({ specifier, name, subpath, fromDir }) => {
      if (DOCUMENTED_ENTRY_POINTS.has(specifier)) return false;
      const manifest = manifestOf(name, fromDir);
      return manifest === undefined || !exportsDeclare(manifest.exports, subpath);
    })
    .map(({ file, specifier }) => ({ file, specifier }));
}

describe('imports of other packages', () => {
  it('go through the entry points each package.json declares', () => {
    expect(privatePathImports(REPO_ROOT)).toEqual([]);
  });

  it('keep no documented exception that is unused or that an exports map now settles', () => {
    const imports = subpathImports(REPO_ROOT);
    for (const specifier of DOCUMENTED_ENTRY_POINTS.keys()) {
      const uses = imports.filter((found) => found.specifier === specifier);
      expect({ specifier, used: uses.length > 0 }).toEqual({ specifier, used: true });
      const manifest = manifestOf(uses[0]!.name, uses[0]!.fromDir);
      expect({ specifier, hasExportsMap: manifest?.exports !== undefined }).toEqual({
        specifier,
        hasExportsMap: false,
      });
    }
  });
});

describe('the exports-map check', () => {
  it.each([
    ['a package without an exports map, below its main', undefined, './cjs/storage', false],
    ['the bare package name', undefined, '.', true],
    ['a declared subpath', { '.': './index.js', './wkt': './wkt.js' }, './wkt', true],
    ['an undeclared subpath', { '.': './index.js', './wkt': './wkt.js' }, './dist/wkt', false],
    ['a wildcard subpath', { '.': './index.js', './*': './*.js' }, './constants', true],
    ['a subpath a null target closes', { './*': './*.js', './internal/*': null }, './internal/x', false],
    ['a conditions-only map (the "." entry alone)', { require: './a.cjs', import: './a.mjs' }, './a', false],
    ['a string map (the "." entry alone)', './index.js', './index.js', false],
  ] as const)('%s', (_case, exports, subpath, declared) => {
    expect(exportsDeclare(exports as Exports | undefined, subpath)).toBe(declared);
  });

  it('finds every kind of module reference', () => {
    const source = [
      "import { a } from 'pkg-a/deep';",
      "import type { B } from '@scope/b/types/b';",
      "export { c } from 'pkg-c/lib/c';",
      "const d = require('pkg-d/cjs/d');",
      "const e = import('pkg-e/dist/e');",
      "import f = require('pkg-f/f');",
    ].join('\n');
    expect(specifiersOf(source)).toEqual([
      'pkg-a/deep',
      '@scope/b/types/b',
      'pkg-c/lib/c',
      'pkg-d/cjs/d',
      'pkg-e/dist/e',
      'pkg-f/f',
    ]);
    expect(splitSpecifier('@scope/b/types/b')).toEqual(['@scope/b', './types/b']);
    expect(splitSpecifier('class-transformer')).toEqual(['class-transformer', '.']);
  });
});
