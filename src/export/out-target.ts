// Which --out targets may be written, decided before anything is fetched or charged: a symbolic link, a
// device or pipe, a directory, a missing or unwritable directory, a file another run is writing, an earlier
// file without --force. The export pump (write.ts) asks again at its atomic step.
import { accessSync, constants, lstatSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { LocalError, UsageError } from '../errors.js';
import { errnoMeaning } from '../files/errno.js';
import { shellWord } from '../output/pinned-hint.js';
import { lockOutTarget, type OutLock } from './out-lock.js';

/**
 * Refuses an --out target before anything is fetched or placed: a symbolic link (dangling or not, also
 * with --force), a device or pipe, a missing directory, a path another run is writing (out_busy), an
 * existing file without --force (exit 2); a directory, or a directory that cannot be written or holds
 * no space for the lock file (exit 8). '-' passes.
 * `lockHeldHere`: the caller holds the target's lock, so it is not reported busy. `placing`: the caller places an
 * order whose codes go there (out-lock.ts busy: its hint must not send a person to another file).
 */
export function checkOutTarget(
  out: string,
  force: boolean,
  options: { lockHeldHere?: boolean; placing?: boolean } = {},
): void {
  if (out === '-') return;
  const target = resolve(out);
  let stat: Stats | undefined;
  try {
    stat = lstatSync(target);
  } catch {
    stat = undefined;
  }
  if (stat?.isSymbolicLink()) throw symlinkRefused(out, target, force);
  if (stat?.isDirectory())
    throw new LocalError(`cannot write ${out}: it is a directory`, {
      code: 'out_is_directory',
      // In that directory, as it was typed: `--out exports` means a file in exports/ (a person's day).
      hint: `give a file name, e.g. --out ${shellWord(join(out, 'codes.csv'))}`,
    });
  // A device or a pipe (`--out /dev/stdout`) would be replaced by the rename, not written to.
  if (stat && !stat.isFile())
    throw new UsageError(`${out} is not a regular file (${kindOf(stat)})`, {
      code: 'out_not_a_file',
      hint: 'for standard output use --out -; otherwise give the path of a file',
    });
  const dir = dirname(target);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A path that names no directory is bad input; a directory the system will not let us write is a local resource failing.
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new UsageError(`the directory ${dir} does not exist`, {
        code: 'out_not_writable',
        hint: 'create it first, or choose another --out path',
      });
    }
    const { reason, hint } = errnoMeaning(code);
    throw new LocalError(`cannot write to the directory ${dir}: ${reason}${code ? ` (${code})` : ''}`, {
      code: 'out_not_writable',
      hint,
    });
  }
  // Taking the lock and letting it go is also a write probe: a full or read-only disk is found here,
  // before an order is placed, rather than after it was charged; and a killed writer's lock is cleared.
  if (!options.lockHeldHere) lockOutTarget(target, options.placing === true).release();
  if (stat && !force)
    throw new UsageError(`${out} exists`, {
      code: 'out_exists',
      hint: 'pass --force to overwrite it, or choose another --out file',
    });
}

/**
 * For a run that will charge before it writes: the target checked as checkOutTarget does, then its lock
 * taken and returned for the caller to hold until the run ends, so a second writer meanwhile is refused
 * (out_busy) before its own charge. The first check comes before any lock file is tried beside the target,
 * so a mistyped directory stays exit 2; the second, under the lock, sees a file another run wrote in
 * between. `ownDelivery`: the file there is this intent's own earlier delivery, not refused as existing.
 */
export function holdOutTarget(out: string, force: boolean, ownDelivery: () => boolean): OutLock {
  const target = resolve(out);
  const check = (lockHeldHere: boolean): void => {
    if (!ownDelivery()) checkOutTarget(target, force, { lockHeldHere, placing: true });
  };
  // The first check also probes the lock (after the directory is known to exist): a killed writer's lock is
  // cleared even when the run is then refused (an existing file), never left beside the file for good.
  check(false);
  const lock = lockOutTarget(target, true);
  try {
    check(true);
  } catch (error) {
    lock.release();
    throw error;
  }
  return lock;
}

export function kindOf(stat: Stats): string {
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'not a file';
}

export function symlinkRefused(out: string, target: string, force: boolean): UsageError {
  let pointsTo: string;
  try {
    pointsTo = readlinkSync(target);
  } catch {
    pointsTo = 'an unreadable target';
  }
  const real = resolve(dirname(target), pointsTo);
  let dangling = false;
  try {
    lstatSync(real);
  } catch {
    dangling = true;
  }
  const what = `${out} is a symbolic link to ${pointsTo}${dangling ? ' (which does not exist)' : ''}`;
  return new UsageError(
    force ? `${what}; --force does not replace a link` : `${what}; codes are never written through a link`,
    {
      code: 'out_is_symlink',
      hint: `give the real path (--out ${real}), or remove the link first: rm ${out}`,
    },
  );
}
