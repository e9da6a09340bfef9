import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // End-to-end tests spawn processes and servers and spend much of their time waiting on them: with two
    // workers `npm test` used 143% of these two cores (7 min 25 s); a third keeps them busy.
    maxWorkers: 3,
  },
});
