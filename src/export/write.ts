// Writes an order's codes to a file or stdout, page by page: memory stays flat in the number of codes.
// A file appears whole or not at all: a 0600 temporary file beside the target, fsynced, then renamed
// (or hard-linked, which refuses to replace a file that appeared meanwhile), then the directory fsynced.
// A symbolic link at the target is refused, never written through nor replaced (out-target.ts says which
// targets may be written; out-lock.ts keeps one writer per target); a failure of the disk is a LocalError
// (exit 8) and leaves an existing target untouched.
import { lstatSync } from 'node:fs';
import { link, lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { ApiError, CliError, InterruptedError, OrderFailedError, UsageError, isCliError } from '../errors.js';
import { fsyncDirectory, localError } from '../files/atomic.js';
import { removeStaleFor, removeStaleTemps, tempPath, tempPrefix } from '../files/codes-temps.js';
import { stdoutFailed, type Io } from '../output/io.js';
import { startProgress, type Progress } from '../output/progress.js';
import { encryptingSink, SpoolCipher, type EncryptingSink } from './age.js';
import { grouped } from '../output/words.js';
import { writeAll, writeAllSync } from './csv.js';
import {
  FORMAT_TABLE,
  formatFor,
  toStdoutRefused,
  escapedWarning,
  numericWarning,
  strippedWarning,
  type ExportFormat,
  type WarnedIn,
  type NumericAt,
  type FormatWriter,
  type TextSink,
} from './format.js';
import { lockOutTarget, type OutLock } from './out-lock.js';
import { checkOutTarget, kindOf, symlinkRefused } from './out-target.js';
import { prefetched } from './prefetch.js';
import { PageScanner } from './scan.js';
import { CodeTally } from './tally.js';
import { LIST_KEYS } from '../api/pagination.js';

export { formatFor, type ExportFormat } from './format.js';
export { lockOutTarget, outLockPath, type OutLock } from './out-lock.js';

export interface ExportOptions {
  api: ApiClient;
  orderId: string;
  /** A path, or '-' for stdout (data only, no atomicity). */
  out: string;
  format?: ExportFormat;
  force: boolean;
  csvRaw: boolean;
  io: Io;
  signal: AbortSignal;
  /** How many codes the order is for (its quantity): fewer or more read is exit 5 and no file. */
  expected?: number | undefined;
  /** Called after each page with the number of codes written so far (a spinner). */
  onProgress?: (count: number) => void;
  /** Called with the complete, fsynced temporary file and its count just before it becomes the target (the journal records it). */
  beforeCommit?: (temp: string, count: number) => void;
  /** The target's lock, when the caller holds it across more than the export (taken and released here otherwise). */
  lock?: OutLock;
  /**
   * Whether a dead run's temporary file is recorded in the journal as a finished codes file: such a file is
   * left for that order's next run, which tells from it that the rename never happened (codes-file.ts).
   */
  recordedTemp?: (temp: string) => boolean;
  /**
   * age recipients (`age1...`): the file, or stdout, is an age-encrypted file of the format, and no plaintext is
   * ever on disk, spool included (age.ts). Empty or absent: plaintext as before.
   */
  encryptTo?: readonly string[] | undefined;
}

export interface ExportResult {
  /** The absolute path written, or '-'. */
  path: string;
  count: number;
  format: ExportFormat;
  /** '-' only: the reader of stdout went away before every code was written (`| head`): not a delivery. */
  readerGone?: boolean | undefined;
  /** CSV: the values written with a leading `'` (FormatWriter.escaped). */
  escaped?: number | undefined;
  /** XLSX: the values written without characters a workbook cannot hold (FormatWriter.stripped). */
  stripped?: number | undefined;
  /** CSV: the values a spreadsheet would change as numbers (FormatWriter.numeric). */
  numeric?: number | undefined;
  /** CSV: where the first of them is (FormatWriter.numericAt). */
  numericAt?: NumericAt | undefined;
}

export async function exportCodes(o: ExportOptions): Promise<ExportResult> {
  const progress = codesProgress(o);
  let result: ExportResult;
  try {
    result = await exportCodesOnce(
      progress ? { ...o, onProgress: (count) => (progress.update(count), o.onProgress?.(count)) } : o,
    );
  } finally {
    progress?.stop();
  }
  // Said once the codes are where they were going (a file committed), naming the order; while a run gathers them
  // (a plan: gatherExportWarnings), counted instead, to be said once for all its files.
  const warned: ExportWarnings = {
    escaped: result.readerGone ? 0 : (result.escaped ?? 0),
    stripped: result.stripped ?? 0,
    numeric: result.readerGone ? 0 : (result.numeric ?? 0),
  };
  const gathered = gathering.get(o.io);
  if (gathered) gathered.add(result.path, o.orderId, warned);
  else sayWarnings(o.io, warned, { orderId: o.orderId }, result.numericAt);
  return result;
}

/** How many values of an export a spreadsheet shows other than the API sent them, by why (ExportResult). */
interface ExportWarnings {
  escaped: number;
  stripped: number;
  numeric: number;
}

function sayWarnings(io: Io, w: ExportWarnings, where: WarnedIn, numericAt?: NumericAt): void {
  if (w.escaped) io.warn(escapedWarning(w.escaped, where));
  if (w.stripped) io.warn(strippedWarning(w.stripped, where));
  if (w.numeric) io.warn(numericWarning(w.numeric, where, numericAt));
}

/** The runs gathering their exports' warnings (gatherExportWarnings), by their Io. */
const gathering = new WeakMap<Io, { add(path: string, orderId: string, w: ExportWarnings): void }>();

/**
 * From now until end(), the exports that warn through `io` (escaped formulas, stripped characters, digits a
 * spreadsheet changes) count their values here instead, and end() says each warning once for all of them, with
 * totals: `10 values in 6 files would change in a spreadsheet …`, or as one export says it when only one needed
 * it. A plan's rows each said theirs: a 12-row plan printed six copies of a 4-line warning. end() says nothing
 * twice, and with nothing to say, nothing.
 */
export function gatherExportWarnings(io: Io): { end(): void } {
  const totals: ExportWarnings = { escaped: 0, stripped: 0, numeric: 0 };
  const files = { escaped: new Set<string>(), stripped: new Set<string>(), numeric: new Set<string>() };
  const orders = new Set<string>();
  const handle = {
    add(path: string, orderId: string, w: ExportWarnings): void {
      for (const kind of ['escaped', 'stripped', 'numeric'] as const) {
        if (w[kind] === 0) continue;
        totals[kind] += w[kind];
        files[kind].add(path);
        orders.add(orderId);
      }
    },
  };
  gathering.set(io, handle);
  return {
    end(): void {
      if (gathering.get(io) !== handle) return;
      gathering.delete(io);
      // One order's (one file's) warnings read as that export would say them, naming the order.
      const [only] = orders;
      for (const kind of ['escaped', 'stripped', 'numeric'] as const) {
        const where: WarnedIn =
          orders.size === 1 && only !== undefined ? { orderId: only } : { files: files[kind].size };
        sayWarnings(io, { escaped: 0, stripped: 0, numeric: 0, [kind]: totals[kind] }, where);
      }
    },
  };
}

/** Codes written of the order's quantity, on stderr; not while the codes themselves go to a terminal. */
function codesProgress(o: ExportOptions): Progress | undefined {
  if (o.out === '-' && o.io.stdoutIsTTY) return undefined;
  return startProgress(o.io, {
    label: `writing the codes of ${o.orderId}`,
    short: 'writing codes',
    unit: 'codes',
    total: o.expected,
    waiting: 'waiting for the API',
  });
}

async function exportCodesOnce(o: ExportOptions): Promise<ExportResult> {
  const format = formatFor(o.out, o.format);
  if (o.out === '-') {
    const refused = toStdoutRefused(format);
    if (refused) throw refused;
    const { count, gone, escaped, numeric, numericAt } = await exportToStdout(o, format);
    return { path: '-', count, format, escaped, numeric, numericAt, ...(gone ? { readerGone: true } : {}) };
  }
  const target = resolve(o.out);
  const ownLock = o.lock ? undefined : lockOutTarget(target);
  try {
    checkOutTarget(target, o.force, { lockHeldHere: true });
    return await exportToFile(o, format, target);
  } finally {
    ownLock?.release();
  }
}

async function exportToFile(o: ExportOptions, format: ExportFormat, target: string): Promise<ExportResult> {
  removeStaleFor(target, o.recordedTemp);
  const temp = tempPath(dirname(target), tempPrefix(target));
  let handle: FileHandle | undefined;
  let writer: FormatWriter | undefined;
  let age: EncryptingSink | undefined;
  let committed = false;
  try {
    // Read and write: the CSV writer may read back rows it wrote (TextSink.rewind).
    handle = await open(temp, 'wx+', 0o600).catch((error: unknown) => {
      throw fileError(error, target);
    });
    const file = handle;
    let position = 0;
    const flusher = new Flusher(file, (error) => fileError(error, target));
    const sink: TextSink = {
      write: async (chunk) => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        // On this thread: a page's ~112 KB go to the page cache in one call, where FileHandle.write sent each to
        // libuv's pool and back (two thread hand-offs a page; BENCHMARKS.md). The background flushes stay there.
        writeAllSync(file.fd, bytes, position, (error) => fileError(error, target));
        position += bytes.length;
        flusher.wrote(bytes.length);
      },
      rewind: {
        read: async (buffer, at, length) => {
          const { bytesRead } = await file.read(buffer, 0, length, at).catch((error: unknown) => {
            throw fileError(error, target);
          });
          return bytesRead;
        },
        truncate: async () => {
          await flusher.settled();
          await file.truncate(0).catch((error: unknown) => {
            throw fileError(error, target);
          });
          position = 0;
        },
      },
    };
    // Encrypted: the writer's bytes go through age on their way to the file, which it cannot read back (no rewind).
    age = o.encryptTo?.length ? await encryptingSink({ write: sink.write }, o.encryptTo) : undefined;
    writer = await writerFor(format, age ? age.sink : sink, o, tempPath(dirname(target), tempPrefix(target)), {
      ...(age ? { spoolCipher: new SpoolCipher() } : {}),
    });
    const count = await pump(o, writer, undefined, new PageScanner([...LIST_KEYS, 'codes']));
    await age?.close();
    await flusher.settled();
    await file.sync();
    await file.close();
    handle = undefined;
    o.beforeCommit?.(temp, count);
    await commit(temp, target, o.force);
    committed = true;
    fsyncDirectory(dirname(target));
    return {
      path: target,
      count,
      format,
      escaped: writer.escaped,
      stripped: writer.stripped,
      numeric: writer.numeric,
      numericAt: writer.numericAt,
    };
  } finally {
    if (!committed) age?.abort(new Error('the export stopped'));
    await writer?.dispose();
    await handle?.close().catch(() => undefined);
    if (!committed) await unlink(temp).catch(() => undefined);
  }
}

