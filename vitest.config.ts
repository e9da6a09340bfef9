import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    // One temporary directory per run, the TMPDIR of every test and of what it starts, removed at the end.
    globalSetup: ['test/global-setup.ts'],
    // Safety nets, not expectations: no test's outcome waits on a duration (each waits on an event), and a test
    // of a dozen CLI runs that takes 5 s alone takes over 30 s on a shared, loaded CI machine, and minutes with a
    // second suite beside it. A test that sets its own sets at least this much.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // End-to-end tests spawn processes and servers and spend much of their time waiting on them: with two
    // workers `npm test` used 143% of these two cores (7 min 25 s); a third keeps them busy.
    maxWorkers: 3,
  },
});
