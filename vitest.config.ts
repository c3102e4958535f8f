import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // E2E_TESTS=off leaves out the browser files and the production build's start (CI runs them once, on
    // the PGlite pass: they test the pages and the compiled process; the API under them is tested on both
    // databases).
    exclude: process.env.E2E_TESTS === 'off' ? ['test/browser/**', 'test/production-build.test.ts', '**/node_modules/**'] : ['**/node_modules/**'],
    globalSetup: ['./test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Files share their worker's module cache: importing the whole service once per worker instead of
    // once per file took the PostgreSQL pass from about 350 s to 220 s. Every file builds its own app on
    // its own database copy, so nothing else is shared (docs/decisions.md, "Tests: isolate false").
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
