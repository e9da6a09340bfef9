// A codes file as a recorded fact (docs/architecture.md): its identity (device, inode, size, SHA-256) is in the intent
// before the rename that delivers it, and its count right after, so a later run knows this intent's own
// file, and no other, from what is on disk, and knows a file that was renamed into place even once it is gone.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { FileIdentity, Intent } from './intent.js';

/** The identity of a complete file about to be renamed to `path`: the rename keeps the inode. */
export function fileIdentity(file: string, orderId: string, path: string): FileIdentity {
  const stat = statSync(file);
  return { orderId, path, dev: stat.dev, ino: stat.ino, size: stat.size, sha256: createHash('sha256').update(readFileSync(file)).digest('hex') };
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
 * The identity of a codes file that was renamed into place, whatever is at its path now (the reseller moved
 * it away, or sold from it, or another file replaced it): its count is written only after the rename
 * (machine.ts writeCodes). Writing its codes again would put them in a second file. A temporary file's
 * absence proves nothing: another export to the same path clears a dead run's temporary files.
 */
export function renamedFile(intent: Intent): FileIdentity | undefined {
  return (intent.files ?? []).find((f) => f.orderId === intent.orderId && f.count !== undefined);
}
