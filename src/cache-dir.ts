// giftcodes' own cache directory, and Node's compile cache inside it (README, "Node versions and the compile
// cache"). The cache only saves start-up time: anything that goes wrong here leaves it off, silently.
import module from 'node:module';
import { chmodSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';
import { makeDirs } from './files/make-dirs.js';

/**
 * Where this platform keeps a user's caches, with giftcodes' directory in it: `%LOCALAPPDATA%\giftcodes\Cache`
 * on Windows, `~/Library/Caches/giftcodes` on macOS, elsewhere `$XDG_CACHE_HOME/giftcodes` (an absolute one:
 * the XDG spec has relative ones ignored) or `~/.cache/giftcodes`. Undefined when there is no such place.
 */
export function cacheDirFor(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string | undefined {
  if (platform === 'win32')
    return env.LOCALAPPDATA && win32.isAbsolute(env.LOCALAPPDATA)
      ? win32.join(env.LOCALAPPDATA, 'giftcodes', 'Cache')
      : undefined;
  if (!posix.isAbsolute(home)) return undefined;
  if (platform === 'darwin') return posix.join(home, 'Library', 'Caches', 'giftcodes');
  const xdg = env.XDG_CACHE_HOME;
  return posix.join(xdg && posix.isAbsolute(xdg) ? xdg : posix.join(home, '.cache'), 'giftcodes');
}

let prepared: { dir: string | undefined } | undefined;

/**
 * The cache directory, created 0700 on first use (an existing one of this user's is tightened to 0700).
 * Undefined, and the caches off, when it cannot be made or written, when another user owns it, or when
 * NODE_DISABLE_COMPILE_CACHE is set (Node's own switch for its compile cache turns every giftcodes cache off).
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  prepared ??= { dir: prepare(env) };
  return prepared.dir;
}

function prepare(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const dir = cacheDirFor(env, process.platform, homedir());
    if (dir === undefined) return undefined;
    makeDirs(dir, 0o700);
    const stats = statSync(dir);
    if (!stats.isDirectory()) return undefined;
    if (process.platform !== 'win32') {
      // Another user's directory could hand this process code it never compiled: not used.
      if (stats.uid !== process.getuid?.()) return undefined;
      if ((stats.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    }
    // Before Node's compile cache is enabled in it: a directory of its the sweep empties and removes is one this
    // process would otherwise have written its entries into after the removal, and lost.
    sweepCache(dir);
    return dir;
  } catch {
    return undefined;
  }
}

const DAY_MS = 86_400_000;
/** A cache file no run has read or written for this long is removed by sweepCache(). */
export const UNUSED_MS = 30 * DAY_MS;
/** The file whose modification time says when sweepCache() last looked. */
export const SWEPT = 'swept';
/** Node's compile cache makes a directory per Node version, architecture and flags: `v22.23.3-x64-9ac5647c-0`. */
const NODE_COMPILE_DIR = /^v\d+\.\d+\.\d+-/;
/** transport.ts's code cache of undici for one Node version, and a temporary file of it a killed write left. */
const UNDICI_CACHE = /^undici-.+\.cache(\.\d+\.tmp)?$/;

/**
 * Removes what no run has used for 30 days (UNUSED_MS), looking at most once a day. Without it the directory
 * only grows: Node's compile cache names each entry after the module's path, so each upgrade of giftcodes (its
 * bundle's chunks are named by their content) and each place it runs from (npx makes a new one per version)
 * adds entries that nothing reads again, and each Node version its own code cache of undici. "Used" is the later
 * of a file's access and modification times: Linux's default (relatime) updates the access time of a file read
 * at least once a day; where access times are never kept (noatime), an entry in use is made again once a month,
 * at the cost of one slower start. Only the names giftcodes and Node put here are touched; any failure leaves
 * the rest as it is.
 */
export function sweepCache(dir: string, now: number = Date.now()): void {
  const marker = join(dir, SWEPT);
  try {
    if (now - statSync(marker).mtimeMs < DAY_MS) return;
  } catch {
    // Never swept.
  }
  try {
    // First, so that the processes starting beside this one do not sweep too.
    writeFileSync(marker, '', { mode: 0o600 });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && NODE_COMPILE_DIR.test(entry.name)) {
        const sub = join(dir, entry.name);
        for (const name of readdirSync(sub)) removeUnused(join(sub, name), now);
        try {
          rmdirSync(sub);
        } catch {
          // Not empty: something in it is still used.
        }
      } else if (entry.isFile() && UNDICI_CACHE.test(entry.name)) removeUnused(join(dir, entry.name), now);
    }
  } catch {
    // The cache only saves time: a sweep that fails leaves it as it was, to the next day's.
  }
}

function removeUnused(path: string, now: number): void {
  try {
    const stats = statSync(path);
    if (stats.isFile() && now - Math.max(stats.atimeMs, stats.mtimeMs) > UNUSED_MS) rmSync(path, { force: true });
  } catch {
    // Gone already, or not ours to remove.
  }
}

/**
 * Node's compile cache (Node >= 22.1) in the cache directory: each module the program loads after this is
 * compiled from what an earlier run kept, when that run's Node was the same. Called first, before the
 * program loads. A NODE_COMPILE_CACHE the user set wins (Node enabled it at start).
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const dir = cacheDir(env);
  if (dir === undefined) return;
  try {
    module.enableCompileCache(dir);
  } catch {
    // Off: the program only compiles as it would without a cache.
  }
}

/**
 * The compile cache of the modules loaded so far, written now rather than at exit: Node then gives back what it held
 * of it, which a long export otherwise carried to its end (BENCHMARKS.md, issue 33). A Node before 22.10 has no such
 * call, and keeps it to exit as before.
 */
export function writeCompileCacheNow(): void {
  try {
    (module as { flushCompileCache?: () => void }).flushCompileCache?.();
  } catch {
    // Written at exit instead.
  }
}
