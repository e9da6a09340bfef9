// The journal's group-commit writer: one append-only log per process (journal/<pid>-<random>.log), one JSON
// line per change of an intent ({key, intent} or {key, ended}). Each line is written the moment it is made
// (so a process that takes the lock next reads it) and is durable once an fsync that began after it returns:
// every line written while an fsync runs waits for the next one, which serves them all. A plan's rows thus
// share their fsyncs instead of queueing one each. Readers fold the logs over the intent files (foldIntents);
// the log of a dead process is compacted into intent files by the next lock holder (compactLog).
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fsyncDirectory, syncDirectory, writeFileAtomic } from '../files/atomic.js';
import { redactKeys } from '../secrets.js';
import { keyHash, type Intent } from './intent.js';
import { remembered } from '../remembered.js';
import { onJournalExit } from './at-exit.js';
import { withDirLock } from './lock.js';
import { currentOwner, isAlive, pidAlive, type Owner } from './owner.js';
import { intentSchema } from './schema.js';
import { readIfThere } from '../files/read-if-there.js';
import { onlyGrew, readOn, type ReadPoint } from '../files/bytes-at.js';

/** A change of one intent: its whole new state, or its end (named by its createdAt, kept through every claim). */
export type LogEntry = { key: string; intent: Intent } | { key: string; ended: string };

/** The disk calls the writer makes, replaceable by a test (a counted or failing fsync). */
export interface LogSync {
  datasync(fd: number): Promise<void>;
  datasyncSync(fd: number): void;
  syncDirectory(dir: string): Promise<void>;
  syncDirectorySync(dir: string): void;
}

const diskSync: LogSync = {
  datasync: (fd) => new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve()))),
  datasyncSync: (fd) => fdatasyncSync(fd),
  syncDirectory,
  syncDirectorySync: fsyncDirectory,
};

/** How long a command's end waits for the journal's lock to compact its log, before it leaves that to the next run. */
const FINISH_LOCK_WAIT_MS = 5_000;

/** A log's name: its writer's pid (what a headerless log is judged by) and a random part. */
const LOG_NAME = /^(\d+)-[0-9a-f]+\.log$/;

export function isLogName(name: string): boolean {
  return LOG_NAME.test(name);
}

/** A dead log with lines nobody can read, set aside whole once its readable intents are intent files: a person's to look at. */
export const SET_ASIDE = '.unreadable';

export function isSetAsideLog(name: string): boolean {
  return name.endsWith(`.log${SET_ASIDE}`) && LOG_NAME.test(name.slice(0, -SET_ASIDE.length));
}

/** `${key}\n${createdAt}`: one intent's identity, as an `ended` line names it. */
export function endMark(key: string, createdAt: string): string {
  return `${key}\n${createdAt}`;
}

/** The intent file of a key, as the journal names it (journal.ts fileOf): 40 hex of its sha256. */
export function intentFile(dir: string, key: string): string {
  return join(dir, `${keyHash(key).slice(0, 40)}.json`);
}

/**
 * An intent as the journal stores it: byte for byte what the user gave and the server answered. Keys stay out
 * because none is ever put in (the key's id is stored, not the key); the one field that is the server's free
 * text, its status, may echo a key and is masked (issue 15). Identifiers the journal compares or resends (the
 * profile, product id, body, out path, idempotency key, base URL, order id) are never rewritten: a masked one
 * is another order (README, "Exactly once").
 */
export function storedIntent(intent: Intent): Intent {
  return intent.status === undefined ? intent : { ...intent, status: redactKeys(intent.status) };
}

export function intentText(intent: Intent): string {
  return `${JSON.stringify(storedIntent(intent), null, 2)}\n`;
}

