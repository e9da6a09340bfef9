// giftcodes' own cache directory, and Node's compile cache inside it (README, "Node versions and the compile
// cache"). The cache only saves start-up time: anything that goes wrong here leaves it off, silently.
import module from 'node:module';
import { mkdirSync, statSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

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
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = statSync(dir);
    if (!stats.isDirectory()) return undefined;
    if (process.platform !== 'win32') {
      // Another user's directory could hand this process code it never compiled: not used.
      if (stats.uid !== process.getuid?.()) return undefined;
      if ((stats.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    }
    return dir;
  } catch {
    return undefined;
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
