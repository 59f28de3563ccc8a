import { runInNewContext } from 'node:vm';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { esmToCommonJs } = require('../scripts/jest-esm-to-commonjs.cjs') as {
  esmToCommonJs(source: string, fileName: string): string;
};

function evaluate(
  code: string,
  fileName: string,
  required: Record<string, unknown>,
): Record<string, unknown> {
  const module = { exports: {} as Record<string, unknown> };
  const fakeRequire = Object.assign((id: string) => required[id], {
    resolve: (id: string) => `resolved:${id}`,
  });
  runInNewContext(`(function (module, exports, require, __filename, __dirname) {\n${code}\n})`, {})(
    module,
    module.exports,
    fakeRequire,
    fileName,
    '/pkg/dist',
  );
  return module.exports;
}

describe('jest-esm-to-commonjs', () => {
  it('turns import and export into require and exports', () => {
    const code = esmToCommonJs(
      "import { a } from './a.js';\nexport const b = a + 1;\nexport default b;\n",
      '/pkg/dist/b.js',
    );
    expect(evaluate(code, '/pkg/dist/b.js', { './a.js': { a: 41 } })).toMatchObject({ b: 42, default: 42 });
  });

  it("drops a module's own createRequire(import.meta.url) and rewrites the rest of import.meta", () => {
    const source = [
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      'const moduleRequire = createRequire(import.meta.url);',
      "export const dep = require('dep');",
      "export const other = moduleRequire('dep');",
      'export const dir = import.meta.dirname;',
      'export const file = import.meta.filename;',
      "export const found = import.meta.resolve('x');",
      'export const url = import.meta.url;',
    ].join('\n');
    const code = esmToCommonJs(source, '/pkg/dist/m.js');
    expect(code).not.toMatch(/import\.meta/);
    const exports = evaluate(code, '/pkg/dist/m.js', {
      'node:module': { createRequire: () => () => 'wrong' },
      dep: 'the dependency',
      'node:url': { pathToFileURL: (path: string) => ({ href: `file://${path}` }) },
    });
    expect(exports).toMatchObject({
      dep: 'the dependency',
      other: 'the dependency',
      dir: '/pkg/dist',
      file: '/pkg/dist/m.js',
      found: 'resolved:x',
      url: 'file:///pkg/dist/m.js',
    });
  });
});
