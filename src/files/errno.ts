// What an errno means to a user, in words and with a hint. A module of its own, with no imports: the config
// directory's check (config/paths.ts) runs in every command, `ping` too, and importing it from atomic.ts put the
// journal's chunk, node:crypto with it, into ping's start (test/e2e/startup.test.ts).
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * What an errno means to a user, and what to do about it. With the path that failed, an ENOENT whose directory is
 * there is said as what it is: a review was told /proc "does not exist" and to create it.
 */
export function errnoMeaning(code: string | undefined, path?: string): { reason: string; hint: string } {
  if (code === 'ENOENT' && path !== undefined && existsSync(dirname(path)))
    return {
      reason: `${dirname(path)} exists, but the system would not create a file in it`,
      hint: 'choose a path on an ordinary disk',
    };
  switch (code) {
    case 'ENOSPC':
      return {
        reason: 'no space left on the device',
        hint: 'free some space on that disk, then run the same command again',
      };
    case 'EDQUOT':
      return {
        reason: 'disk quota exceeded',
        hint: 'free some space within your quota, then run the same command again',
      };
    case 'EROFS':
      return {
        reason: 'the file system is read-only',
        hint: 'use a path on a writable disk, or remount it read-write',
      };
    case 'EACCES':
    case 'EPERM':
      return { reason: 'permission denied', hint: 'use a path you can write to, or fix its permissions' };
    case 'EISDIR':
      return { reason: 'it is a directory', hint: 'give a file name, e.g. --out codes.csv' };
    case 'ENOTDIR':
      return { reason: 'a part of the path is not a directory', hint: 'check the path' };
    case 'EEXIST':
      // A directory to be made where something else is: a file, or a link to a path not there (a fourth review).
      return {
        reason: 'something that is not a directory is in its place (a file, or a link to a path that is not there)',
        hint: 'remove it, or make it a link to a directory, then run the same command again',
      };
    case 'ENOENT':
      return { reason: 'the directory does not exist', hint: 'create it first, or choose another path' };
    case 'EIO':
      return {
        reason: 'an input/output error from the disk',
        hint: 'check the disk (dmesg), then run the same command again',
      };
    case 'EMFILE':
    case 'ENFILE':
      return {
        reason: 'too many open files',
        hint: 'raise the open-file limit (ulimit -n), then run the same command again',
      };
    case 'EFBIG':
      return { reason: 'the file is too large for the file system', hint: 'use a path on another disk' };
    default:
      return { reason: code ?? 'unknown error', hint: 'fix the cause, then run the same command again' };
  }
}

/**
 * Why a file or directory given to be read (a CA file, an identity file) cannot be read, in words: a missing path,
 * a directory, a permission, as errnoMeaning says a write's failures (whose ENOENT means the directory, not the file).
 */
export function whyUnreadable(error: unknown, kind: 'file' | 'directory'): string {
  const code = (error as { code?: string }).code ?? 'unreadable';
  switch (code) {
    case 'ENOENT':
      return `no such ${kind}`;
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      // readdir of a file; stat of a path through a file.
      return kind === 'directory' ? 'it is not a directory' : 'a part of the path is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied: this user cannot read it';
    default: {
      const { reason } = errnoMeaning(code);
      if (reason !== code) return `${reason} (${code})`;
      return /^E[A-Z]+$/.test(code) ? `it cannot be read (${code})` : 'it cannot be read';
    }
  }
}
