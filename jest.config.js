// Named tiers: unit (no I/O), integration (real PostgreSQL/Redis/gRPC on this machine),
// e2e (HTTP against each app's bootstrap()), bench-smoke (the whole benchmark in smoke mode against the built
// services: a minute and a half on its own, so `test:e2e` stays quick to run while working on an app), and scale
// (e2e against Redis Cluster and Sentinel topologies the tests start; not in `test:all`, .ci/run runs it), and containers
// (the images built with podman, docker-compose.yml and the dev overlay run from them; not in `test:all`, .ci/run runs
// it once, after scripts/containers/setup.sh).
// Dependencies published only as ES modules (NestJS 12's packages and what they load: cookie 2, content-disposition 3,
// file-type 22 and its readers): jest 30 loads an ES module from require() only on Node >= 24.9 with
// --experimental-vm-modules, and the suite also runs on Node 20, so these are compiled to CommonJS when a test loads
// them (scripts/jest-esm-to-commonjs.cjs; the built services load them through Node's require(esm)). The same step
// serves CommonJS that loads a module through import(), which jest's runtime cannot run without that flag:
// @opentelemetry/otlp-exporter-base loads `http` so at its first export (the compiled import() is a require()).
// test/esm-only-packages.spec.ts names a direct dependency that is ESM-only and missing here. pnpm keeps a package
// under node_modules/.pnpm/<name>@<version>/node_modules/<name>.
const ESM_ONLY_PACKAGES =
  '(@nestjs|cookie|content-disposition|file-type|strtok3|token-types|@tokenizer|@borewit|uint8array-extras|@opentelemetry/otlp-exporter-base)';

/** @type {import('jest').Config} */
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }],
    [`/node_modules/${ESM_ONLY_PACKAGES}/.+\\.js$`]: '<rootDir>/scripts/jest-esm-to-commonjs.cjs',
  },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?${ESM_ONLY_PACKAGES}/)`],
  moduleFileExtensions: ['ts', 'js', 'json'],
  // The published client libraries (libs/chain-client, libs/registry-client, libs/http-client-kit) write relative
  // imports as `./x.js`, as their ES module build needs; here they name the .ts source beside them.
  moduleNameMapper: { '^@dmrv/([a-z-]+)$': '<rootDir>/libs/$1/src', '^(\\.{1,2}/.+)\\.js$': '$1' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  setupFiles: ['<rootDir>/libs/testing/src/jest-setup.ts'],
};

module.exports = {
  // Hooks and tests that boot an app on real PostgreSQL/Redis/gRPC take well under a second on a quiet machine and
  // many seconds on a loaded 2-core one; jest's 5 s default turns load into failures that say nothing.
  testTimeout: 30_000,
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools,bench,test}/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{apps,libs,tools,bench,test}/**/*.int-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'e2e',
      testMatch: ['<rootDir>/{apps,libs,tools,bench,test}/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    {
      ...shared,
      displayName: 'bench-smoke',
      testMatch: ['<rootDir>/bench/**/*.smoke-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    // Real Redis Cluster and Sentinel topologies started by the tests (tens of seconds): a tier of their own, run by
    // .ci/run after npm test (`test:scale`).
    {
      ...shared,
      displayName: 'scale',
      testMatch: ['<rootDir>/{apps,libs,tools,bench,test}/**/*.scale-spec.ts'],
      globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
      globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
    },
    // The production images built with podman and run as docker-compose.yml and the dev overlay run them (minutes:
    // image builds); needs scripts/containers/setup.sh, which `test:containers` runs first. Not in `test:all`.
    {
      ...shared,
      displayName: 'containers',
      testMatch: ['<rootDir>/test/containers/**/*.containers-spec.ts'],
    },
  ],
};