/** Bytes written between two background flushes of a codes file. */
const FLUSH_EVERY = 8 * 1024 * 1024;

/**
 * Starts the disk writing a large codes file while it is still being fetched: after every FLUSH_EVERY
 * bytes, an fdatasync in the background (one at a time), so the fsync before the rename finds little
 * left to write. Without it, 112 MB of CSV (1,000,000 codes) waited 0.2–0.8 s for that last fsync.
 * A background flush's failure is kept and thrown by settled(): Linux reports a write-back error to
 * one fsync of the file only, so the final fsync could otherwise succeed over lost data.
 */
export class Flusher {
  private pending = 0;
  private running: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly file: FileHandle,
    private readonly failed: (error: unknown) => Error,
  ) {}

  wrote(bytes: number): void {
    this.pending += bytes;
    if (this.pending < FLUSH_EVERY || this.running || this.failure !== undefined) return;
    this.pending = 0;
    this.running = this.file
      .datasync()
      .catch((error: unknown) => {
        this.failure = error;
      })
      .finally(() => (this.running = undefined));
  }

  /** The background flush, if one is running, has ended; its failure, if any, is thrown. */
  async settled(): Promise<void> {
    await this.running;
    if (this.failure !== undefined) throw this.failed(this.failure);
  }
}

