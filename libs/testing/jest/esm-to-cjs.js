// Compiles the ES modules of an ESM-only package (jest.config.js lists them) to CommonJS for jest 29, whose module
// registry is CommonJS only (no require(esm)); the built services load the same files with Node's require(esm).
// `import.meta` has no CommonJS form, so it becomes an object with the fields these packages read; their
// `const require = createRequire(import.meta.url)` would redeclare the module wrapper's own `require`, which already
// resolves from the same file, so it is dropped.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const ts = require('typescript');

const OWN_SOURCE = readFileSync(__filename, 'utf8');
const IMPORT_META =
  'const __importMeta = { url: require("node:url").pathToFileURL(__filename).href, filename: __filename, ' +
  'dirname: __dirname, resolve: (specifier) => require("node:url").pathToFileURL(require.resolve(specifier)).href };\n';

module.exports = {
  process(sourceText, sourcePath) {
    const withoutMeta = sourceText
      .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
      .replace(/\bimport\.meta\b/g, '__importMeta');
    const source = withoutMeta === sourceText ? sourceText : IMPORT_META + withoutMeta;
    const { outputText } = ts.transpileModule(source, {
      fileName: sourcePath,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    return { code: outputText };
  },
  getCacheKey(sourceText, sourcePath) {
    return createHash('sha256').update(OWN_SOURCE).update(ts.version).update(sourcePath).update(sourceText).digest('hex');
  },
};
