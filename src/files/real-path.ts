// The one place a path is compared by what it names on disk: symbolic links followed, so that one file or folder
// reached by two paths (a link to a folder) is one.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** The path with its symbolic links followed, or the path as given where it cannot be (gone, unreadable). */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A file's absolute path with its folder's links followed, the file itself maybe not there (yet, or any more). */
export function realFile(path: string): string {
  const full = resolve(path);
  return join(realPath(dirname(full)), basename(full));
}
