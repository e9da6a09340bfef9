// A codes file as a recorded fact (STYLE 11): its identity (device, inode, size, SHA-256, and the temporary
// name it was written under) is in the intent before the rename that delivers it, so a later run knows this
// intent's own file, and no other, from what is on disk.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, statSync } from 'node:fs';
import type { FileIdentity, Intent } from './intent.js';

/** The identity of a complete file about to be renamed to `path`: the rename keeps the inode. */
export function fileIdentity(file: string, orderId: string, path: string): FileIdentity {
  const stat = statSync(file);
  return { orderId, path, temp: file, dev: stat.dev, ino: stat.ino, size: stat.size, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
}

/** The identity recorded by this intent that the file at `path` has now, content included, if any. */
export function deliveredFile(intent: Intent, path: string): FileIdentity | undefined {
  const candidates = (intent.files ?? []).filter((f) => f.path === path && f.orderId === intent.orderId);
  if (candidates.length === 0) return undefined;
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const same = candidates.filter((f) => f.dev === stat.dev && f.ino === stat.ino && f.size === stat.size);
  if (same.length === 0) return undefined;
  const digest = createHash('sha256').update(readFileSync(path)).digest('hex');
  return same.find((f) => f.sha256 === digest);
}

/**
 * The identity of a codes file that was renamed into place and is no longer there as it was (the reseller
 * moved it away, or sold from it): its temporary file is gone, and a run that failed before its rename takes
 * its identity back (machine.ts). Writing its codes again would put them in a second file.
 */
export function renamedFile(intent: Intent): FileIdentity | undefined {
  return (intent.files ?? []).find((f) => {
    if (f.orderId !== intent.orderId || f.temp === undefined) return false;
    try {
      const stat = lstatSync(f.temp);
      return !(stat.dev === f.dev && stat.ino === f.ino);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  });
}
