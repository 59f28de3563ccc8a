import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'scripts/**', '**/*.js', '**/*.mjs', '**/*.cjs'],
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
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/*.smoke-spec.ts', '**/test/**/*.ts', 'tools/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
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
