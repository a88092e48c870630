// Lint rules for the pipeline, the site and the tests: typescript-eslint's recommended set (syntax-only, so it
// stays fast on two cores) plus eslint-plugin-astro for .astro files, and limits on the length and complexity of
// the pipeline's functions. Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import astro from 'eslint-plugin-astro';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'build/',
      '.astro/',
      '.nnblocks/',
      'content/catalog/',
      'test-artifacts/',
      'bench-results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...astro.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
    },
    rules: {
      // `_name` marks a parameter or binding kept for its position or documentation.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Empty catch blocks carry a comment saying why the error does not matter.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    // A long algorithm reads as a small class or module with named steps, not one function whose inner closures
    // share its locals: no function in the pipeline is longer than 120 lines of code. Complexity warns at 30,
    // which flags the outliers; at ESLint's default of 20 it would flag some thirty functions, most of them the
    // character loops of the text scanners, whose branches are the kinds of token.
    files: ['pipeline/**/*.{ts,mts,js,mjs}'],
    rules: {
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
      complexity: ['warn', 30],
    },
  },
);
