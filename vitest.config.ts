// Vitest configuration: tests mirror pipeline/ and src/; real components, generous timeouts for real subprocesses.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    // A run id for fixtures built once per run and shared between test files (the site tests' site).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Native addons (tree-sitter, better-sqlite3) are safest in forked processes.
    pool: 'forks',
    maxWorkers: 2,
  },
});