function entryText(entry: LogEntry): string {
  return JSON.stringify('intent' in entry ? { key: entry.key, intent: storedIntent(entry.intent) } : entry);
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * This process's log in one journal directory. After a failed write or fsync it is never trusted again: the
 * page cache may hold lines the disk lost (PostgreSQL's lesson), so every waiter and every later append fails.
 */
export class IntentLog {
  private fd: number | undefined;
  /** The log's path (dir and name), made once per log: the journal asks for it at every turn of a plan's rows. */
  private path: string | undefined;
  /** Lines written (a sequence number each), and the last one an fsync covered. */
  private written = 0;
  private durable = 0;
  /** The log's length as written, and as far as an fsync covered it: a failure cuts it back to the latter. */
  private bytes = 0;
  private durableBytes = 0;
  /** Entries written and not yet covered by an fsync, by sequence number; and the state the covered ones make. */
  private unconfirmed: { seq: number; entries: readonly LogEntry[] }[] = [];
  private readonly durableLive = new Map<string, Intent>();
  private readonly durableEnded = new Set<string>();
  /** A new log's directory entry is made durable with its first fsync. */
  private entered = false;
  private syncing = false;
  private failure: unknown;
  private waiters: Waiter[] = [];
  /** The last state of each key this log holds and has not ended: what readers of this process fold in, unread. */
  readonly live = new Map<string, Intent>();
  /** Every intent this log ended (endMark): ends the intent files and other copies of it too. */
  readonly ended = new Set<string>();
  /** Fsyncs of the log made so far (for tests and the benchmark's curiosity). */
  syncs = 0;

  constructor(
    readonly dir: string,
    private readonly sync: LogSync = diskSync,
  ) {}

  get file(): string | undefined {
    return this.path;
  }

  /** Writes the entries now; settles once an fsync covering them returned. */
  append(entries: readonly LogEntry[]): Promise<void> {
    let seq: number;
    try {
      seq = this.write(entries);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.kick();
    });
  }

  /** append() for a step inside synchronous code (just before a codes file's rename): its own fsync, which serves every line before it too. */
  appendSync(entries: readonly LogEntry[]): void {
    const seq = this.write(entries);
    const upToBytes = this.bytes;
    try {
      this.sync.datasyncSync(this.fd!);
      this.syncs++;
      if (!this.entered) this.sync.syncDirectorySync(this.dir);
      this.entered = true;
    } catch (error) {
      this.fail(error);
      throw error;
    }
    this.covered(seq, upToBytes);
  }

  /** Closes and forgets the log file (compacted and removed): the next append starts a new one. */
  reset(): void {
    this.close();
    this.path = undefined;
    this.entered = false;
    this.bytes = this.durableBytes = 0;
    this.unconfirmed = [];
    for (const state of [this.live, this.durableLive]) state.clear();
    for (const state of [this.ended, this.durableEnded]) state.clear();
  }

  /**
   * The command is over with intents still unended (an error, a timeout, an interruption): they become intent
   * files and the log goes, as the next lock holder would do once this process is gone. Under the journal's
   * lock, as every change of its files: a keyed begin reads the key's file, then the logs, and must not find
   * the intent in neither, midway (a second intent for the key). Not after a failure (the log is not
   * trusted) nor while an fsync runs, nor when the lock does not come soon: then the next lock holder does it.
   */
  async finish(): Promise<void> {
    if (this.file === undefined || this.failure !== undefined || !this.idle) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, FINISH_LOCK_WAIT_MS).unref()));
    const locked = withDirLock(
      this.dir,
      async () => {
        // Looked at again under the lock: a step may have run meanwhile.
        const file = this.file;
        if (file === undefined || this.failure !== undefined || !this.idle) return;
        // A step still running when its command ended (an interrupted plan's row) writes nothing into a log being removed.
        this.failure = Object.assign(new Error('the command ended'), { code: 'ECANCELED' });
        try {
          await compactLog(this.dir, { file, live: this.live, ended: this.ended });
        } finally {
          this.reset();
        }
      },
      FINISH_LOCK_WAIT_MS,
    );
    locked.catch(() => undefined); // given up on (late): its failure is the next run's to meet
    try {
      await Promise.race([locked, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether every line written is durable (nothing waits, nothing in flight). */
  get idle(): boolean {
    return this.durable === this.written && !this.syncing;
  }

  private write(entries: readonly LogEntry[]): number {
    if (this.failure !== undefined) throw this.failure;
    let text = '';
    if (this.path === undefined) {
      const name = `${process.pid}-${randomHex()}.log`;
      const path = join(this.dir, name);
      this.fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o600);
      this.path = path;
      this.bytes = this.durableBytes = 0;
      text = `${JSON.stringify({ log: 1, owner: currentOwner() })}\n`;
    } else if (this.fd === undefined) {
      // Reopened, never created again: a log that vanished under its live writer is an error, not a new log.
      this.fd = openSync(this.path, constants.O_WRONLY | constants.O_APPEND);
    }
    for (const entry of entries) text += `${entryText(entry)}\n`;
    try {
      // O_APPEND: each write lands at the end; a short write goes on where it stopped. The text is written as it is
      // (Node encodes it without a Buffer made here: 3,000 lines a 1,000-row plan), its bytes made only after a short write.
      const length = Buffer.byteLength(text, 'utf8');
      let done = writeSync(this.fd, text, null, 'utf8');
      this.bytes += done;
      if (done < length) {
        const bytes = Buffer.from(text, 'utf8');
        while (done < bytes.length) {
          const wrote = writeSync(this.fd, bytes, done, bytes.length - done);
          done += wrote;
          this.bytes += wrote;
        }
      }
    } catch (error) {
      this.fail(error);
      throw error;
    }
    apply(this.live, this.ended, entries);
    this.unconfirmed.push({ seq: this.written + 1, entries });
    return ++this.written;
  }

  /** Starts an fsync when lines wait for one and none runs; the one running may have begun before them. */
  private kick(): void {
    if (this.syncing || this.failure !== undefined || this.durable >= this.written) return;
    this.syncing = true;
    const upTo = this.written;
    const upToBytes = this.bytes;
    const fd = this.fd!;
    void (async () => {
      try {
        await this.sync.datasync(fd);
        this.syncs++;
        if (!this.entered) await this.sync.syncDirectory(this.dir);
        this.entered = true;
      } catch (error) {
        this.syncing = false;
        this.fail(error);
        return;
      }
      this.syncing = false;
      this.covered(upTo, upToBytes);
      this.kick();
    })();
  }

  private covered(seq: number, upToBytes: number): void {
    if (this.failure !== undefined) return; // an fsync that returned after another step failed: that failure stands
    if (seq > this.durable) this.durable = seq;
    if (upToBytes > this.durableBytes) this.durableBytes = upToBytes;
    let confirmed = 0;
    while (confirmed < this.unconfirmed.length && this.unconfirmed[confirmed]!.seq <= this.durable)
      apply(this.durableLive, this.durableEnded, this.unconfirmed[confirmed++]!.entries);
    if (confirmed > 0) this.unconfirmed = this.unconfirmed.slice(confirmed);
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.seq <= this.durable) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
    // Closed while every line is durable: a file open for writing keeps its disk from being remounted
    // read-only, and the next write opens it again (each fsync covers only lines written through an open fd).
    if (this.idle) this.close();
  }

  private close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Every line written through it is durable already.
    }
    this.fd = undefined;
  }

  /**
   * Every caller whose line no fsync confirmed is told of the failure and takes no step after it (a begin
   * sends nothing, a step is not taken, an end leaves its intent pending), so those lines are cut from the
   * log, which keeps only what was confirmed: left there, a new intent whose begin failed would become a
   * pending `prepared` order that the next run sends. Dropping them loses nothing: a state that may have
   * been acted on (`sending` before the request left) was confirmed before the step after it.
   */
  private fail(error: unknown): void {
    const first = this.failure === undefined;
    this.failure ??= error;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(this.failure);
    if (!first) return;
    this.unconfirmed = [];
    this.live.clear();
    this.ended.clear();
    for (const [key, intent] of this.durableLive) this.live.set(key, intent);
    for (const mark of this.durableEnded) this.ended.add(mark);
    if (this.fd === undefined || this.bytes === this.durableBytes) return;
    try {
      ftruncateSync(this.fd, this.durableBytes);
      this.bytes = this.durableBytes;
      this.sync.datasyncSync(this.fd);
    } catch {
      // The disk refuses even that: the lines stay, as before this cut; the error already reported stands.
    }
  }
}

