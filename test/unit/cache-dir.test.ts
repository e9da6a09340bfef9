// Where giftcodes keeps its caches on each platform (README, "Node versions and the compile cache").
import { describe, expect, it } from 'vitest';
import { cacheDirFor } from '../../src/cache-dir.js';

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
