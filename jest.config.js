// Three named tiers: unit (no I/O), integration (real PostgreSQL/Redis/gRPC on this machine),
// e2e (HTTP against each app's bootstrap()).
/** @type {import('jest').Config} */
const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper: { '^@dmrv/([a-z-]+)$': '<rootDir>/libs/$1/src' },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  setupFiles: ['<rootDir>/libs/testing/src/jest-setup.ts'],
};

module.exports = {
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
  ],
};