/** The entries' changes made to a log's state: the last state of each key, and the intents ended. */
function apply(live: Map<string, Intent>, ended: Set<string>, entries: readonly LogEntry[]): void {
  for (const entry of entries) {
    if ('intent' in entry) live.set(entry.key, entry.intent);
    else {
      ended.add(endMark(entry.key, entry.ended));
      if (live.get(entry.key)?.createdAt === entry.ended) live.delete(entry.key);
    }
  }
}

function randomHex(): string {
  return Math.floor(Math.random() * 2 ** 48)
    .toString(16)
    .padStart(12, '0');
}

/** A log as read from disk: its writer, the last state of each key it holds, the intents it ended, lines it cannot read. */
export interface ReadLog {
  file: string;
  owner?: Owner | undefined;
  live: Map<string, Intent>;
  ended: Set<string>;
  bad: number[];
}

/** What a process has read of one log: how far (always just after a newline), the bytes before that point, and the state they make. */
interface ReadSoFar extends ReadPoint {
  lines: number;
  log: ReadLog;
}

/** The logs this process has read, by file: a log only grows, so each read takes only what was appended since (a plan's log holds all its rows until it ends). */
const readSoFar = new Map<string, ReadSoFar>();

/**
 * Reads one log, from where this process last stopped reading it. A last line without its newline is torn
 * (or still being written): its write never completed, so it was never made durable nor acted on, and the
 * state before it stands; it is read once its newline is there. A whole line that cannot be read is
 * reported (bad). A log shorter than what was read (cut back after a failed fsync), another file under its
 * name, or bytes that changed before the point reached: read again from the start.
 */
