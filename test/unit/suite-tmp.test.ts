// The suite's own temporary directory (test/global-setup.ts): what the tests and the processes they start make in
// TMPDIR stays inside one directory per run, which the run's end removes. Before it, every run of `npm test` left
// about 4,000 directories in /tmp (154,550 on this machine after forty runs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import mutationConfig from '../../vitest.mutation.config.js';
import suiteConfig from '../../vitest.config.js';
import setup, { SUITE_TMP } from '../global-setup.js';
import { tempDir } from '../helpers/e2e.js';

describe("the suite's temporary directory", () => {
  it('is the TMPDIR of this worker, of tempDir(), and of the processes a test starts', () => {
    const root = process.env[SUITE_TMP];
    expect(root).toMatch(/giftcodes-suite-/);
    expect(tmpdir()).toBe(root);
    expect(tempDir().startsWith(`${root}${sep}`)).toBe(true);
    const childTmp = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' });
    expect(childTmp.trim()).toBe(root);
  });

  it("holds the run's XDG_CACHE_HOME: the CLIs a test starts keep their compile caches there, not in the home directory", () => {
    const root = process.env[SUITE_TMP];
    expect(process.env.XDG_CACHE_HOME).toBe(join(root!, 'cache'));
    const childCache = execFileSync(process.execPath, ['-p', 'process.env.XDG_CACHE_HOME'], { encoding: 'utf8' });
    expect(childCache.trim()).toBe(join(root!, 'cache'));
  });

  it("is removed whole at the run's end, with what is inside it", () => {
    const saved = {
      TMPDIR: process.env.TMPDIR,
      XDG_CACHE_HOME: process.env.XDG_CACHE_HOME,
      [SUITE_TMP]: process.env[SUITE_TMP],
    };
    let root: string | undefined;
    try {
      const teardown = setup();
      root = process.env[SUITE_TMP];
      expect(root?.startsWith(`${saved.TMPDIR}${sep}giftcodes-suite-`)).toBe(true);
      mkdirSync(join(root!, 'a', 'journal'), { recursive: true });
      writeFileSync(join(root!, 'a', 'journal', 'x.intent'), '{}');
      teardown();
      expect(existsSync(root!)).toBe(false);
    } finally {
      process.env.TMPDIR = saved.TMPDIR;
      process.env.XDG_CACHE_HOME = saved.XDG_CACHE_HOME;
      process.env[SUITE_TMP] = saved[SUITE_TMP];
    }
  });

  it('is set up alike for `npm test` and for the mutation runs (stryker runs vitest.mutation.config.ts)', () => {
    expect(suiteConfig.test?.globalSetup).toEqual(['test/global-setup.ts']);
    expect(mutationConfig.test?.globalSetup).toEqual(suiteConfig.test?.globalSetup);
  });
});
