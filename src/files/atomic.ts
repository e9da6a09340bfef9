// Small files written whole or not at all: a temporary file beside the target (created O_EXCL, so a
// link planted at its name is never followed), fsynced, renamed (a link at the target is replaced,
// never written through), 0600. A failure is a LocalError (exit 8) naming the file; the temporary
// file is removed and the target left as it was.
import type * as Crypto from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { LocalError } from '../errors.js';

// node:crypto (seventeen modules) only when a file is written: commands that read the config and write
// nothing (ping, catalog, order show) start without it (BENCHMARKS.md, issue 13).
const require = createRequire(import.meta.url);
const randomBytes = (size: number): Buffer => (require('node:crypto') as typeof Crypto).randomBytes(size);

/** `what` names the file in the error: "journal file", "config file". */
export function writeFileAtomicSync(path: string, data: string, what = 'file'): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  let renamed = false;
  try {
    fd = openSync(temp, 'wx', 0o600);
    const bytes = Buffer.from(data, 'utf8');
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, done);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
    renamed = true;
  } catch (error) {
    throw localError(error, path, what);
  } finally {
    if (fd !== undefined) closeQuietly(fd);
    if (!renamed) unlinkQuietly(temp);
  }
  fsyncDirectory(dirname(path));
}

/** What an errno means to a user, and what to do about it. */
export function errnoMeaning(code: string | undefined): { reason: string; hint: string } {
  switch (code) {
    case 'ENOSPC':
      return { reason: 'no space left on the device', hint: 'free some space on that disk, then run the same command again' };
    case 'EDQUOT':
      return { reason: 'disk quota exceeded', hint: 'free some space within your quota, then run the same command again' };
    case 'EROFS':
      return { reason: 'the file system is read-only', hint: 'use a path on a writable disk, or remount it read-write' };
    case 'EACCES':
    case 'EPERM':
      return { reason: 'permission denied', hint: 'use a path you can write to, or fix its permissions' };
    case 'EISDIR':
      return { reason: 'it is a directory', hint: 'give a file name, e.g. --out codes.csv' };
    case 'ENOTDIR':
      return { reason: 'a part of the path is not a directory', hint: 'check the path' };
    case 'ENOENT':
      return { reason: 'the directory does not exist', hint: 'create it first, or choose another path' };
    case 'EIO':
      return { reason: 'an input/output error from the disk', hint: 'check the disk (dmesg), then run the same command again' };
    case 'EMFILE':
    case 'ENFILE':
      return { reason: 'too many open files', hint: 'raise the open-file limit (ulimit -n), then run the same command again' };
    case 'EFBIG':
      return { reason: 'the file is too large for the file system', hint: 'use a path on another disk' };
    default:
      return { reason: code ?? 'unknown error', hint: 'fix the cause, then run the same command again' };
  }
}

/** An operating-system failure to write `path` as a LocalError (exit 8): the path, the errno's meaning, a hint for that cause. */
export function localError(error: unknown, path: string, what = 'file', code = 'local_error'): LocalError {
  if (error instanceof LocalError) return error;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const { reason, hint } = errnoMeaning(errno);
  return new LocalError(`cannot write the ${what} ${path}: ${reason}${errno && errno !== reason ? ` (${errno})` : ''}`, { code, hint, cause: error });
}

/** After a rename, the directory entry itself must reach the disk for the file to survive a crash. */
export function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse to fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already failed; the write's error is the one to report.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never created, or already gone.
  }
}