/** The format's writer (format.ts's table: a new format is one entry there), over this sink. */
async function writerFor(
  format: ExportFormat,
  sink: TextSink,
  o: ExportOptions,
  spoolPath: string,
  extras: { transform?: (text: string) => string; spoolCipher?: SpoolCipher } = {},
): Promise<FormatWriter> {
  const make = await FORMAT_TABLE[format].writer();
  return make(sink, { orderId: o.orderId, csvRaw: o.csvRaw, spoolPath, ...extras });
}

/**
 * A long export's garbage is short-lived, and most of it is outside V8's heap: the 64 KiB buffer of each
 * socket read, freed only when a scavenge finds it dead. V8 grows its young generation as a run goes on and
 * so collects less and less often, and those buffers pile up between collections: peak RSS grew by 14 MiB
 * from 100,000 to 1,000,000 codes. Kept at its size, the young generation is not let grow further, and the
 * peak stays flat (BENCHMARKS.md, issue 16).
 *
 * By the first page start-up has grown it to 4 MiB a half all the same (8 MiB resident, mostly garbage), and
 * only a collection that reduces memory gives it back: one is asked for here, once (V8's `gc()` of last resort,
 * from a context of its own, with --expose-gc on for that moment only; two full collections of a ~9 MB heap),
 * and the young generation is then 1 MiB a half for the rest of the run. It is collected when a fifth full rather
 * than V8's 80 %, so that the socket buffers (159 KB a page) wait a fifth as long in malloc's heap. The
 * 1,000,000-code export's peak RSS: 88.7 → 85.7 MiB with the trigger alone, → 80.3 MiB with the smaller young
 * generation too (BENCHMARKS.md, issue 33). The ~270 collections that makes cost CPU when each wakes V8's worker
 * threads (a parallel scavenge, a background sweep of dead buffers): on the main thread alone they do not. Set
 * once a page has arrived (the first, or the second where the quantity is not known: LARGE_EXPORT_CODES): undici
 * is compiled by then, and V8's flags are part of what its code cache is checked against; these flags are read by
 * V8 when it uses them. An export too small to need it does without it.
 *
 * Node 24 and 26 do the same here: after that collection the young generation is 1 MiB a half on them too
 * (v8.getHeapSpaceStatistics at the peak), V8 13's higher ceiling for it (32 MiB, not 8) never reached with the
 * growth factor at 1. What put their peak 10-20 MiB above Node 22's was llhttp compiled a second time by V8's
 * optimising tier on a worker thread, which --liftoff-only alone no longer prevents there (src/api/transport.ts).
 * The 1,000,000-code export's peak RSS, `BENCH_ONLY=export BENCH_ROUNDS=3 node scripts/bench.mjs --node <line>`:
 * Node 24 96.6 → 88.0 MiB, Node 26 90.7 → 88.6 MiB, Node 22 78.9 MiB as before; 100,000 codes on Node 24 90.0 → 73.6 MiB.
 * What is left above Node 22's is V8's own: Maglev, a compiler Node 22's V8 does not use here, compiling on the
 * worker threads (--no-maglev set here: −4.5 MiB on Node 24, −3.8 on 26, but +0.18 s of CPU on 26, so not set),
 * more of the node binary touched, and a 1 MiB deadlock-detection graph of V8 13's mutexes.
 */
