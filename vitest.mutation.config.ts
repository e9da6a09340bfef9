import { defineConfig } from 'vitest/config';

// npm run mutation: the tests that exercise src/journal and src/orders in-process (unit and command tests).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    maxWorkers: 1,
  },
});
