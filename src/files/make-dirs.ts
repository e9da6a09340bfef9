// mkdir -p, by hand. Node's recursive mkdirSync spins forever, at full CPU and deaf to SIGTERM, where a file system
// answers ENOENT to a mkdir whose parent exists (/proc, /sys): it makes the parent (EEXIST), finds it a directory and
// tries the child again (a review's cron job, GIFTCODES_CONFIG_DIR=/proc/giftcodes, ran until it was killed; an
// XDG_CACHE_HOME there hung every command at start). Each missing directory is made on its own instead, so such a
// refusal throws, with its own errno (a read-only disk's EROFS, where the recursive call said ENOENT). No imports
// beyond node's: the cache directory's start (cache-dir.ts) uses it.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `dir` and each missing directory above it with `mode`; throws the first mkdir's own error. */
export function makeDirs(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let path = resolve(dir); !existsSync(path); path = dirname(path)) {
    missing.push(path);
    if (dirname(path) === path) break;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path, { mode });
    } catch (error) {
      // Made meanwhile by another process: as good as made here. Not a link to nowhere, which existsSync calls missing
      // and mkdir calls there: its EEXIST is the error (a review's history/ linked to a path not there).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(path)) throw error;
    }
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
