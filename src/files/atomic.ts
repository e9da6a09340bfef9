// Small files written whole or not at all: a temporary file beside the target (created O_EXCL, so a
// link planted at its name is never followed), fsynced, renamed (a link at the target is replaced,
// never written through), 0600. A failure is a LocalError (exit 8) naming the file; the temporary
// file is removed and the target left as it was. A failed fsync of the directory after the rename is
// one too (naming the directory): the file is in place, but not known to survive a crash.
import {
  close,
  closeSync,
  fsync,
  fsyncSync,
  open,
  openSync,
  renameSync,
  unlink,
  unlinkSync,
  write,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { LocalError } from '../errors.js';
import { errnoMeaning } from './errno.js';
import { randomBytes } from '../random.js';

// The temporary name's random part from random.ts: no node:crypto (seventeen modules) for it, so commands that
// read the config and write nothing (ping, catalog, order show) start without it (BENCHMARKS.md, issue 13), and
// those that write a file do too (issue 33).
// The asynchronous writes go through node:fs's callbacks, made promises here, never node:fs/promises: that module
// (with the file streams and readline it loads) costs 1.7-2.5 ms to load, and twice that once undici's V8 flags
// are set (Node's code cache of its own modules is then refused): 3.4 ms on Node 22, 6.4-7 ms on 24 and 26, for
// every order and plan, which write only the journal (BENCHMARKS.md, issue 33).

/** One of node:fs's callback calls as a promise: settled with its value, or rejected with its error. */
function called<T>(start: (done: (error: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => start((error, value) => (error ? reject(error) : resolve(value))));
}

const openFd = (path: string, flags: string, mode?: number): Promise<number> =>
  called<number>((done) => open(path, flags, mode, done));
const syncFd = (fd: number): Promise<void> => called<void>((done) => fsync(fd, (error) => done(error, undefined)));
const closeFd = (fd: number): Promise<void> => called<void>((done) => close(fd, (error) => done(error, undefined)));
const unlinkFile = (path: string): Promise<void> =>
  called<void>((done) => unlink(path, (error) => done(error, undefined)));

/** All of `bytes` written at the start of `fd`, however many calls the system takes for it. */
async function writeWhole(fd: number, bytes: Buffer): Promise<void> {
  for (let done = 0; done < bytes.length;)
    done += await called<number>((finish) => write(fd, bytes, done, bytes.length - done, done, finish));
}

/** `what` names the file in the error: "journal file", "config file". */
export function writeFileAtomicSync(path: string, data: string, what = 'file'): void {
  const temp = tempBeside(path);
  let fd: number | undefined;
  let renamed = false;
  try {
    fd = openSync(temp, 'wx', 0o600);
    const bytes = Buffer.from(data, 'utf8');
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, done);
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

/**
 * writeFileAtomicSync's steps on libuv's threads: the event loop goes on while the disk syncs, and
 * concurrent writers (a plan's rows) overlap their fsyncs, which the file system commits together.
 * `syncDir: false` leaves the directory's fsync to the caller, who makes one for many files (syncDirectory).
 */
export async function writeFileAtomic(
  path: string,
  data: string,
  what = 'file',
  o: { syncDir?: boolean } = {},
): Promise<void> {
  let staged: Staged | undefined;
  try {
    staged = await stageFile(path, data);
    staged.commit();
  } catch (error) {
    throw localError(error, path, what);
  } finally {
    await staged?.discard();
  }
  if (o.syncDir !== false) await syncDirectory(dirname(path));
}

export interface Staged {
  /**
   * Renames the file into place: atomic, but durable only once its directory is fsynced (syncDirectory).
   * Synchronous: a rename takes microseconds, where a turn in libuv's threadpool may wait behind fsyncs,
   * and the journal renames while it holds its lock.
   */
  commit(): void;
  /** Removes the temporary file unless it was committed; never fails. */
  discard(): Promise<void>;
}

/** The first half of writeFileAtomic: `data` in a temporary file beside `path`, written and fsynced; errors are the system's. */
export async function stageFile(path: string, data: string): Promise<Staged> {
  const temp = tempBeside(path);
  let done = false;
  const discard = async (): Promise<void> => {
    if (!done) await unlinkFile(temp).catch(() => undefined);
    done = true;
  };
  let fd: number | undefined;
  try {
    fd = await openFd(temp, 'wx', 0o600);
    await writeWhole(fd, Buffer.from(data, 'utf8'));
    await syncFd(fd);
  } catch (error) {
    await discard();
    throw error;
  } finally {
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
  }
  return {
    commit: () => {
      renameSync(temp, path);
      done = true;
    },
    discard,
  };
}

function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** An operating-system failure to write `path` as a LocalError (exit 8): the path, the errno's meaning, a hint for that cause. */
export function localError(
  error: unknown,
  path: string,
  what = 'file',
  code = 'local_error',
  doing: 'write' | 'read' = 'write',
): LocalError {
  if (error instanceof LocalError) return error;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const { reason, hint } = errnoMeaning(errno, path);
  return new LocalError(
    `cannot ${doing} the ${what} ${path}: ${reason}${errno && errno !== reason ? ` (${errno})` : ''}`,
    { code, hint, cause: error },
  );
}

/**
 * The answers of a file system that cannot fsync a directory at all, where the rename is all there is:
 * EINVAL is Linux's when the directory has no fsync (proc, sysfs, some FUSE and 9p mounts); ENOTSUP /
 * EOPNOTSUPP some network file systems'; EBADF systems' that refuse to fsync a descriptor opened read-only
 * (PostgreSQL's fsync_fname tolerates EINVAL and EBADF on directories for the same reasons). Any other
 * failure (EIO, ENOSPC, EACCES on opening it) means the renames may not survive a crash: reported.
 */
const CANNOT_SYNC_DIRECTORIES = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF']);

function directoryError(error: unknown, dir: string): LocalError | undefined {
  return CANNOT_SYNC_DIRECTORIES.has((error as NodeJS.ErrnoException).code ?? '')
    ? undefined
    : localError(error, dir, 'directory');
}

/** After a rename, the directory entry itself must reach the disk for the file to survive a crash. */
export function fsyncDirectory(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (error) {
    const failure = directoryError(error, dir);
    if (failure) throw failure;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** The directory fsync running now, per directory, and the one that follows it, shared by every caller meanwhile. */
const dirSyncs = new Map<string, { running: Promise<void>; next?: Promise<void> }>();

/**
 * fsyncDirectory without blocking, and shared: a caller's renames are durable when its promise settles.
 * An fsync already running may have begun before the caller's rename, so it does not count; the caller
 * waits for the next one, which starts when it ends and serves everyone who asked meanwhile (a plan's
 * rows ask together: one fsync for many entries, never one that started too early). A failed fsync
 * rejects every caller it served; the next one runs all the same, for its own callers.
 */
export function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return Promise.resolve();
  const current = dirSyncs.get(dir);
  if (current === undefined) return startDirectorySync(dir);
  const start = (): Promise<void> => startDirectorySync(dir);
  current.next ??= current.running.then(start, start);
  return current.next;
}

function startDirectorySync(dir: string): Promise<void> {
  const state: { running: Promise<void>; next?: Promise<void> } = { running: Promise.resolve() };
  state.running = (async () => {
    let fd: number | undefined;
    try {
      fd = await openFd(dir, 'r');
      await syncFd(fd);
    } catch (error) {
      const failure = directoryError(error, dir);
      if (failure) throw failure;
    } finally {
      if (fd !== undefined) await closeFd(fd).catch(() => undefined);
      if (dirSyncs.get(dir) === state) dirSyncs.delete(dir);
    }
  })();
  dirSyncs.set(dir, state);
  return state.running;
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
