// A codes file as a recorded fact (docs/architecture.md): its identity (device, inode, size, SHA-256), its count and the
// temporary file it is written as are in the intent before the rename that delivers it, and a mark that the
// rename happened right after, so a later run knows this intent's own file, and no other, from what is on
// disk, knows a file that was renamed into place even once it is gone, and knows when it cannot tell.
import { readFileSync, statSync } from 'node:fs';
import { LocalError } from '../errors.js';
import { errnoMeaning } from '../files/errno.js';
import { nodeCrypto } from '../random.js';
import type { FileIdentity, Intent } from './intent.js';

/** The identity of a complete temporary file about to be renamed to `path`: the rename keeps the inode. */
export function fileIdentity(file: string, orderId: string, path: string): FileIdentity {
  try {
    const stat = statSync(file);
    return {
      orderId,
      path,
      dev: stat.dev,
      ino: stat.ino,
      size: stat.size,
      sha256: nodeCrypto().createHash('sha256').update(readFileSync(file)).digest('hex'),
      temp: file,
    };
  } catch (error) {
    // Removed or unreadable under this run (by hand, or a sweep that took it for a dead run's): a local file failing,
    // exit 8 with the order kept for the next run, never an internal error (a review met exit 1).
    const errno = (error as NodeJS.ErrnoException).code;
    const reason = errno === 'ENOENT' ? 'it is gone' : errnoMeaning(errno).reason;
    throw new LocalError(`cannot read the temporary codes file ${file}: ${reason}${errno ? ` (${errno})` : ''}`, {
      code: 'write_failed',
      hint: 'nothing else may remove or change a codes file while giftcodes writes it',
      cause: error,
    });
  }
}

/** Whether the file at `path` is, now, the one `identity` describes (content included). */
function holds(path: string, identities: readonly FileIdentity[]): FileIdentity | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (!stat.isFile()) return undefined;
  const same = identities.filter((f) => f.dev === stat.dev && f.ino === stat.ino && f.size === stat.size);
  if (same.length === 0) return undefined;
  let digest: string;
  try {
    digest = nodeCrypto().createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
  return same.find((f) => f.sha256 === digest);
}

/** The identity recorded by this intent that the file at `path` has now, content included, if any. */
export function deliveredFile(intent: Intent, path: string): FileIdentity | undefined {
  const candidates = (intent.files ?? []).filter((f) => f.path === path && f.orderId === intent.orderId);
  return candidates.length === 0 ? undefined : holds(path, candidates);
}

/**
 * The identity of a codes file that was renamed into place, whatever is at its path now (the reseller moved
 * it away, or sold from it, or another file replaced it): its mark is written only after the rename
 * (machine.ts writeCodes). Writing its codes again would put them in a second file. An identity written by
 * versions that recorded the count only after the rename (no temporary file named) is marked by its count.
 */
export function renamedFile(intent: Intent): FileIdentity | undefined {
  return (intent.files ?? []).find(
    (f) => f.orderId === intent.orderId && (f.renamed === true || (f.temp === undefined && f.count !== undefined)),
  );
}

/**
 * Where a recorded identity of this order stands, for a run about to write its codes: `pending` when its
 * temporary file is still there unchanged (the rename never happened: the identity may be taken back and the
 * codes written), `unaccounted` when neither the temporary file nor the target holds it and no mark says it
 * was renamed: the codes may be in a file that was moved away since, so they are not written again.
 */
export function recordedFileState(
  intent: Intent,
): { state: 'pending' | 'unaccounted'; identity: FileIdentity } | undefined {
  if (renamedFile(intent)) return undefined;
  for (const identity of intent.files ?? []) {
    if (identity.orderId !== intent.orderId) continue;
    if (holds(identity.path, [identity])) return undefined;
    if (identity.temp !== undefined && holds(identity.temp, [identity])) return { state: 'pending', identity };
    return { state: 'unaccounted', identity };
  }
  return undefined;
}
