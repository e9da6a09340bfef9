// Writes an order's codes to a file or stdout, page by page: memory stays flat in the number of codes.
// A file appears whole or not at all: a 0600 temporary file beside the target, fsynced, then renamed
// (or hard-linked, which refuses to replace a file that appeared meanwhile), then the directory fsynced.
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readdirSync, statSync, unlinkSync } from 'node:fs';
import { link, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { ApiError, CliError, ExitCode, InterruptedError, OrderFailedError, UsageError, isCliError } from '../errors.js';
import { fsyncDirectory } from '../files/atomic.js';
import { pidAlive } from '../journal/owner.js';
import type { Io } from '../output/io.js';
import { CsvWriter, writeAll } from './csv.js';
import { formatFor, type ExportFormat, type FormatWriter, type TextSink } from './format.js';
import { JsonArrayWriter } from './json.js';
import { JsonLinesWriter } from './jsonl.js';

export { formatFor, type ExportFormat } from './format.js';

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
  /** Called with the complete, fsynced temporary file just before it becomes the target (the journal records it). */
  beforeCommit?: (temp: string) => void;
}

export interface ExportResult {
  /** The absolute path written, or '-'. */
  path: string;
  count: number;
  format: ExportFormat;
}

export async function exportCodes(o: ExportOptions): Promise<ExportResult> {
  const format = formatFor(o.out, o.format);
  if (o.out === '-') {
    const count = await exportToStdout(o, format);
    return { path: '-', count, format };
  }
  const target = resolve(o.out);
  checkOutTarget(target, o.force);
  removeStaleTemps(dirname(target), tempPrefix(target));
  const temp = tempPath(dirname(target), tempPrefix(target));
  let handle: FileHandle | undefined;
  let writer: FormatWriter | undefined;
  let committed = false;
  try {
    handle = await open(temp, 'wx', 0o600).catch((error: unknown) => {
      throw fileError(error, target);
    });
    const file = handle;
    let position = 0;
    const sink: TextSink = {
      write: async (chunk) => {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        await writeAll(file, bytes, position).catch((error: unknown) => {
          throw fileError(error, target);
        });
        position += bytes.length;
      },
    };
    writer = writerFor(format, sink, o, tempPath(dirname(target), tempPrefix(target)));
    const count = await pump(o, writer);
    await file.sync();
    await file.close();
    handle = undefined;
    o.beforeCommit?.(temp);
    await commit(temp, target, o.force);
    committed = true;
    fsyncDirectory(dirname(target));
    return { path: target, count, format };
  } finally {
    await writer?.dispose();
    await handle?.close().catch(() => undefined);
    if (!committed) await unlink(temp).catch(() => undefined);
  }
}

/**
 * Refuses an --out target before anything is fetched or placed: an existing file without --force,
 * a directory, or a directory that is missing or not writable. '-' (stdout) always passes.
 */
export function checkOutTarget(out: string, force: boolean): void {
  if (out === '-') return;
  const target = resolve(out);
  let stat: ReturnType<typeof statSync> | undefined;
  try {
    stat = statSync(target);
  } catch {
    stat = undefined;
  }
  if (stat?.isDirectory()) throw new UsageError(`${out} is a directory`, { code: 'out_is_directory', hint: 'give a file name, e.g. --out codes.csv' });
  if (stat && !force) throw new UsageError(`${out} exists; pass --force to overwrite it`, { code: 'out_exists', hint: 'pass --force, or choose another --out file' });
  const dir = dirname(target);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UsageError(missing ? `the directory ${dir} does not exist` : `cannot write to the directory ${dir}`, {
      code: 'out_not_writable',
      hint: missing ? 'create it first, or choose another --out path' : 'choose a directory you can write to',
    });
  }
}

function writerFor(format: ExportFormat, sink: TextSink, o: ExportOptions, spoolPath: string, transform?: (text: string) => string): FormatWriter {
  switch (format) {
    case 'csv':
      return new CsvWriter(sink, { orderId: o.orderId, raw: o.csvRaw, spoolPath, ...(transform ? { transform } : {}) });
    case 'jsonl':
      return new JsonLinesWriter(sink, transform);
    case 'json':
      return new JsonArrayWriter(sink, transform);
  }
}

