// Where giftcodes keeps its caches on each platform (README, "Node versions and the compile cache").
import { existsSync, mkdirSync, mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cacheDirFor, SWEPT, sweepCache } from '../../src/cache-dir.js';

describe('the cache directory of each platform', () => {
  it('Linux and other Unix: $XDG_CACHE_HOME/giftcodes, else ~/.cache/giftcodes', () => {
    expect(cacheDirFor({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/ana')).toBe('/x/cache/giftcodes');
    expect(cacheDirFor({}, 'linux', '/home/ana')).toBe('/home/ana/.cache/giftcodes');
    expect(cacheDirFor({ XDG_CACHE_HOME: '' }, 'freebsd', '/home/ana')).toBe('/home/ana/.cache/giftcodes');
  });

  it('a relative XDG_CACHE_HOME is ignored, as the XDG spec asks (it would follow the working directory)', () => {
    expect(cacheDirFor({ XDG_CACHE_HOME: 'cache' }, 'linux', '/home/ana')).toBe('/home/ana/.cache/giftcodes');
  });

  it('macOS: ~/Library/Caches/giftcodes', () => {
    expect(cacheDirFor({ XDG_CACHE_HOME: '/x/cache' }, 'darwin', '/Users/ana')).toBe(
      '/Users/ana/Library/Caches/giftcodes',
    );
  });

  it('Windows: %LOCALAPPDATA%\\giftcodes\\Cache, none without LOCALAPPDATA', () => {
    expect(cacheDirFor({ LOCALAPPDATA: 'C:\\Users\\ana\\AppData\\Local' }, 'win32', 'C:\\Users\\ana')).toBe(
      'C:\\Users\\ana\\AppData\\Local\\giftcodes\\Cache',
    );
    expect(cacheDirFor({}, 'win32', 'C:\\Users\\ana')).toBeUndefined();
  });

  it('no home directory to put it in: none (the caches stay off)', () => {
    expect(cacheDirFor({}, 'linux', '')).toBeUndefined();
    expect(cacheDirFor({}, 'darwin', 'relative')).toBeUndefined();
  });
});

describe('the sweep of what no run has used for 30 days', () => {
  const DAY = 86_400_000;
  const now = Date.UTC(2026, 10, 30, 12);

  /** A file whose access and modification times are `ageDays` days before now. */
  function file(path: string, ageDays: number): string {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, 'x');
    const at = new Date(now - ageDays * DAY);
    utimesSync(path, at, at);
    return path;
  }

  function cache(): string {
    return mkdtempSync(join(tmpdir(), 'cache-sweep-'));
  }

  it("removes Node's compile-cache entries and undici code caches unused for 30 days, keeps the rest", () => {
    const dir = cache();
    const oldEntry = file(join(dir, 'v22.23.3-x64-9ac5647c-0', '00044dab'), 31);
    const usedEntry = file(join(dir, 'v22.23.3-x64-9ac5647c-0', '7364adf1'), 29);
    const goneLine = file(join(dir, 'v20.19.0-x64-1234abcd-0', 'e23b3441'), 40);
    const oldUndici = file(join(dir, 'undici-v20.19.0-linux-x64.cache'), 31);
    const killedWrite = file(join(dir, 'undici-v22.23.3-linux-x64.cache.4242.tmp'), 31);
    const usedUndici = file(join(dir, 'undici-v24.21.0-linux-x64.cache'), 1);
    const notOurs = file(join(dir, 'notes.txt'), 365);
    sweepCache(dir, now);
    expect(existsSync(oldEntry)).toBe(false);
    expect(existsSync(usedEntry)).toBe(true);
    expect(existsSync(goneLine)).toBe(false);
    // A Node version's directory left empty goes too; one with an entry in use stays.
    expect(existsSync(dirname(goneLine))).toBe(false);
    expect(existsSync(dirname(usedEntry))).toBe(true);
    expect(existsSync(oldUndici)).toBe(false);
    expect(existsSync(killedWrite)).toBe(false);
    expect(existsSync(usedUndici)).toBe(true);
    expect(existsSync(notOurs)).toBe(true);
  });

  it('an entry read recently is in use, however long ago it was written (its access time)', () => {
    const dir = cache();
    const entry = file(join(dir, 'v24.21.0-x64-964aae3f-0', 'abcd0123'), 90);
    utimesSync(entry, new Date(now - 2 * DAY), new Date(now - 90 * DAY));
    sweepCache(dir, now);
    expect(existsSync(entry)).toBe(true);
  });

  it('looks at most once a day: the marker of the last sweep holds the next one back for 24 hours', () => {
    const dir = cache();
    sweepCache(dir, now);
    const swept = join(dir, SWEPT);
    const at = new Date(now - DAY + 60_000);
    utimesSync(swept, at, at);
    const old = file(join(dir, 'undici-v20.19.0-linux-x64.cache'), 31);
    sweepCache(dir, now);
    expect(existsSync(old)).toBe(true);
    const dayOld = new Date(now - DAY - 60_000);
    utimesSync(swept, dayOld, dayOld);
    sweepCache(dir, now);
    expect(existsSync(old)).toBe(false);
    expect(statSync(swept).mtimeMs).toBeGreaterThan(now - DAY);
  });

  it('the cache directory is swept when it is prepared, so the program never starts beside a year of entries', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cache-home-'));
    const old = file(join(home, 'giftcodes', 'v22.23.3-x64-9ac5647c-0', '00044dab'), 400);
    // cacheDir() prepares once per process, as the program starts: a fresh copy of the module.
    vi.resetModules();
    const { cacheDir } = await import('../../src/cache-dir.js');
    expect(cacheDir({ XDG_CACHE_HOME: home })).toBe(join(home, 'giftcodes'));
    expect(existsSync(old)).toBe(false);
    expect(existsSync(join(home, 'giftcodes', SWEPT))).toBe(true);
  });
});
