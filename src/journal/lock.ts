// The journal's short lock: a directory made with mkdir (atomic), holding its owner. A lock whose owner is
// dead is taken over at once; a live owner keeps it however long it takes, stopped (SIGSTOP) or not:
// liveness decides, never a timer. A lock dir without an owner file yet is being made: waited for.
import { mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { localError } from '../files/atomic.js';
import { failpointSync } from '../failpoints.js';
import { currentOwner, isAlive, type Owner } from './owner.js';

/** How long a waiter waits for a live holder before it gives up (exit 2, try again). */
export const LOCK_WAIT_MS = 60_000;
/** A lock dir left without an owner file (killed between mkdir and write) is dead after this long. */
const OWNERLESS_MS = 5_000;

/** The tail of each directory's queue of holders in this process. */
const queues = new Map<string, Promise<void>>();

/**
 * Holders in one process (the rows of a plan) take turns through a queue: polling the lock file against
 * each other would cost each turn up to 100 ms of sleep. Other processes still meet at the lock file.
 */
export async function withDirLock<T>(dir: string, fn: () => T | Promise<T>, waitMs: number = LOCK_WAIT_MS): Promise<T> {
  const before = queues.get(dir) ?? Promise.resolve();
  let done!: () => void;
  const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  queues.set(dir, mine);
  await before;
  try {
    return await withFileLock(dir, fn, waitMs);
  } finally {
    done();
    if (queues.get(dir) === mine) queues.delete(dir);
  }
}

async function withFileLock<T>(dir: string, fn: () => T | Promise<T>, waitMs: number): Promise<T> {
  const lock = join(dir, '.lock');
  const deadline = Date.now() + waitMs;
  let delay = 5;
  for (;;) {
    if (tryAcquire(lock)) break;
    if (Date.now() > deadline) {
      throw new UsageError(`the order journal in ${dir} stayed locked by a running giftcodes process for ${Math.round(waitMs / 1000)}s`, {
        code: 'journal_locked',
        hint: 'another giftcodes process is busy with it (perhaps stopped): see ps, then try again',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(100, Math.ceil(delay * 1.5));
  }
  failpointSync('journal.locked');
  try {
    return await fn();
  } finally {
    release(lock);
  }
}

/** Removes the lock only while it still names this process. */
function release(lock: string): void {
  try {
    const owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as Owner;
    if (owner.pid !== process.pid) return;
  } catch {
    return;
  }
  try {
    // The owner file, then the directory: two calls, where rmSync's recursive walk takes a dozen, per row of a plan.
    unlinkSync(join(lock, 'owner'));
    rmdirSync(lock);
  } catch {
    try {
      rmSync(lock, { recursive: true, force: true });
    } catch {
      // A disk turned read-only (or gone): the error of the holder's own step is the one to report, not
      // this one. A lock left behind names this process, dead once it exits: the next taker takes it over.
    }
  }
}

function tryAcquire(lock: string, afterTakeOver = false): boolean {
  try {
    mkdirSync(lock, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') throw localError(error, lock, 'order journal lock', 'journal_unwritable');
    // A dead holder's lock is taken over at once: one more try right away, no wait.
    return !afterTakeOver && takeOverIfDead(lock) ? tryAcquire(lock, true) : false;
  }
  try {
    writeFileSync(join(lock, 'owner'), JSON.stringify(currentOwner()), { mode: 0o600 });
  } catch (error) {
    rmSync(lock, { recursive: true, force: true });
    throw localError(error, lock, 'order journal lock', 'journal_unwritable');
  }
  return true;
}

/** Removes a lock whose holder is provably dead; the rename makes "check, then remove" safe against a second taker. */
function takeOverIfDead(lock: string): boolean {
  const seen = holder(lock);
  if (seen === 'missing') return true;
  if (seen === 'alive') return false;
  const aside = `${lock}.dead-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lock, aside);
  } catch {
    return false; // another waiter took it over first
  }
  // Between our look and the rename another waiter may have replaced the dead lock with its own live one.
  const moved = holder(aside);
  if (moved === 'alive') {
    try {
      renameSync(aside, lock);
    } catch {
      // The path was taken meanwhile: two holders now. Left aside, never removed; its holder's release
      // removes only a lock that names it. Needs three processes within microseconds of each other.
    }
    return false;
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}

function holder(lock: string): 'missing' | 'alive' | 'dead' {
  let owner: Owner;
  try {
    owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as Owner;
  } catch {
    // No owner yet, or half written: being made right now, or its maker died in that instant.
    try {
      return Date.now() - statSync(lock).mtimeMs > OWNERLESS_MS ? 'dead' : 'alive';
    } catch {
      return 'missing';
    }
  }
  return typeof owner.pid === 'number' && !isAlive(owner) ? 'dead' : 'alive';
}