/** Every page, in order, into the writer; an interruption stops between pages. */
async function pump(o: ExportOptions, writer: FormatWriter, written?: (count: number) => void): Promise<number> {
  let count = 0;
  try {
    for await (const page of o.api.codePages(o.orderId, o.expected)) {
      if (o.signal.aborted) throw interrupted(o.signal);
      await writer.page(page);
      count += page.length;
      written?.(count);
      o.onProgress?.(count);
    }
    if (o.signal.aborted) throw interrupted(o.signal);
    await writer.finish();
  } catch (error) {
    if (o.signal.aborted) throw interrupted(o.signal);
    // The codes of a failed order will never come: that is the order's outcome (exit 6), not a refusal.
    if (error instanceof ApiError && error.code === 'order_failed') {
      throw new OrderFailedError(`order ${o.orderId} failed; it has no codes`, { code: 'order_failed', status: error.status, hint: `see it with: giftcodes order show ${o.orderId}` });
    }
    throw error;
  }
  return count;
}

/** The reader of stdout went away (`| head`): stop fetching quietly, as cat or jq would. */
class ReaderGone extends Error {}

async function exportToStdout(o: ExportOptions, format: ExportFormat): Promise<number> {
  const stdout = o.io.stdout;
  let failure: Error | undefined;
  const onError = (error: Error): void => {
    failure = error;
  };
  stdout.on('error', onError);
  const gone = (error: Error): Error => ((error as NodeJS.ErrnoException).code === 'EPIPE' ? new ReaderGone() : error);
  const sink: TextSink = {
    // Resolves when stdout has written the chunk (TextSink: the caller may then reuse its buffer); one
    // chunk in flight at a time is also the backpressure.
    write: (chunk) =>
      new Promise<void>((resolvePromise, reject) => {
        if (failure) return reject(gone(failure));
        stdout.write(chunk, (error) => (error ? reject(gone(error)) : resolvePromise()));
      }),
  };
  // The data goes through the same last net as every other stdout line: no key is ever printed whole.
  const prefix = `giftcodes-spool-`;
  removeStaleTemps(tmpdir(), prefix);
  const writer = writerFor(format, sink, o, tempPath(tmpdir(), prefix), (text) => o.io.redact(text));
  let written = 0;
  try {
    return await pump(o, writer, (count) => (written = count));
  } catch (error) {
    if (error instanceof ReaderGone) return written;
    throw error;
  } finally {
    await writer.dispose();
    stdout.off('error', onError);
  }
}

function interrupted(signal: AbortSignal): CliError {
  const reason: unknown = signal.reason;
  const message = reason instanceof Error ? reason.message : 'interrupted';
  return new InterruptedError(`${message} before the export finished; no file was written`, {
    code: 'interrupted',
    hint: 'the order and its codes stay on the server: run the same command again',
  });
}

/** The atomic step. Without --force, link() refuses a target that appeared since the check; rename() would replace it. */
async function commit(temp: string, target: string, force: boolean): Promise<void> {
  if (force) {
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
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EMLINK') throw fileError(error, target);
    try {
      statSync(target);
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
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const reason = code === 'ENOSPC' ? 'no space left on the device' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EDQUOT' ? 'disk quota exceeded' : (error as Error).message;
  // A full disk or a read-only directory is the --out target's problem, not a bug (exit 1 means a bug).
  return new CliError(ExitCode.usage, `cannot write ${target}: ${reason}`, { code: 'write_failed', hint: 'nothing was written at that path; free space or fix permissions, then run again' });
}

/** `.codes.csv.giftcodes-`: temporary files of a target share this prefix, then `<pid>-<random>.tmp`. */
function tempPrefix(target: string): string {
  return `.${basename(target)}.giftcodes-`;
}

function tempPath(dir: string, prefix: string): string {
  return join(dir, `${prefix}${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Temporary files left by a process that died (SIGKILL, power loss); a live process's are its own. */
export function removeStaleTemps(dir: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || pidAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // Another run removed it first, or it is not ours to remove.
    }
  }
}

