import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// A file that replaces a module (vi.mock), spies on or stubs one shared with other files, or stubs the clock or
// globals, needs modules of its own: it runs in a fresh worker. Every other file shares its worker's modules
// with the files run before it (`isolate: false`): a worker is started and vitest, the helpers and the source
// imported once per worker instead of once per file. On two cores that is ~45 s of CPU for the unit tests alone
// (69 files: 84 → 40 s, `/usr/bin/time`), and `npm test` is short of CPU, not of waiting (CONTRIBUTING.md). The
// list is made from the files, so a new file that mocks is isolated without anyone remembering to say so.
// finishJournal() runs the exit work of every journal the worker's earlier files opened.
const NEEDS_ITS_OWN_MODULES = /\bvi\s*\.\s*(mock|doMock|spyOn|stubGlobal|stubEnv|useFakeTimers)\(|\bfinishJournal\(/;
const isolated = readdirSync(join(import.meta.dirname, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`)
  .filter((file) => NEEDS_ITS_OWN_MODULES.test(readFileSync(join(import.meta.dirname, file), 'utf8')));

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    // One temporary directory per run, the TMPDIR of every test and of what it starts, removed at the end.
    globalSetup: ['test/global-setup.ts'],
    // Safety nets, not expectations: no test's outcome waits on a duration (each waits on an event), and a test
    // of a dozen CLI runs that takes 5 s alone takes over 30 s on a shared, loaded CI machine, and minutes with a
    // second suite beside it. A test that sets its own sets at least this much.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // End-to-end tests spawn processes and servers and spend much of their time waiting on them: with two
    // workers `npm test` used 143% of these two cores (7 min 25 s); a third raised that, and a fourth more: on
    // 2026-12-01, with 3, 6 min 57 s at 154% (642 CPU-s); with 4, 6 min 25 s and 5 min 59 s at 181% (697 and 641).
    maxWorkers: 4,
    projects: [
      // `include` is said in each project, not above: a project's list is added to the root's, not put in its place.
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: isolated, isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated } },
    ],
  },
});
