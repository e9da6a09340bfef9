// The journal's short lock: a directory holding its owner, made whole under a temporary name and renamed into
// place, so the lock never exists without its owner. rename(2) fails on a non-empty directory (ENOTEMPTY):
// exactly one maker wins. A lock whose owner is dead is taken over at once; a live owner keeps it however
// long it takes, stopped (SIGSTOP) or not: liveness decides, never a timer. Only a lock dir left without an
// owner (by an older giftcodes that wrote its owner after mkdir) goes by age.
import { mkdirSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { localError } from '../files/atomic.js';
import { failpointSync } from '../failpoints.js';
import { currentOwner, isAlive, isSameProcess, leftByDead, otherMachine, type Owner } from './owner.js';
import { readIfThere } from '../files/read-if-there.js';
import { remembered } from '../remembered.js';

/** How long a waiter waits for a live holder before it gives up (exit 2, try again). */
export const LOCK_WAIT_MS = 60_000;
/** A lock dir without an owner file (an older giftcodes between mkdir and write, or killed there) is dead after this long. */
const OWNERLESS_MS = 5_000;

/** This process as a lock's owner: its start time read once. */
let me: Owner | undefined;
const self = (): Owner => (me ??= currentOwner());

/** Directories whose leftover temporary lock dirs this process has swept. */
const swept = new Set<string>();

/**
 * Directories whose lock a waiter of this process gave up on (journal_locked), until a waiter gets it again:
 * one deadline for the whole run, not one per row. A plan behind a stopped holder waited 60 s for each of
 * its rows in turn (17 hours for 1,000); after the first gives up, the others end at once.
 */
const givenUp = new Set<string>();

/** The tail of each directory's queue of holders in this process, and how many wait in it. */
const queues = new Map<string, Promise<void>>();
const queued = new Map<string, number>();

/**
 * A lock this process keeps between its own turns (handed from one row of a plan to the next): taking and
 * releasing it is six metadata calls (mkdir, write, rename; read, unlink, rmdir), and on a shared disk one
 * rmdir took 5 ms: 5 of a 1,000-row plan's 14 s at --concurrency 16 were spent in it (issue 33).
 */
interface Kept {
  lock: string;
  since: number;
}
const kept = new Map<string, Kept>();
/** Locks this process took and has not released yet (a turn's, or one kept between turns): with none, no lock is its to hold. */
let holding = 0;
/** Whether this process lets go of its kept locks as it exits (registered with the first one kept). */
let exitHook = false;

/**
 * How long one process hands its lock from turn to turn before it lets go once anyway. Another giftcodes
 * says that it waits (WANT) and gets the next turn; this bound is for what does not say so (an older version).
 */
const HAND_OFF_MS = 250;

/**
 * How long the lock stays kept after a turn with none queued behind it: a plan's rows come in waves (the
 * rows in flight send, then wait about as long as the server takes to answer), and the next wave finds it
 * still held instead of making it again. Meanwhile it looks every LINGER_LOOK_MS for another process's waiter
 * (WANT) and lets go at once for it; this process's exit lets go too.
 */
const LINGER_MS = 100;
const LINGER_LOOK_MS = 10;

/**
 * A waiter of another process, in the journal directory: its owner, written when its first try fails and
 * again at each look, removed once it holds the lock or gives up. A holder with turns of its own queued hands
 * the lock on only while no live process's WANT is there; otherwise it releases it and lets that process take
 * it before it tries again (yielded), so two plans sharing a journal take turns instead of one waiting for the
 * other to end.
 */
const WANT = '.lock.want';

/** Directories whose lock this process let go for another process's waiter: it waits until that one has had it. */
const yielded = new Set<string>();

/** The lock of each directory for the turn under way in this process (lockTenure). */
const inTurn = new Map<string, Kept>();

/**
 * The lock of `dir` the turn under way holds: one object for as long as this process hands the lock from turn to
 * turn (Kept), another once it was released and taken again; undefined outside a turn. While it stays the same
 * object, no other process has held the lock since, so nothing but this process has changed what it guards.
 */
export function lockTenure(dir: string): object | undefined {
  return inTurn.get(dir);
}

/**
 * Holders in one process (the rows of a plan) take turns through a queue: polling the lock file against
 * each other would cost each turn up to 100 ms of sleep. The lock passes from one turn to the next without
 * being released while others of this process are queued (Kept); other processes still meet at the lock file.
 */
export async function withDirLock<T>(
  dir: string,
  fn: () => T | Promise<T>,
  waitMs: number = LOCK_WAIT_MS,
  o: { linger?: boolean } = {},
): Promise<T> {
  const before = queues.get(dir) ?? Promise.resolve();
  let done!: () => void;
  const mine = before.then(() => new Promise<void>((resolve) => (done = resolve)));
  queues.set(dir, mine);
  queued.set(dir, (queued.get(dir) ?? 0) + 1);
  await before;
  queued.set(dir, queued.get(dir)! - 1);
  try {
    return await withFileLock(dir, fn, waitMs, o.linger === true);
  } finally {
    done();
    if (queues.get(dir) === mine) {
      queues.delete(dir);
      queued.delete(dir);
    }
  }
}

/**
 * A waiter looks again soon at first (a row of a plan holds the lock for a millisecond or two), then less
 * often, half as long again each time, never more than 100 ms apart: 5, 8, 12, 18, 27, 41, 62, 93, 100 ms.
 */
export function nextPoll(ms: number): number {
  return Math.min(100, Math.ceil(ms * 1.5));
}

async function withFileLock<T>(dir: string, fn: () => T | Promise<T>, waitMs: number, lingers: boolean): Promise<T> {
  const lock = pathsIn(dir).lock;
  const held = kept.get(dir) ?? (await acquire(dir, lock, waitMs));
  kept.delete(dir);
  givenUp.delete(dir);
  failpointSync('journal.locked');
  try {
    inTurn.set(dir, held);
    if (!swept.has(dir)) sweep(dir);
    return await fn();
  } finally {
    inTurn.delete(dir);
    // Handed to this process's next turn (queued now, or, for a turn that lingers, coming within LINGER_MS),
    // or released: then another process's waiter (WANT) goes first.
    const next = (queued.get(dir) ?? 0) > 0;
    const others = (next || lingers) && othersWant(dir);
    if ((next || lingers) && !others && Date.now() - held.since < HAND_OFF_MS) {
      kept.set(dir, held);
      if (!next) linger(dir, held);
    } else {
      if (others) yielded.add(dir);
      release(lock);
    }
  }
}

/** Releases every lock this process keeps between turns: as it exits (and a test, to see the journal as a next process would). */
export function letGoOfKept(): void {
  for (const { lock } of kept.values()) release(lock);
  kept.clear();
}

/**
 * Each directory's lingering kept lock: which hold, and until when. One look every LINGER_LOOK_MS per directory,
 * however many turns ended meanwhile: a look begun at each turn's end went on for its own LINGER_MS, and a plan's
 * rows, a turn every few milliseconds, had a score of them looking at once (3,000 of a 1,000-row plan's 4,000 looks
 * for a waiter, issue 33), the oldest letting go LINGER_MS after its own turn rather than the last.
 */
const lingering = new Map<string, { held: Kept; until: number }>();

/** Releases a kept lock LINGER_MS after its last turn unless a turn of this process took it meanwhile, sooner for another process's waiter; and at exit. */
function linger(dir: string, held: Kept): void {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', letGoOfKept);
  }
  const until = Date.now() + LINGER_MS;
  const on = lingering.get(dir);
  if (on?.held === held) {
    on.until = until;
    return;
  }
  const state = { held, until };
  lingering.set(dir, state);
  const look = (): void => {
    if (lingering.get(dir) !== state) return;
    if (kept.get(dir) !== held) return void lingering.delete(dir);
    if (Date.now() < state.until && !othersWant(dir)) return void setTimeout(look, LINGER_LOOK_MS).unref();
    lingering.delete(dir);
    kept.delete(dir);
    release(held.lock);
  };
  setTimeout(look, LINGER_LOOK_MS).unref();
}

