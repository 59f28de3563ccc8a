// jest transform for the ESM-only packages NestJS 12 brings (the @nestjs packages, cookie 2, content-disposition 3,
// file-type 22 and its readers; jest.config.js lists them). jest 30 loads an ES module from require() only on
// Node >= 24.9 run with --experimental-vm-modules, and the suite also runs on Node 20 (README), so their files are
// turned into CommonJS here. The built services need none of this: Node >= 20.19 requires ESM itself.
const { createHash } = require('node:crypto');
const ts = require('typescript');

const VERSION = '1';

/** Rewrites what CommonJS has no equivalent syntax for, then lets TypeScript turn import/export into require. */
function esmToCommonJs(source, fileName) {
  const withoutImportMeta = source
    // A CommonJS module already has `require`; redeclaring it is a SyntaxError in jest's module wrapper.
    .replace(/^\s*const require = createRequire\(import\.meta\.url\);?[ \t]*$/gm, '')
    .replace(/^(\s*const \w+ = )createRequire\(import\.meta\.url\);?[ \t]*$/gm, '$1require;')
    .replace(/import\.meta\.url/g, "require('node:url').pathToFileURL(__filename).href")
    .replace(/import\.meta\.dirname/g, '__dirname')
    .replace(/import\.meta\.filename/g, '__filename')
    .replace(/import\.meta\.resolve\(/g, 'require.resolve(');
  return ts.transpileModule(withoutImportMeta, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      allowJs: true,
      esModuleInterop: true,
      sourceMap: false,
    },
  }).outputText;
}

module.exports = {
  esmToCommonJs,
  getCacheKey(source, fileName) {
    return createHash('sha1')
      .update(VERSION)
      .update(ts.version)
      .update(fileName)
      .update(source)
      .digest('hex');
  },
  process(source, fileName) {
    return { code: esmToCommonJs(source, fileName) };
  },
};
