import { defineConfig } from 'vitest/config';

// npm run mutation: the tests that exercise src/journal and src/orders in-process (unit and command tests).
// MUTATION_TESTS (comma-separated files or globs) narrows them for a run scoped to one file with --mutate, so the
// initial test run takes seconds rather than minutes (docs/mutation.md).
export default defineConfig({
  test: {
    include: process.env.MUTATION_TESTS ? process.env.MUTATION_TESTS.split(',') : ['test/unit/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // The suite's own TMPDIR, removed at the end (test/global-setup.ts), as in vitest.config.ts: without it each
    // mutant's test run left its temporary directories in /tmp (24,000 after a few scoped runs), and
    // test/unit/suite-tmp.test.ts failed the initial run, so `npm run mutation` stopped before its first mutant.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    maxWorkers: 1,
  },
});
