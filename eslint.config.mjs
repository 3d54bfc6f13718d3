// ESLint flat config: the recommended rules of ESLint and typescript-eslint, sorted imports, and nothing that
// Prettier decides (eslint-config-prettier switches those rules off). Type-aware rules are left out on purpose:
// they double the lint time on our 2-core CI and `npm run typecheck` already runs tsc in strict mode.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'coverage/**', 'examples/web/dist/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Code that runs in browser pages (*.page.ts, bundled by server/page-code/): modern syntax (esbuild lowers it to
    // the pages' target), the browser's globals and nothing of Node's.
    files: ['server/**/*.page.ts'],
    rules: {
      'no-var': 'error',
      'prefer-const': 'error',
      'no-restricted-globals': [
        'error',
        ...['process', 'Buffer', 'require', 'module', 'exports', '__dirname', '__filename', 'global', 'setImmediate'].map((name) => ({
          name,
          message: 'Page code runs in a browser page: Node globals are not there.',
        })),
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^node:|^[a-z@]', message: 'Page code is bundled for a page: it imports other page modules (and types), no package.' },
          ],
        },
      ],
    },
  },
  {
    // Tests assert on values they know are present.
    files: ['test/**/*.ts', 'test/**/*.tsx', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  prettier,
);