async function keepYoungGenerationSmall(): Promise<void> {
  const [{ setFlagsFromString }, { runInNewContext }, { writeCompileCacheNow }] = await Promise.all([
    import('node:v8'),
    import('node:vm'),
    import('../cache-dir.js'),
  ]);
  // The compile cache of what the export loaded, as start.ts does for the start chunk: ~0.7 MiB of the
  // 1,000,000-code export's peak RSS.
  writeCompileCacheNow();
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString(`--minor-gc-task-trigger=${MINOR_GC_TRIGGER_PERCENT}`);
  // A young generation this small and this dead is collected faster by the main thread alone than by waking the
  // workers for it, and its dead buffers freed there and then rather than by a task posted to another thread.
  setFlagsFromString('--no-parallel-scavenge');
  setFlagsFromString('--no-concurrent-array-buffer-sweeping');
  setFlagsFromString('--expose-gc');
  // That collection also drops the bytecode of every function not running (V8 compiles one again if it is called):
  // start.ts has the start chunk compiled whole for the compile cache, commander's and the help's among it, which an
  // export never calls again (~0.8 MiB of the 1,000,000-code export's peak RSS; BENCHMARKS.md, issue 33).
  setFlagsFromString('--stress-flush-code');
  try {
    const gc = runInNewContext('gc') as (options: object) => void;
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    // A Node whose V8 exposes no gc() this way: the export goes on, without this saving of memory.
  } finally {
    setFlagsFromString('--no-stress-flush-code');
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * An export of at least this many codes is large: its young generation is kept small from its first page. One of
 * fewer (its quantity known: recorded here, or the order's own as the API gives it, src/commands/codes/get.ts) never
 * is; one whose quantity the API does not state is from its second page, so that one page never is. A
 * one-page export: 133 → 96 ms of CPU, its peak RSS 65.6 → 67.0 MiB; 9,000 codes: 194 → 161 ms, 67.9 → 74.3 MiB
 * (BENCHMARKS.md, issue 33). Below 100,000 codes, the smaller of the two sizes the bench's flat-memory figure reads.
 */
export const LARGE_EXPORT_CODES = 10_000;

/** How full (percent) the young generation gets before V8 collects it during an export (V8's default: 80). */
export const MINOR_GC_TRIGGER_PERCENT = 20;

/**
 * Every page, in order, into the writer; an interruption stops between pages. With a scanner, pages it
 * can read are written straight from their bytes (scan.ts), the others through JSON.parse as before.
 */
async function pump(
  o: ExportOptions,
  writer: FormatWriter,
  written?: (count: number) => void,
  scanner?: PageScanner,
): Promise<number> {
  let count = 0;
  const tally = new CodeTally(o.orderId, o.expected);
  const pages = scanner
    ? o.api.rawCodePages(o.orderId, o.expected, {
        read: (bytes) => scanner.scan(bytes),
        buffer: (size) => scanner.buffer(size),
        release: (bytes) => scanner.release(bytes),
      })
    : o.api.codePages(o.orderId, o.expected);
  // Kept small only in an export that is large (keepYoungGenerationSmall): the collection that shrinks the young
  // generation costs a small export ~35 ms of CPU, a quarter of a one-page export's, for nothing it keeps.
  let keepSmall = o.expected === undefined || o.expected >= LARGE_EXPORT_CODES;
  try {
    for await (const page of prefetched(pages)) {
      if (o.signal.aborted) throw interrupted(o.signal);
      if (keepSmall && (count > 0 || o.expected !== undefined)) {
        keepSmall = false;
        await keepYoungGenerationSmall();
      }
      tally.page(page);
      if (Array.isArray(page)) {
        await writer.page(page);
        count += page.length;
      } else {
        await writer.raw(page);
        scanner?.releasePage(page);
        count += page.count;
      }
      written?.(count);
      o.onProgress?.(count);
    }
    if (o.signal.aborted) throw interrupted(o.signal);
    await writer.finish();
  } catch (error) {
    if (o.signal.aborted) throw interrupted(o.signal);
    throw failedOrderOf(error, o.orderId);
  }
  return count;
}

/**
 * The codes of a failed order will never come: that is the order's outcome (exit 6), not a refusal (the API's
 * `order_failed`). Any other error as it is. `codes get --query` gathers the codes without an export, and read it
 * as a refusal (exit 4, the order's record not marked failed: a review).
 */
export function failedOrderOf(error: unknown, orderId: string): unknown {
  if (!(error instanceof ApiError && error.code === 'order_failed')) return error;
  return new OrderFailedError(`order ${orderId} failed; it has no codes`, {
    code: 'order_failed',
    status: error.status,
    hint: `see it with: giftcodes order show ${orderId}`,
  });
}

/** The reader of stdout went away (`| head`): stop fetching; the caller says so (readerGoneError). */
class ReaderGone extends Error {}

/** Codes whose reader went away before they all arrived are not delivered: exit 8 and one line, as any stdout that failed. */
export function readerGoneError(orderId: string): CliError {
  return stdoutFailed(
    Object.assign(new Error('the reader closed the pipe'), { code: 'EPIPE' }),
    `the codes of order ${orderId}`,
  );
}

async function exportToStdout(
  o: ExportOptions,
  format: ExportFormat,
): Promise<{
  count: number;
  gone: boolean;
  escaped?: number | undefined;
  numeric?: number | undefined;
  numericAt?: NumericAt | undefined;
}> {
  const stdout = o.io.stdout;
  let failure: Error | undefined;
  const onError = (error: Error): void => {
    failure = error;
  };
  stdout.on('error', onError);
  // Any other failure (a full disk, a closed descriptor) is a local resource failing: exit 8, not a bug.
  const gone = (error: Error): Error =>
    (error as NodeJS.ErrnoException).code === 'EPIPE' ? new ReaderGone() : stdoutFailed(error, 'the codes');
  const sink: TextSink = {
    // Resolves when stdout has written the chunk (TextSink: the caller may then reuse its buffer); one
    // chunk in flight at a time is also the backpressure.
    write: (chunk) =>
      new Promise<void>((resolvePromise, reject) => {
        if (failure) return reject(gone(failure));
        // The progress line of this export ends before its first byte: a pipe may take the data to its terminal.
        o.io.beforeData();
        stdout.write(chunk, (error) => (error ? reject(gone(error)) : resolvePromise()));
      }),
  };
  // The data goes through the same last net as every other stdout line: no key is ever printed whole.
  const prefix = `giftcodes-spool-`;
  removeStaleTemps(tmpdir(), prefix);
  // Encrypted: stdout gets the age file; the CSV spool in the temporary directory is ciphertext too. The age header is
  // held until the first codes are written: a request that failed (a 404, the server gone) left 184 bytes of a
  // header on stdout, an encrypted file of nothing that age -d calls cut short, where plaintext left none (a review).
  const held: Buffer[] = [];
  let opened = false;
  const open = async (): Promise<void> => {
    opened = true;
    for (const chunk of held.splice(0)) await sink.write(chunk);
  };
  const gated: TextSink = {
    write: (chunk) => (opened ? sink.write(chunk) : (held.push(Buffer.from(chunk)), Promise.resolve())),
  };
  const age = o.encryptTo?.length ? await encryptingSink(gated, o.encryptTo) : undefined;
  const plaintext: TextSink | undefined = age && {
    write: async (chunk) => {
      if (!opened) await open();
      return age.sink.write(chunk);
    },
  };
  const writer = await writerFor(format, plaintext ?? sink, o, tempPath(tmpdir(), prefix), {
    transform: (text) => o.io.redact(text),
    ...(age ? { spoolCipher: new SpoolCipher() } : {}),
  });
  let written = 0;
  let closed = false;
  try {
    const count = await pump(o, writer, (count) => (written = count));
    if (age && !opened) await open();
    await age?.close();
    closed = true;
    return { count, gone: false, escaped: writer.escaped, numeric: writer.numeric, numericAt: writer.numericAt };
  } catch (error) {
    if (error instanceof ReaderGone) return { count: written, gone: true };
    // What went out before the interruption is on stdout (a file it was redirected to keeps it): said as such.
    if (isCliError(error) && error.code === 'interrupted' && o.signal.aborted)
      throw interrupted(
        o.signal,
        written === 0
          ? `standard output got none of the ${o.expected === undefined ? '' : `${grouped(o.expected)} `}codes`
          : `standard output holds part of the codes at most (${grouped(written)} of ${o.expected === undefined ? 'them' : grouped(o.expected)} were read): it is no complete export`,
      );
    throw error;
  } finally {
    if (!closed) age?.abort(new Error('the export stopped'));
    await writer.dispose();
    stdout.off('error', onError);
  }
}

/** `ending`: what the interruption left (a file export leaves none; stdout has what was written). */
function interrupted(signal: AbortSignal, ending = 'no file was written'): CliError {
  const reason: unknown = signal.reason;
  const message = reason instanceof Error ? reason.message : 'interrupted';
  return new InterruptedError(`${message} before the export finished; ${ending}`, {
    code: 'interrupted',
    hint: 'the order and its codes stay on the server: run the same command again',
  });
}

/**
 * Bytes from `fill` into `target` as a codes file is written (0600 temporary file beside it, fsynced, then
 * linked or renamed into place; refused if it exists, unless `force`): `codes decrypt --out` writes this way.
 */
export async function writeFileAtomically(
  target: string,
  force: boolean,
  fill: (sink: TextSink) => Promise<void>,
): Promise<string> {
  const path = resolve(target);
  const lock = lockOutTarget(path);
  try {
    checkOutTarget(path, force, { lockHeldHere: true });
    removeStaleTemps(dirname(path), tempPrefix(path));
    const temp = tempPath(dirname(path), tempPrefix(path));
    let handle: FileHandle | undefined;
    let committed = false;
    try {
      handle = await open(temp, 'wx', 0o600).catch((error: unknown) => {
        throw fileError(error, path);
      });
      const file = handle;
      let position = 0;
      await fill({
        write: async (chunk) => {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
          await writeAll(file, bytes, position).catch((error: unknown) => {
            throw fileError(error, path);
          });
          position += bytes.length;
        },
      });
      await file.sync().catch((error: unknown) => {
        throw fileError(error, path);
      });
      await file.close();
      handle = undefined;
      await commit(temp, path, force);
      committed = true;
      fsyncDirectory(dirname(path));
      return path;
    } finally {
      await handle?.close().catch(() => undefined);
      if (!committed) await unlink(temp).catch(() => undefined);
    }
  } finally {
    lock.release();
  }
}

/** The atomic step. Without --force, link() refuses a target that appeared since the check; rename() would replace it. */
async function commit(temp: string, target: string, force: boolean): Promise<void> {
  if (force) {
    // A link planted since the pre-flight is refused; one planted after this check is replaced by the rename, never written through.
    const stat = await lstat(target).catch(() => undefined);
    if (stat?.isSymbolicLink()) throw symlinkRefused(target, target, force);
    if (stat && !stat.isFile())
      throw new UsageError(`${target} is not a regular file (${kindOf(stat)}); it was left untouched`, {
        code: 'out_not_a_file',
        hint: 'give the path of a file',
      });
    await rename(temp, target).catch((error: unknown) => {
      throw fileError(error, target);
    });
    return;
  }
  try {
    await link(temp, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw appeared(target);
    // Filesystems without hard links: check, then rename (a narrow window instead of none).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EMLINK')
      throw fileError(error, target);
    try {
      lstatSync(target);
      throw appeared(target);
    } catch (statError) {
      if (isCliError(statError)) throw statError;
    }
    await rename(temp, target).catch((renameError: unknown) => {
      throw fileError(renameError, target);
    });
    return;
  }
  await unlink(temp).catch(() => undefined);
}

function appeared(target: string): UsageError {
  return new UsageError(`${target} appeared while the codes were being fetched; it was left untouched`, {
    code: 'out_exists',
    hint: 'pass --force to overwrite it, or choose another --out file',
  });
}

function fileError(error: unknown, target: string): CliError {
  if (isCliError(error)) return error;
  // A full disk or a read-only directory is a local resource failing (exit 8), not a bug (exit 1).
  return localError(error, target, 'codes file', 'write_failed');
}
