import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      'scripts/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
      '**/*.generated.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-console': 'error',
    },
  },
  {
    files: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.smoke-spec.ts',
      '**/test/**/*.ts',
      'tools/**/*.ts',
      'bench/**/*.ts',
    ],
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // Small rooms, short functions: production code stays under 400 lines a file and 60 lines a function. Migrations are
  // exempt (an applied migration is never rewritten); tests and the test harnesses (libs/testing, bench) too.
  {
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'tools/*/src/**/*.ts'],
    ignores: [
      '**/*.spec.ts',
      '**/*.int-spec.ts',
      '**/*.e2e-spec.ts',
      '**/*.contract.ts',
      '**/*-spec-kit.ts',
      'apps/*/src/database/migrations/**',
      'libs/testing/**',
    ],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
);
