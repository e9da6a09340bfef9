// Small files written whole or not at all: a temporary file beside the target, fsynced, renamed, 0600.
import { openSync, fsyncSync, closeSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export function writeFileAtomicSync(path: string, data: string): void {
  writeFileAtomic.sync(path, data, { mode: 0o600, fsync: true });
  fsyncDirectory(dirname(path));
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