/** Turns of this process waiting now for another process to let go of a journal's lock file. */
let waitingTurns = 0;

/**
 * Whether a turn of this process waits now for another process's hold of a journal: a plan's progress line says
 * so, not "waiting on the API", while a second run (a cron job, another window) holds it.
 */
export function waitingForOtherRun(): boolean {
  return waitingTurns > 0;
}

/** Takes the lock file, waiting for a live holder (and, after yielding, for the waiter it yielded to). */
async function acquire(dir: string, lock: string, waitMs: number): Promise<Kept> {
  waitingTurns++;
  try {
    return await acquireLock(dir, lock, waitMs);
  } finally {
    waitingTurns--;
  }
}

async function acquireLock(dir: string, lock: string, waitMs: number): Promise<Kept> {
  const again = givenUp.has(dir);
  const deadline = again ? -Infinity : Date.now() + waitMs;
  let delay = 5;
  let waiting = false;
  for (;;) {
    // After yielding, the waiter of another process goes first: this one waits until its WANT is gone.
    if (yielded.has(dir) && !othersWant(dir)) yielded.delete(dir);
    if (!yielded.has(dir) && tryAcquire(lock)) break;
    if (!yielded.has(dir)) {
      want(dir);
      waiting = true;
    }
    if (Date.now() > deadline) {
      yielded.delete(dir);
      if (waiting) unwant(dir);
      givenUp.add(dir);
      const how = again
        ? 'is still locked by a running giftcodes process (this run already waited for it)'
        : `stayed locked by a running giftcodes process for ${Math.round(waitMs / 1000)}s`;
      throw new UsageError(`the order journal in ${dir} ${how}`, {
        code: 'journal_locked',
        hint: 'another giftcodes process is busy with it (perhaps stopped): see ps, then try again',
      });
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = nextPoll(delay);
  }
  // Counted in the same tick as the take: another turn's look at the lock must see it held.
  holding++;
  if (waiting) unwant(dir);
  return { lock, since: Date.now() };
}

/** Says that this process waits for the lock (WANT names it); a disk that refuses only leaves the waiter unsaid. */
function want(dir: string): void {
  // Whole or not at all: written under a name of its own, then renamed. A holder that read it between the
  // create and the write found it empty, took it for nobody's and kept the lock another turn (a flaky test).
  const made = join(dir, `${WANT}-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    writeFileSync(made, JSON.stringify(self()), { mode: 0o600, flag: 'wx' });
    renameSync(made, join(dir, WANT));
  } catch {
    // Read-only or gone: the holder's HAND_OFF_MS bound still lets go.
    try {
      unlinkSync(made);
    } catch {
      // Never made.
    }
  }
}

/** Removes WANT if it still names this process (another waiter may have written its own since). */
function unwant(dir: string): void {
  const owner = wanting(dir);
  if (owner === undefined || !isSameProcess(owner, self())) return;
  try {
    unlinkSync(join(dir, WANT));
  } catch {
    // Gone already.
  }
}

function wanting(dir: string): Owner | undefined {
  const text = readIfThere(wantFile(dir));
  if (text === undefined) return undefined;
  try {
    const owner = JSON.parse(text) as Owner;
    return typeof owner.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** The lock's and WANT's paths in each directory, made once: a plan's every turn asks for them (issue 33). */
const pathsIn = remembered(1_000, (dir: string) => ({ lock: join(dir, '.lock'), want: join(dir, WANT) }));

function wantFile(dir: string): string {
  return pathsIn(dir).want;
}

/** Whether a live process other than this one waits for the lock: one open that fails, when none does. A dead waiter's WANT goes. */
function othersWant(dir: string): boolean {
  const owner = wanting(dir);
  if (owner === undefined || isSameProcess(owner, self())) return false;
  if (isAlive(owner)) return true;
  try {
    // Should a live waiter have written its own meanwhile, it writes it again at its next look.
    unlinkSync(join(dir, WANT));
  } catch {
    // Another process removed it first.
  }
  return false;
}

/**
 * Removes the lock only while it names this process (pid, start time and boot: a reused pid is another
 * process), and never anything but its owner file and the empty directory: should the rmdir meet a lock
 * another holder renamed into place meanwhile (ENOTEMPTY), that lock is theirs and stays.
 */
function release(lock: string): void {
  holding--;
  let owner: Owner;
  try {
    owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as Owner;
  } catch {
    return;
  }
  if (!isSameProcess(owner, self())) return;
  // The owner file, then the directory: two calls per row of a plan. A disk turned read-only (or gone)
  // leaves it: the error of the holder's own step is the one to report, and a lock left naming this
  // process is taken over by its own next turn (holder()), and by others once it exits (an emptied one,
  // after OWNERLESS_MS).
  removeLockDir(lock);
}

/** Its owner file, then the directory itself, never recursively: anything else in it keeps it. */
function removeLockDir(path: string): void {
  try {
    unlinkSync(join(path, 'owner'));
  } catch {
    // Not written yet, or already gone: the rmdir says whether the directory can go.
  }
  try {
    rmdirSync(path);
  } catch {
    // Not empty (another holder's lock renamed onto it) or the disk failed: left as it is.
  }
}

function tryAcquire(lock: string, afterTakeOver = false): boolean {
  const seen = holder(lock);
  if (seen === 'alive') return false;
  // A dead holder's lock is taken over at once: one more try right away, no wait.
  if (seen === 'dead') return !afterTakeOver && takeOverIfDead(lock) && tryAcquire(lock, true);
  const made = `${lock}.new-${process.pid}-${Math.random().toString(36).slice(2)}`;
  let placed = false;
  try {
    mkdirSync(made, { mode: 0o700 });
    writeFileSync(join(made, 'owner'), JSON.stringify(self()), { mode: 0o600, flag: 'wx' });
    renameSync(made, lock);
    placed = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Another maker's lock was renamed into place first.
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw localError(error, lock, 'order journal lock', 'journal_unwritable');
  } finally {
    // Only ever the directory this call made: never a lock at the real path.
    if (!placed) removeLockDir(made);
  }
  return true;
}

/** Removes a lock whose holder is provably dead; the rename makes "check, then remove" safe against a second taker. */
function takeOverIfDead(lock: string): boolean {
  const aside = `${lock}.dead-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lock, aside);
  } catch (error) {
    // Gone: another waiter took it over first. Anything else (a read-only or failing disk) is the journal's
    // disk refusing: exit 8 now, not a wait that ends in journal_locked.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw localError(error, lock, 'order journal lock', 'journal_unwritable');
  }
  // Between our look and the rename another waiter may have replaced the dead lock with its own live one.
  if (holder(aside) === 'alive') {
    try {
      renameSync(aside, lock);
    } catch {
      // The path was taken meanwhile: two holders now. Left aside, never removed; its holder's release
      // removes only a lock that names it. Needs three processes within microseconds of each other.
    }
    return false;
  }
  removeLockDir(aside);
  return true;
}

