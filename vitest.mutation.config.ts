import { defineConfig } from 'vitest/config';

// npm run mutation: the tests that exercise src/journal and src/orders in-process (unit and command tests).
// MUTATION_TESTS (comma-separated files or globs) narrows them for a run scoped to one file with --mutate, so the
// initial test run takes seconds rather than minutes (docs/mutation.md).
export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : ['test/unit/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    maxWorkers: 1,
  },
});