export function readLog(file: string): ReadLog {
  const fd = openSync(file, 'r');
  try {
    const { dev, ino, size } = fstatSync(fd);
    let read = readSoFar.get(file);
    if (read && !onlyGrew(fd, read, { dev, ino, size })) read = undefined;
    if (!read) {
      read = {
        dev,
        ino,
        offset: 0,
        tail: Buffer.alloc(0),
        lines: 0,
        log: { file, live: new Map(), ended: new Set(), bad: [] },
      };
      readSoFar.set(file, read);
    }
    if (size > read.offset) {
      const { bytes, end } = readOn(fd, read, size);
      if (end > 0) for (const line of bytes.toString('utf8', 0, end - 1).split('\n')) readLine(read, line);
    }
    return read.log;
  } catch (error) {
    readSoFar.delete(file);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** One line of a log, its change made to the state read so far. */
function readLine(read: ReadSoFar, line: string): void {
  const number = ++read.lines;
  const log = read.log;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    log.bad.push(number);
    return;
  }
  const v = value as Record<string, unknown>;
  if (number === 1 && typeof v.owner === 'object' && v.owner !== null && 'log' in v) {
    log.owner = v.owner as Owner;
    return;
  }
  if (typeof v.key !== 'string') return void log.bad.push(number);
  if (typeof v.ended === 'string') {
    log.ended.add(endMark(v.key, v.ended));
    if (log.live.get(v.key)?.createdAt === v.ended) log.live.delete(v.key);
    return;
  }
  const parsed = intentSchema.safeParse(v.intent);
  if (parsed.success && parsed.data.key === v.key) log.live.set(v.key, parsed.data);
  else log.bad.push(number);
}

/** The logs of a journal directory other than `own`, read; one removed meanwhile (compacted: its intents are files now) is named in `vanished`, one that cannot be read in `failed`. */
export interface OtherLogs {
  logs: ReadLog[];
  vanished: string[];
  failed: { file: string; error: NodeJS.ErrnoException }[];
}

/** The log names of each listing looked in: a listing kept for a tenure of the lock serves a plan's many looks (issue 33). */
const logNamesOf = new WeakMap<readonly string[], readonly string[]>();

function logNames(names: readonly string[]): readonly string[] {
  let logs = logNamesOf.get(names);
  if (logs === undefined) logNamesOf.set(names, (logs = names.filter(isLogName)));
  return logs;
}

export function otherLogs(dir: string, own: string | undefined, names?: readonly string[]): OtherLogs {
  const found: OtherLogs = { logs: [], vanished: [], failed: [] };
  const listed = new Set<string>();
  for (const name of names === undefined ? safeReaddir(dir).filter(isLogName) : logNames(names)) {
    const file = join(dir, name);
    listed.add(file);
    if (file === own) continue;
    try {
      found.logs.push(readLog(file));
    } catch (error) {
      // Only a log that is gone was compacted: one this process cannot read may hold the only copy of a charged order.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') found.vanished.push(name);
      else found.failed.push({ file, error: error as NodeJS.ErrnoException });
    }
  }
  // What was read of a log no longer listed is forgotten: a long-lived process (webhook listen) reads many in turn.
  if (readSoFar.size === 0) return found; // a plan's every turn, alone in its journal: nothing read to forget
  const home = dirname(join(dir, 'log'));
  for (const file of readSoFar.keys()) if (dirname(file) === home && !listed.has(file)) readSoFar.delete(file);
  return found;
}

/** Whether the process that wrote a log is gone: by its header's owner, or by the pid in its name when it has none. */
export function logIsDead(log: ReadLog): boolean {
  if (log.owner !== undefined) return !isAlive(log.owner);
  const pid = Number(LOG_NAME.exec(log.file.slice(log.file.lastIndexOf('/') + 1))?.[1]);
  return !Number.isFinite(pid) || (pid !== process.pid && !pidAlive(pid));
}

/** Where an intent's state was read: an intent file, another process's log, or this process's own. */
export type Source = 'file' | 'log' | 'own';

export interface Folded {
  intent: Intent;
  source: Source;
}

/**
 * The journal's state: the files, then the logs over them. An intent that any log ended is gone, wherever
 * another copy of it lies; of the rest, a log's state is newer than a file's (a file is only ever written
 * from a log, by compaction), this process's own the newest; two copies of one kind (two logs, or a file and
 * a copy of it made by hand) go by updatedAt, whichever is read first.
 */
export function foldIntents(files: readonly Intent[], logs: readonly ReadLog[], own: OwnState): Map<string, Folded> {
  return fold(files, logs, (log) => log.live.values(), own.live.values(), own);
}

/**
 * foldIntents(…).get(key), from that key's copies only: a log's state is keyed by its intents' keys (readLog
 * keeps only a line whose intent is its key's; this process writes them so). Folding every intent for each
 * key a plan's row looked up grew with the rows (a sixth of a 1,000-row plan's CPU at --concurrency 16, issue 23).
 */
export function foldIntent(
  key: string,
  files: readonly Intent[],
  logs: readonly ReadLog[],
  own: OwnState,
): Folded | undefined {
  const only = (intent: Intent | undefined): Intent[] => (intent ? [intent] : []);
  return fold(
    files.filter((intent) => intent.key === key),
    logs,
    (log) => only(log.live.get(key)),
    only(own.live.get(key)),
    own,
  ).get(key);
}

type OwnState = { live: ReadonlyMap<string, Intent>; ended: ReadonlySet<string> };

/** The fold's rule. Copies are offered kind by kind (files, logs, this process's own), so a later kind is over an earlier one. */
function fold(
  files: Iterable<Intent>,
  logs: readonly ReadLog[],
  liveOf: (log: ReadLog) => Iterable<Intent>,
  ownLive: Iterable<Intent>,
  own: OwnState,
): Map<string, Folded> {
  const result = new Map<string, Folded>();
  const ended = (mark: string): boolean => own.ended.has(mark) || logs.some((log) => log.ended.has(mark));
  const offer = (intent: Intent, source: Source): void => {
    if (ended(endMark(intent.key, intent.createdAt))) return;
    const held = result.get(intent.key);
    if (held?.source === source && held.intent.updatedAt > intent.updatedAt) return;
    result.set(intent.key, { intent, source });
  };
  for (const intent of files) offer(intent, 'file');
  for (const log of logs) for (const intent of liveOf(log)) offer(intent, 'log');
  for (const intent of ownLive) offer(intent, 'own');
  return result;
}

/**
 * Makes a log's state intent files and removes it, each step durable before the next, so that a crash at any
 * point leaves either the log (compacted again, to the same result) or its files: the live intents written as
 * intent files (atomic, fsynced), then the files of intents it ended (and older copies of its live ones)
 * removed, then the log itself. `endedElsewhere`: intents another log ended, never written back. A log with
 * lines it cannot read (`bad`) is renamed aside (SET_ASIDE) instead of removed: its readable intents are the
 * only copy of interrupted orders and must become files, but what the other lines held is not ours to drop.
 */
export async function compactLog(
  dir: string,
  log: { file: string; live: ReadonlyMap<string, Intent>; ended: ReadonlySet<string>; bad?: readonly number[] },
  endedElsewhere: ReadonlySet<string> = new Set(),
): Promise<void> {
  // Its intent files come and its log goes: a listing kept for the lock's later turns no longer holds.
  forgetListing(dir);
  const live = [...log.live.values()].filter((intent) => !endedElsewhere.has(endMark(intent.key, intent.createdAt)));
  for (const intent of live)
    await writeFileAtomic(intentFile(dir, intent.key), intentText(intent), 'journal file', { syncDir: false });
  if (live.length > 0) await syncDirectory(dir);
  let removed = false;
  if (log.ended.size > 0 || live.length > 0) {
    const liveOf = new Map(live.map((intent) => [intent.key, intent]));
    for (const name of safeReaddir(dir)) {
      if (!name.endsWith('.json')) continue;
      const file = join(dir, name);
      const intent = readIntentFile(file);
      if (!intent) continue;
      const ended = log.ended.has(endMark(intent.key, intent.createdAt));
      const superseded = liveOf.get(intent.key)?.createdAt === intent.createdAt && file !== intentFile(dir, intent.key);
      if (!ended && !superseded) continue;
      try {
        unlinkSync(file);
        removed = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
  if (removed) await syncDirectory(dir);
  try {
    if (log.bad !== undefined && log.bad.length > 0) renameSync(log.file, `${log.file}${SET_ASIDE}`);
    else unlinkSync(log.file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await syncDirectory(dir);
}

/** The intent in one file, or undefined when there is none or it is not a readable intent. */
export function readIntentFile(file: string): Intent | undefined {
  const text = readIfThere(file);
  if (text === undefined) return undefined;
  try {
    const parsed = intentSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The names of each journal directory as a turn of the lock listed them, kept for the turns after it while this
 * process keeps the lock (lock.ts lockTenure: the same tenure). Then only this process changes the names that
 * matter (intent files, other processes' logs), and only by a compaction (compactLog), which forgets the listing.
 * This process's own new log is not among them: it is read from memory, never from the listing. A plan at
 * --concurrency 16 listed the journal at every turn, two a row, for the logs of dead processes (issue 33: 2,000
 * listings for 1,000 rows); now once per tenure (a tenure ends after HAND_OFF_MS, or for another process).
 */
const listings = new Map<string, { tenure: object; names: string[] }>();

/** The directory's names as listed earlier in this tenure of its lock, if nothing has changed them since. */
export function keptListing(dir: string, tenure: object): string[] | undefined {
  const kept = listings.get(resolved(dir));
  return kept?.tenure === tenure ? kept.names : undefined;
}

export function keepListing(dir: string, tenure: object, names: string[]): void {
  listings.set(resolved(dir), { tenure, names });
}

/** The directory's names are changing: the next turn lists them again. */
export function forgetListing(dir: string): void {
  listings.delete(resolved(dir));
}

/** Absolute directories as resolve() writes them, each made once: a plan's rows ask for the journal's at every turn. */
const resolvedAbsolute = remembered(1_000, (dir: string) => resolve(dir));

/** resolve(dir): an absolute one remembered (a relative one depends on the working directory, and is resolved anew). */
function resolved(dir: string): string {
  return isAbsolute(dir) ? resolvedAbsolute(dir) : resolve(dir);
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** This process's log of each journal directory: one writer per directory, whatever number of Journal objects. */
const logs = new Map<string, IntentLog>();

export function logOf(dir: string): IntentLog {
  let log = logs.get(dir);
  if (!log) {
    const made = new IntentLog(dir);
    logs.set(dir, (log = made));
    onJournalExit(() => made.finish());
  }
  return log;
}
