// One writer per --out path: a lock file beside the target, `.<name>.giftcodes.lock`, holding the
// writer's pid, process start time and boot id. It is created whole (written to a temporary file, then
// hard-linked into place, which fails if a lock exists), so a reader never sees half a lock. A lock is
// taken over only when its owner is provably dead (no such process, another process under that pid,
// a zombie, another boot): never by age, because a stopped (SIGSTOP) process is alive.
import { randomBytes } from '../random.js';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LocalError, UsageError } from '../errors.js';
import { errnoMeaning } from '../files/errno.js';
import { currentOwner, isAlive, type Owner } from '../journal/owner.js';

/** The process holding a lock: pid, start time and boot, as the journal's owners (src/journal/owner.ts). */
export type LockHolder = Owner;

export interface OutLock {
  /** The lock file. */
  readonly path: string;
  /** The --out target it guards. */
  readonly target: string;
  /** Removes the lock if it is still this process's; safe to call twice. */
  release(): void;
}

/** The lock file of an --out target (an absolute path). */
export function outLockPath(target: string): string {
  return join(dirname(target), `.${basename(target)}.giftcodes.lock`);
}

/**
 * Takes the lock of an --out target (an absolute path), or throws: UsageError `out_busy` (exit 2) when a
 * live process holds it, LocalError (exit 8) when the directory refuses the lock file. `placing`: the caller is about
 * to place an order whose codes go there (busy's words).
 */
export function lockOutTarget(target: string, placing = false): OutLock {
  const path = outLockPath(target);
  const me = currentHolder();
  for (let attempt = 0; attempt < 10; attempt++) {
    if (createLockFile(path, me, target)) {
      let held = true;
      return {
        path,
        target,
        release: () => {
          if (!held) return;
          held = false;
          const holder = readHolder(path);
          if (holder !== 'unreadable' && holder && sameHolder(holder, me)) unlinkQuietly(path);
        },
      };
    }
    const holder = readHolder(path);
    if (holder === undefined) continue; // released meanwhile: try again
    if (holder === 'unreadable' || holderAlive(holder)) throw busy(target, path, holder, placing);
    breakStale(path, holder, me, target);
  }
  throw busy(target, path, readHolder(path) ?? 'unreadable', placing);
}

/** Alive only when provably so on this boot; a stopped process is alive. */
export const holderAlive: (holder: LockHolder) => boolean = isAlive;

export const currentHolder: () => LockHolder = currentOwner;

function sameHolder(a: LockHolder, b: LockHolder): boolean {
  return a.pid === b.pid && a.start === b.start && a.boot === b.boot;
}

/**
 * Stale-lock breakers go one at a time through `<lock>.break` (itself a lock), so one breaker never
 * removes the fresh lock another breaker has just created. A breaker left by a killed breaker is
 * removed once its owner is dead.
 */
function breakStale(path: string, stale: LockHolder, me: LockHolder, target: string): void {
  const breaker = `${path}.break`;
  if (!createLockFile(breaker, me, target)) {
    const other = readHolder(breaker);
    if (other && other !== 'unreadable' && !holderAlive(other)) unlinkQuietly(breaker);
    return;
  }
  try {
    const now = readHolder(path);
    if (now && now !== 'unreadable' && sameHolder(now, stale)) unlinkQuietly(path);
  } finally {
    unlinkQuietly(breaker);
  }
}

const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

/** Creates `path` holding `holder`, whole; false when it exists. */
function createLockFile(path: string, holder: LockHolder, target: string): boolean {
  const temp = join(
    dirname(path),
    `.${basename(target)}.giftcodes-${process.pid}-${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    writeFileSync(temp, `${JSON.stringify(holder)}\n`, { flag: 'wx', mode: 0o600 });
    try {
      linkSync(temp, path);
    } catch (error) {
      if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
      // A file system without hard links: create exclusively, then fill. A reader meanwhile sees an
      // unreadable lock, which is never taken over (busy), so the gap is safe.
      writeFileSync(path, `${JSON.stringify(holder)}\n`, { flag: 'wx', mode: 0o600 });
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    const errno = (error as NodeJS.ErrnoException).code;
    const { reason, hint } = errnoMeaning(errno, path);
    throw new LocalError(
      `cannot write ${target}: its lock file ${path} cannot be created: ${reason}${errno ? ` (${errno})` : ''}`,
      { code: 'write_failed', hint, cause: error },
    );
  } finally {
    unlinkQuietly(temp);
  }
}

function readHolder(path: string): LockHolder | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'unreadable';
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return 'unreadable';
    return {
      pid: parsed.pid,
      start: typeof parsed.start === 'string' ? parsed.start : undefined,
      boot: typeof parsed.boot === 'string' ? parsed.boot : undefined,
    };
  } catch {
    return 'unreadable';
  }
}

/**
 * The refusal of a target another process holds. To a run about to place an order, the holder may be placing the same
 * one (a second window, a copy of the plan): "choose another --out file" was then a second charge (a review followed it,
 * and a plan's edited out cell the same), so its words say where that order's codes will be, and what another file does.
 */
function busy(target: string, path: string, holder: LockHolder | 'unreadable', placing: boolean): UsageError {
  if (holder === 'unreadable') {
    return new UsageError(`${target} is locked by ${path}, which cannot be read`, {
      code: 'out_busy',
      hint: `if no giftcodes process is writing ${target}, remove ${path}`,
    });
  }
  if (placing)
    return new UsageError(
      `another giftcodes process (pid ${holder.pid}) holds ${target}: it is writing codes there, or placing an order whose codes go there`,
      {
        code: 'out_busy',
        hint: `wait for pid ${holder.pid} to finish (giftcodes order pending shows an order it is placing): if it is this same order, its codes will be in ${target}, and another file would order them a second time`,
      },
    );
  return new UsageError(`another giftcodes process (pid ${holder.pid}) is writing ${target}`, {
    code: 'out_busy',
    hint: `wait for pid ${holder.pid} to finish, or choose another --out file`,
  });
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
