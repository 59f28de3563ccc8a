import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

// Files still over the size limits below, while issue 34's split is under way; each entry goes when its file is split.
const SIZE_PENDING = [
  'apps/protocol-gateway/src/app.module.ts',
  'apps/protocol-gateway/src/openapi/openapi-document.ts',
  'apps/protocol-gateway/src/transcoding/json-printer.ts',
  'apps/registry-api/src/cli/data-files.ts',
  'apps/registry-api/src/database/seed.ts',
  'apps/registry-api/src/loader/entity-formats.ts',
  'apps/registry-api/src/loader/importer.ts',
  'apps/registry-api/src/loader/record-readers.ts',
  'apps/ussd-gateway/src/accounts/accounts.repository.ts',
  'apps/ussd-gateway/src/operators/operator-openapi.ts',
  'apps/ussd-gateway/src/ussd/ussd-session.service.ts',
  'tools/local-chain-node/src/chain-node.ts',
  'tools/local-chain-node/src/handlers.ts',
  'tools/local-chain-node/src/reflection.ts',
  'tools/local-chain-node/src/seed.ts',
  'tools/local-stack/src/main.ts',
];

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
      ...SIZE_PENDING,
    ],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  // USSD rooms: a lower room never imports a higher one. The session store keeps records and locks, the phone-language
  // copy and the rate-limit counts keep their own; ussd/ (the hop opener) puts them together.
  ...[
    { room: 'sessions', higher: ['menus', 'rate-limit', 'ussd', 'phone-languages'] },
    { room: 'phone-languages', higher: ['menus', 'rate-limit', 'ussd', 'sessions'] },
    { room: 'rate-limit', higher: ['menus', 'ussd', 'sessions', 'phone-languages'] },
  ].map(({ room, higher }) => ({
    files: [`apps/ussd-gateway/src/${room}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.{1,2}/)+(${higher.join('|')})(/|$)`,
              message: `${room}/ is a lower room: it imports none of ${higher.join(', ')} (the hop opener in ussd/ wires them together).`,
            },
          ],
        },
      ],
    },
  })),
);