/**
 * Removes the temporary lock dirs (".lock.new-<pid>-…" being made, ".lock.dead-<pid>-…" being taken over)
 * that a process killed meanwhile left behind, once per directory and process, under the lock. The pid in
 * the name is the maker's or taker's: while it lives, the dir is its own (a reused pid only keeps one longer).
 */
function sweep(dir: string): void {
  swept.add(dir);
  const pidOf = (name: string): number | undefined => {
    const pid = /^\.lock\.(?:new|dead|want)-(\d+)-/.exec(name)?.[1];
    return pid === undefined ? undefined : Number(pid);
  };
  for (const name of leftByDead(dir, pidOf)) {
    // A waiter's file made and never renamed (its process killed in between), or a lock directory.
    if (!name.startsWith(`${WANT}-`)) removeLockDir(join(dir, name));
    else
      try {
        unlinkSync(join(dir, name));
      } catch {
        // Another process swept it first.
      }
  }
}

function holder(lock: string): 'missing' | 'alive' | 'dead' {
  let owner: Owner | undefined;
  try {
    owner = JSON.parse(readIfThere(join(lock, 'owner')) ?? '') as Owner | undefined;
  } catch {
    owner = undefined;
  }
  // No owner: an older giftcodes making its lock right now (or killed in that instant), or a release between its
  // two steps. An owner without a pid (a damaged file) is one too: it names no process that could let go. Young,
  // it is waited for; old, it is dead. Another machine's (or pid namespace's) pid cannot be checked from here: it
  // holds the lock while the lock is young.
  if (typeof owner?.pid !== 'number' || otherMachine(owner) !== undefined) return byAge(lock);
  // This process's own lock (provably: its start time too, not only its pid) while it holds none: a release
  // that failed (the disk turned read-only under the holder) left it. Waiting on it would be waiting on
  // ourselves; it is taken over. While this process holds any lock it is waited for: `holding` counts every
  // directory's, so a second name of one directory (a symlink) never lets two of its turns in at once.
  if (isSameProcess(owner, self()))
    return holding === 0 && owner.start !== undefined && owner.start === self().start ? 'dead' : 'alive';
  return isAlive(owner) ? 'alive' : 'dead';
}

/** A lock whose holder cannot be checked: alive while young, dead once older than OWNERLESS_MS. */
function byAge(lock: string): 'missing' | 'alive' | 'dead' {
  try {
    return Date.now() - statSync(lock).mtimeMs > OWNERLESS_MS ? 'dead' : 'alive';
  } catch {
    return 'missing';
  }
}
