// The local order record: every intent that ended (resolved, refused, abandoned, failed) leaves a record in
// `history/` beside the journal. Records are lines: history/<xx>.jsonl holds every record whose key's sha256
// begins with the two hex digits xx (256 files at most, never one per order: a file made per row was most of a
// 1,000-row plan's CPU, its inode allocation, issue 33). A record is appended as one JSON line and fdatasynced;
// the last line of a key in its scope is its record. Versions before kept one file per record
// (history/<40 hex>.json); they are still read, and pruned as they age. A record never holds an API key or a code.
import {
  closeSync,
  constants,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  futimesSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { makeDirs } from '../files/make-dirs.js';
import { realFile } from '../files/real-path.js';
import { fsyncDirectory, localError, syncDirectory, writeFileAtomicSync } from '../files/atomic.js';
import { redactKeys } from '../secrets.js';
import { INTENT_MAX_AGE_MS, keyHash, sha256, type Intent } from './intent.js';
import { remembered } from '../remembered.js';
import { readIfThere } from '../files/read-if-there.js';
import { bytesAt, eachLine, onlyGrew, readOn, type ReadPoint } from '../files/bytes-at.js';
import { byCodePoint } from '../compare.js';
import { moneyOf, type Money } from '../money.js';
import { pidAlive } from './owner.js';
import { orderOutcome } from '../api/outcome.js';
import { OUTCOMES, writtenAt } from './outcomes.js';
export { writtenAt };

export interface OrderRecord {
  key: string;
  /** The API key's id (keyIdOf: a short hash, never the key): with baseUrl and environment, the key's scope. Absent in older records. */
  keyId?: string;
  /** The reseller login learned for that key (Intent.resellerId), where known: another key of it is one wallet. */
  resellerId?: string;
  orderId?: string;
  productId: string;
  quantity: number;
  status?: string;
  /** What the order costs, as the API stated it (the intent's amount). Absent in older records, and where no amount was stated. */
  amount?: Money;
  environment: 'test' | 'live';
  profile: string;
  baseUrl: string;
  createdAt: string;
  updatedAt: string;
  endedAt?: string;
  outcome: 'delivered' | 'failed' | 'refused' | 'abandoned' | 'pending';
  out?: string;
  /**
   * When the codes were written to `out`, where that came after the order reached the user (a `codes get --out` of an
   * order delivered to stdout: Journal.noteFetched). Absent: at `endedAt`. A file written a minute after its delivery
   * was said to have changed since, and the warning of a second copy dated it at the delivery (a docs review).
   */
  outAt?: string;
  /**
   * The other files this machine wrote the same codes to since (`codes get --out` or `order watch --out` into another
   * file), oldest first, at most MAX_COPIES: a warning of a second copy named only `out` while six copies existed (a
   * person's day), and each one holds codes that may be spent once only.
   */
  copies?: string[];
  /**
   * When each copy was last written (by its path as in `copies`): a copy written over another order's file after that
   * order's delivery is the file's last writer (codesWrittenTo). Absent in older records, whose copies have no time.
   */
  copiedAt?: Record<string, string>;
  error?: { code: string; message: string };
  /**
   * The command that finished an interrupted order in its run's place (`codes get`, `order watch`): its outcome
   * reached the user there, so the same `order place` run again is a second order (order/place.ts asks first).
   */
  finishedBy?: string;
  /**
   * Abandoned after its request went out without an answer: the server may have placed (and charged) it. The same
   * order placed again within a day of its send reuses its key (order/place.ts), so that order reaches the user.
   * On a pending record (an interrupted intent, shown and never stored): its request went out, no answer yet.
   */
  sent?: true;
  /**
   * An abandoned `sent` record whose reuse a person declined (answered No at the question): the same order is not
   * asked about it again (recover.ts ofThisRequest). It stays `sent`: order show still names the way to it.
   */
  declined?: true;
  /** When its key was first sent, for a key sent again after an abandon (Intent.keySince). */
  keySince?: string;
  /** A plan's row: its plan's file name (absent in older records): another --batch of the same plan is no copy of it. */
  plan?: string;
  /**
   * A plan's row: its run's --batch, null for none (absent in older records): the way to send an abandoned row again
   * names it, since the plan run without it (or with another) orders the row anew (a review: charged twice).
   */
  batch?: string | null;
  /** A plan's row: its plan file's directory, its real path (Intent.planDir; absent in older records). */
  planDir?: string;
}

export { DEFAULT_HISTORY_DAYS } from '../config/fields.js';

/** Whose codes a file was written with (History.codesWrittenTo): its `out`, or one of its copies. */
export interface CodesWritten {
  record: OrderRecord;
  /** Written to since that delivery (more than a minute after it). */
  changed: boolean;
  /** One of the record's copies (OrderRecord.copies), not its `out`: no time of its own to name. */
  copy?: true;
}

/** The most other files a record names as holding its codes too (OrderRecord.copies): the newest are kept. */
export const MAX_COPIES = 20;

/**
 * Where an idempotency key names one order: the server, the environment and the API key (by its id). The
 * same key in another scope (a test run of a live plan, another reseller) is another order, and its record
 * never stands for this one's.
 */
export interface Scope {
  baseUrl: string;
  environment: 'test' | 'live';
  keyId: string;
  /** The reseller login learned for that key (OrderSpec.resellerId): no part of the scope, kept with what it makes. */
  resellerId?: string | undefined;
}

/** The scope of an intent, an order's spec or a record that has one. */
export function scopeOf(x: Scope): Scope {
  return { baseUrl: x.baseUrl, environment: x.environment, keyId: x.keyId };
}

/** Whether a record is of this scope; a record from before key ids were kept matches on server and environment, as then. */
export function inScope(r: OrderRecord, scope: Scope): boolean {
  return (
    r.baseUrl === scope.baseUrl &&
    r.environment === scope.environment &&
    (r.keyId === undefined || r.keyId === scope.keyId)
  );
}

/** What the record keeps of an intent (its key id, never its body or owner); the journal adds how it ended. */
export function recordOf(intent: Intent, outcome: OrderRecord['outcome']): OrderRecord {
  // An intent holds neither endedAt nor error; clean() keeps the record's fields and drops the rest.
  // Pending too (a view, never stored): `order show`/`watch` of an order interrupted while its request was out.
  const sent =
    (outcome === 'abandoned' || outcome === 'pending') && intent.phase === 'sending' && intent.orderId === undefined;
  return clean({ ...intent, outcome, out: intent.out?.path, ...(sent ? { sent: true } : {}) } as OrderRecord);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether a record is of an order abandoned after its request went out without an answer (OrderRecord.sent): its key
 * may hold a charged order, so it is sent again (or dated) as a key sent before, never as a new one.
 */
export function sentUnanswered(r: OrderRecord | undefined): r is OrderRecord {
  return r?.outcome === 'abandoned' && r.sent === true && r.orderId === undefined;
}

/** Whether a record ended (or, without an end, was last updated) within the 24 hours a server keeps a key. */
export function endedWithinDay(r: OrderRecord, now: number): boolean {
  return now - Date.parse(r.endedAt ?? r.updatedAt) <= INTENT_MAX_AGE_MS;
}

/** When the file at `path` was last written (ms), or undefined when there is none. */
/**
 * Whether the file a delivered record's codes went to is as that delivery left it: `changed` when written more than a
 * minute after (the record is written after the file's rename), `gone` when it is not there. A plan run again named
 * such a file as holding its row's codes after a live run had written its own codes there (review F3).
 */
export function codesFileNow(
  r: Pick<OrderRecord, 'out' | 'outAt' | 'endedAt' | 'updatedAt'>,
): 'same' | 'changed' | 'gone' {
  if (r.out === undefined || r.out === '-') return 'same';
  const modified = modifiedAt(resolve(r.out));
  if (modified === undefined) return 'gone';
  return modified > Date.parse(writtenAt(r)) + 60_000 ? 'changed' : 'same';
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}
/**
 * A record's outcome as `order list` shows it, given the last status the API gave its order. An order placed
 * without a codes file is `delivered` once its id reached the user; one the API reports failed afterwards (then
 * `codes get --wait`, `order watch` or `order show` read `failed`) reads `failed`: `order list --status delivered`
 * listed it, and at 80 columns, with STATUS left out, its row read "order placed". Only the view moves: the stored
 * outcome stays, since a plan's re-run reads `delivered` as "this row's order reached you, never order it again by
 * itself" and the codes-file check as "this file holds its codes" (a refunded order's codes file still holds them).
 */
export function outcomeOf(r: OrderRecord): OrderRecord['outcome'] {
  return r.outcome === 'delivered' &&
    r.out === undefined &&
    r.status !== undefined &&
    orderOutcome(r.status) === 'failed'
    ? 'failed'
    : r.outcome;
}

/** The record with a status read of its order now (order show, watch, codes get, order list --refresh, a plan's re-read). */
export function withStatus(r: OrderRecord, status: string, now: number): OrderRecord {
  return { ...r, status, updatedAt: new Date(now).toISOString() };
}

/** A plan row's later key (orders/plan.ts sentAgainKey) and, captured, its row key: the row key of its 24 digits (and line). */
const LATER_ROW_KEY = /^(plan-[0-9a-f]{24}(?:-r\d+)?)-g[1-9]\d*$/;

/** The row key of a plan row's later key, or the key itself: the key whose hash names the file its records go into. */
function rowKeyOf(key: string): string {
  return LATER_ROW_KEY.exec(key)?.[1] ?? key;
}

/** What a process has read of one line file: how far (just after a newline), the bytes before that point, the row keys named. */
interface NamedSoFar extends ReadPoint {
  size: number;
  mtimeMs: number;
  /** The row keys (rowKeyOf) of the records in the lines before `offset`. */
  rows: Set<string>;
  /** Those of the bytes after it: a last line without its newline. */
  torn: Set<string>;
}

/**
 * Adds to `rows` the row key of each line's record in `bytes` (from `from` to `to`), as recordsIn reads it
 * (recordOfLine: a line that is no record names none). A line as lineOf writes it, its key first and only once and without an escape, is
 * read without decoding or parsing it (90,000 records are 42 MB).
 */
function rowsNamed(bytes: Buffer, from: number, to: number, rows: Set<string>): Set<string> {
  eachLine(bytes, from, to, (start, end) => {
    const key =
      (end - start > KEY_FIRST.length ? plainKey(bytes, start, end) : undefined) ??
      recordOfLine(bytes.toString('utf8', start, end))?.key;
    if (key !== undefined) rows.add(rowKeyOf(key));
  });
  return rows;
}

/** The key of a line that begins `{"key":"`, names "key" nowhere else, and has no escape; else undefined. */
function plainKey(bytes: Buffer, start: number, end: number): string | undefined {
  if (bytes.compare(KEY_FIRST, 0, KEY_FIRST.length, start, start + KEY_FIRST.length) !== 0) return undefined;
  const close = bytes.indexOf(0x22, start + KEY_FIRST.length);
  if (close < 0 || close >= end) return undefined;
  // No escape anywhere in the line: a name spelled with one ("k\u0065y") is "key" too, and JSON.parse keeps the last.
  if (bytes.subarray(start, end).includes(0x5c)) return undefined;
  const again = bytes.indexOf(KEY_NAME, start + 2);
  if (again >= 0 && again < end) return undefined;
  return bytes.toString('utf8', start + KEY_FIRST.length, close);
}

const KEY_FIRST = Buffer.from('{"key":"');
const KEY_NAME = Buffer.from('"key"');

/** A file of records: the two hex digits that begin the sha256 of their keys. */
const LINES_FILE = /^[0-9a-f]{2}\.jsonl$/;
/** When records were last pruned, and for how many days: prune() reads every record, so at most once a day. */
const PRUNED_MARK = '.pruned';
/**
 * When `codes get`, `order watch` or `order resume` last finished an interrupted order in its run's place
 * (OrderRecord.finishedBy: `finished`), and when an order was last abandoned after its request went out
 * (OrderRecord.sent: `abandoned`): order place looks for such a record of its request only when the mark is younger
 * than a day. Reading every record for it took 0.5 to 1 s of each order place with 90,000 records (a nightly plan's
 * 90 days).
 */
const MARKS = { finished: '.finished', abandoned: '.abandoned-sent' } as const;
/**
 * The files single orders (never a plan's rows) delivered their codes to within the last day, newest last: a line
 * each, `{out, key, baseUrl, environment, keyId, at}`. Read by `order place` at a terminal when its --out is not there
 * (recover.ts deliveredToGone), so that the order of the file a person moved away is named without reading every
 * record (a 90,000-record history took 2 s to read). Written without an fsync: losing it loses a question, not an order.
 */
const DELIVERED_TO = '.delivered-to';
/** The most entries DELIVERED_TO keeps. */
const DELIVERED_TO_MAX = 50;

/** An entry of DELIVERED_TO: where a single order's codes went, and the key and scope of its record. */
interface DeliveredTo extends Scope {
  out: string;
  key: string;
  at: number;
}
/** O_NOFOLLOW where the system has it: a link planted at a record file's name is never written through. */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export class History {
  readonly dir: string;
  /** Whether this process made (or found) the directory: a plan of 1,000 rows asked for it 2,000 times. */
  private made = false;
  /** Whether the directory holds an older version's one-file records, looked at once: get() reads them only then. */
  private legacy: boolean | undefined;
  /** What this process has read of each line file: the row keys its lines name (mayName). */
  private readonly named = new Map<string, NamedSoFar>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * The newest order (another than `exceptKey`) whose codes were delivered to `path`: what writing over that file
   * would lose. The record is what this machine knows; the file may have been moved away since.
   */
  codesHolder(path: string, exceptKey?: string): OrderRecord | undefined {
    const holder = this.codesWrittenTo(path, exceptKey);
    return holder?.changed ? undefined : holder?.record;
  }

  /**
   * codesHolder, and a file written after that delivery ended too, said as `changed`: a reseller who marked codes
   * sold in the file, or a file replaced by hand. Not known to hold the order's codes now, but once it did: an
   * existing file refused as such read only "exists", and its hint "another --out file" was a second paid order
   * for a person re-running the night's command (a review). A minute of slack: the record is written after the
   * file's rename.
   */
  codesWrittenTo(path: string, exceptKey?: string): CodesWritten | undefined {
    const target = resolve(path);
    const modified = modifiedAt(target);
    if (modified === undefined) return undefined;
    const records = this.list().filter((r) => r.outcome === 'delivered' && r.key !== exceptKey);
    // The record that wrote the file last: an order delivered there, then another order's codes, then the first one's
    // written there again (codes get, as a hint said: OrderRecord.outAt) is the first one's (a review was told the
    // second's, and that --force would write over them). Newest first, so the later of two equal times is kept.
    let holder: OrderRecord | undefined;
    for (const r of records)
      if (r.out !== undefined && resolve(r.out) === target && (!holder || writtenAt(r) > writtenAt(holder))) holder = r;
    // A copy (codes get --out into a second file): refused as "exists" alone, whose hint "another --out file" read as
    // the way to codes already bought. A copy carries no time of its own; the record's last update comes after it.
    // A copy with its time (OrderRecord.copiedAt) written after that is the file's (a third review: `codes get A --out
    // b.csv --force` over B's file left it said to be B's). One without a time comes after an order delivered there:
    // its record is updated for other reasons too (a status read), so that time cannot stand for the copy's.
    let copied: { record: OrderRecord; at: string | undefined } | undefined;
    for (const r of records) {
      const copy = r.copies?.find((c) => resolve(c) === target);
      if (copy === undefined) continue;
      const at = r.copiedAt?.[copy];
      if (!copied || (at !== undefined && (copied.at === undefined || at > copied.at))) copied = { record: r, at };
    }
    if (holder && (copied?.at === undefined || copied.at <= writtenAt(holder)))
      return { record: holder, changed: modified > Date.parse(writtenAt(holder)) + 60_000 };
    if (!copied) return undefined;
    const since = copied.at ?? copied.record.updatedAt;
    return { record: copied.record, changed: modified > Date.parse(since) + 60_000, copy: true };
  }

  /**
   * The record of another order whose codes were written over `r`'s own file since (its `--force`, an `order watch
   * --out` into it), if any: looked up only when that file was written after `r`'s codes went there (the time is
   * recorded after the file is in place), since finding a file's last writer reads every record.
   */
  overwrittenBy(r: OrderRecord): OrderRecord | undefined {
    return r.out === undefined || r.out === '-' ? undefined : this.writtenOver(r.out, writtenAt(r), r.key);
  }

  /**
   * The record of another order than `key`'s whose codes went into `path` after `since` (when `key`'s codes were
   * written there; undefined for a copy of an older record, whose time was not kept): its out, or a copy. The file's
   * last writer is looked up only when the file was written after `since`, since that reads every record.
   */
  writtenOver(path: string, since: string | undefined, key: string): OrderRecord | undefined {
    const modified = modifiedAt(resolve(path));
    if (modified === undefined || (since !== undefined && modified <= Date.parse(since))) return undefined;
    const last = this.codesWrittenTo(path);
    return last !== undefined && last.record.key !== key ? last.record : undefined;
  }

  /** Every readable record, newest first (by the time it ended, else its last update). */
  list(): OrderRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    // One record per key in its scope: the last line of the line files, over an older version's file.
    const byIdentity = new Map<string, OrderRecord>();
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const record = readRecord(join(this.dir, name));
      if (record) byIdentity.set(identityOf(record), record);
    }
    for (const name of names)
      if (LINES_FILE.test(name))
        eachRecordIn(join(this.dir, name), (record) => byIdentity.set(identityOf(record), record));
    return [...byIdentity.values()].sort(newestFirst);
  }

  /**
   * The record of one key in one scope, if there is a readable one, in this order: the last line of it with this
   * scope's key id; an older version's file of the key in this scope; the last line of it without a key id (a
   * record from before key ids were kept, refreshed since); an older version's file named by the key alone, when
   * that record has no key id and is of this server and environment.
   */
  /**
   * The records of a key in every scope (one line file holds them all): a key given again at another spelling of
   * the server's address, or under a key since rotated, is the same key to the server (Journal.begin). The last
   * record of each scope only.
   */
  everyScope(key: string): OrderRecord[] {
    const text = this.readNaming(key);
    if (text === undefined || !text.includes(JSON.stringify(key))) return [];
    const last = new Map<string, OrderRecord>();
    for (const record of recordsIn(text))
      if (record.key === key) last.set(`${record.baseUrl}\n${record.environment}\n${record.keyId ?? ''}`, record);
    return [...last.values()];
  }

  get(key: string, scope: Scope): OrderRecord | undefined {
    const text = this.readNaming(key);
    // Only lines that name the key are parsed: a file holds about a 256th of the history.
    let scoped: OrderRecord | undefined;
    let unscoped: OrderRecord | undefined;
    if (text !== undefined && text.includes(JSON.stringify(key)))
      for (const record of recordsIn(text))
        if (record.key === key && inScope(record, scope)) {
          if (record.keyId === undefined) unscoped = record;
          else scoped = record;
        }
    if (scoped) return scoped;
    if (!this.hasLegacy()) return unscoped;
    const file = readRecord(this.legacyFileOf({ key, ...scope }));
    if (file?.key === key && inScope(file, scope)) return file;
    if (unscoped) return unscoped;
    const legacy = readRecord(this.legacyFileOf({ key }));
    return legacy?.key === key && legacy.keyId === undefined && inScope(legacy, scope) ? legacy : undefined;
  }

  /**
   * Writes (or replaces) the record of one key in its scope: its line, appended and fdatasynced, synchronously and
   * without the journal's lock: for a History of its own (the tests'). The commands write through the journal
   * (recordDelivery, end, recordStatuses), under its lock.
   */
  record(r: OrderRecord): void {
    this.inDir(() => appendLines(this.linesOf(r.key), lineOf(r)));
  }

  /**
   * record() for many at once, without blocking: every line written, then one fdatasync per file they went into,
   * all at once, and one of the directory if a file was new. Durable when it settles.
   */
  async recordAll(records: readonly OrderRecord[]): Promise<void> {
    if (records.length === 0) return;
    const byFile = new Map<string, string>();
    for (const r of records) {
      const file = this.linesOf(r.key);
      byFile.set(file, (byFile.get(file) ?? '') + lineOf(r));
    }
    await this.inDir(async () => {
      const settled = await Promise.allSettled([...byFile].map(([file, text]) => appendLinesAsync(file, text)));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      if (settled.some((s) => s.status === 'fulfilled' && s.value)) await syncDirectory(this.dir);
      this.noteDeliveredTo(records);
    });
  }

  /** Adds the single orders of `records` delivered to a file to DELIVERED_TO, dropping entries older than a day. */
  private noteDeliveredTo(records: readonly OrderRecord[], now: number = Date.now()): void {
    const known = this.deliveredToEntries(now);
    // A delivery of the day, not yet noted at that file: a record written again (a status refreshed, an order of days
    // ago) neither comes back nor moves ahead of a later order's delivery to the same file.
    const fresh = records.filter(
      (r) =>
        r.outcome === 'delivered' &&
        r.out !== undefined &&
        r.out !== '-' &&
        !r.key.startsWith('plan-') &&
        endedWithinDay(r, now) &&
        !known.some((e) => e.key === r.key && e.out === realFile(r.out!)),
    );
    if (fresh.length === 0) return;
    const entries = [
      ...known.filter((e) => !fresh.some((r) => r.key === e.key)),
      ...fresh.map((r): DeliveredTo => ({
        ...scopeOf({ ...r, keyId: r.keyId ?? '' }),
        out: realFile(r.out!),
        key: r.key,
        at: now,
      })),
    ].slice(-DELIVERED_TO_MAX);
    writeMark(join(this.dir, DELIVERED_TO), entries.map((e) => `${JSON.stringify(e)}\n`).join(''), now);
  }

  /** DELIVERED_TO's entries of the last day, oldest first; a line that does not read is skipped. */
  private deliveredToEntries(now: number): DeliveredTo[] {
    const text = readIfThere(join(this.dir, DELIVERED_TO));
    if (text === undefined) return [];
    const entries: DeliveredTo[] = [];
    for (const line of text.split('\n')) {
      try {
        const e = JSON.parse(line) as DeliveredTo;
        if (typeof e.out === 'string' && typeof e.key === 'string' && now - e.at <= INTENT_MAX_AGE_MS) entries.push(e);
      } catch {
        // A line cut by a crash: that entry only.
      }
    }
    return entries;
  }

  /**
   * The record of the single order whose codes were last delivered to `path` within the last day (DELIVERED_TO), as
   * it is now: one small file and one line file read, never the whole history.
   */
  lastDeliveredTo(path: string, now: number = Date.now()): OrderRecord | undefined {
    const target = realFile(path);
    const entry = this.deliveredToEntries(now).findLast((e) => e.out === target);
    return entry === undefined ? undefined : this.get(entry.key, entry);
  }

  /** Runs a write in the directory, made on the first write of the process, and again if it has gone since. */
  private inDir<T>(write: () => T, retried?: boolean): T;
  private inDir<T>(write: () => Promise<T>, retried?: boolean): Promise<T>;
  private inDir<T>(write: () => T | Promise<T>, retried = false): T | Promise<T> {
    const again = (error: unknown): T | Promise<T> => {
      // The writes wrap the errno in a LocalError (its cause).
      const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code ?? (error as NodeJS.ErrnoException).code;
      // Once: a directory made again that the write still does not find (history/ a link to nowhere) was made and
      // written again forever, at full CPU and deaf to SIGTERM, after the order was charged (a review, stop 78).
      if (code !== 'ENOENT' || !this.made || retried) throw error;
      this.made = false;
      return this.inDir(write, true);
    };
    if (!this.made) {
      try {
        makeDirs(this.dir, 0o700);
      } catch (error) {
        // In words, as any write of it fails: a raw EEXIST (history/ a link to a path not there) ended `order resume
        // --all` as "an unexpected internal error … this is a bug" (a fourth review, stop 78).
        throw localError(error, this.dir, 'order history directory', 'journal_unwritable');
      }
      this.made = true;
    }
    try {
      const written = write();
      return written instanceof Promise ? written.catch(again) : written;
    } catch (error) {
      return again(error);
    }
  }

  /**
   * Drops records that ended more than `days` days ago: of `profile` only, when it is named (its history-days is
   * its own; a profile kept 1 day pruned every other profile's records, and their plans were ordered again: a
   * review). It reads every record, so it runs at most once a day for the same `days` and profile (history/.pruned
   * says when, and for which). Under the journal's lock (journal.ts end), as every record is written (journal.ts
   * recordDelivery, end, recordStatuses): a line file is rewritten whole, and a line appended meanwhile by another
   * process would be lost (pruneLines: what it does when the lock was taken over).
   */
  prune(days: number, now: number = Date.now(), profile?: string): void {
    const mark = join(this.dir, PRUNED_MARK);
    const last = modifiedAt(mark);
    const said = profile === undefined ? `${days}\n` : `${days} ${JSON.stringify(profile)}\n`;
    if (last !== undefined && now - last >= 0 && now - last < DAY_MS && readIfThere(mark) === said) return;
    const limit = now - days * DAY_MS;
    const old = (record: OrderRecord | undefined): boolean =>
      record !== undefined &&
      Date.parse(timeOf(record)) < limit &&
      (profile === undefined || record.profile === profile);
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = join(this.dir, name);
      try {
        if (name.endsWith('.json')) {
          if (old(parseRecord(JSON.parse(readFileSync(file, 'utf8'))))) unlinkSync(file);
        } else if (LINES_FILE.test(name)) {
          pruneLines(file, old);
        } else if (leftBehind(name)) {
          unlinkSync(file);
        }
      } catch {
        // Unreadable or removed by another process meanwhile: left alone.
      }
    }
    writeMark(mark, said, now);
  }

  /**
   * Says that a record the same `order place` must look at was written now: an interrupted order finished in its
   * run's place (`finished`), or one abandoned after its request went out (`abandoned`). Its mark file's time lets
   * every other `order place` skip reading the records (one stat).
   */
  mark(what: keyof typeof MARKS, now: number = Date.now()): void {
    this.inDir(() => writeMark(join(this.dir, MARKS[what]), '', now));
  }

  /** Whether such a record was written within the last day (its mark): one stat. */
  markedWithinDay(what: keyof typeof MARKS, now: number = Date.now()): boolean {
    const at = modifiedAt(join(this.dir, MARKS[what]));
    return at !== undefined && now - at <= INTENT_MAX_AGE_MS;
  }

  /**
   * The line file of a key: the first two hex digits of its sha256 (every scope of a key in one file). A plan row's
   * later keys (`-g2`…: orders/plan.ts sentAgainKey) go into their row key's file, so that one read finds them all
   * (generations).
   */
  // Remembered: a plan's row asks for its key's file three times or more (issue 33).
  private readonly linesOf = remembered(100_000, (key: string) =>
    join(this.dir, `${keyHash(rowKeyOf(key)).slice(0, 2)}.jsonl`),
  );

  /**
   * The text of the line file that holds `key`'s records, when a line of it names the key's row (the key, or a later
   * key of its row): else undefined, as for a file not there. A plan's row looks up its key three times or more, and
   * the key is new; a file holds a 256th of the history, so with 90 days of nightly 1,000-row plans (90,000 records,
   * 42 MB) each lookup read 165 KB to find nothing: 500 MB a plan, half of its CPU (BENCHMARKS.md, thirty-sixth
   * round). Now the file is read whole only when a line names the row.
   */
  private readNaming(key: string): string | undefined {
    const file = this.linesOf(key);
    return this.mayName(file, rowKeyOf(key)) ? readIfThere(file) : undefined;
  }

  /**
   * Whether a line of the file may name the row key: false only when none does. The row keys its lines name are
   * kept, and the file is read on from where this process stopped, as the journal's logs are (log.ts readLog): a
   * record is only ever appended, and prune puts a new file in its place; the file's identity, size and time are
   * looked at every time (opened, as a read is, so that a disk shared by machines shows another's appends), and
   * another file at its name, a file shorter than what was read, one written since at the same length, or one whose
   * 4 KB before that point changed are read again whole. A last line without its newline (being written, or cut short
   * where its record is whole) counts until the next look. Not seen (giftcodes never writes so; a helper's probes,
   * test/unit/history-reads-probes.test.ts): a file rewritten in place by another tool at its length within one
   * tick of the disk's clock, or before those 4 KB and then appended to. Anything it cannot read, it leaves to the
   * read (true).
   */
  private mayName(file: string, row: string): boolean {
    if (!existsSync(file)) {
      this.named.delete(file);
      return false;
    }
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      this.named.delete(file);
      return true;
    }
    try {
      const { dev, ino, size, mtimeMs } = fstatSync(fd);
      let read = this.named.get(file);
      if (read && read.dev === dev && read.ino === ino && read.size === size && read.mtimeMs === mtimeMs)
        return read.rows.has(row) || read.torn.has(row);
      // Written since at the same length: rewritten in place (an append always grows the file).
      if (read && ((size === read.size && mtimeMs !== read.mtimeMs) || !onlyGrew(fd, read, { dev, ino, size })))
        read = undefined;
      read ??= { dev, ino, size: 0, mtimeMs: 0, offset: 0, tail: Buffer.alloc(0), rows: new Set(), torn: new Set() };
      const { bytes, end } = readOn(fd, read, size);
      rowsNamed(bytes, 0, end, read.rows);
      read.torn = rowsNamed(bytes, end, bytes.length, new Set());
      read.size = size;
      read.mtimeMs = mtimeMs;
      this.named.set(file, read);
      return read.rows.has(row) || read.torn.has(row);
    } catch {
      this.named.delete(file);
      return true;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The records in this scope of a plan row's key and of its later keys (`<key>-g2`, `-g3`…), by key, from the one
   * file that holds them all (linesOf): the last record of each, as get() gives it.
   */
  generations(key: string, scope: Scope): Map<string, OrderRecord> {
    const found = new Map<string, OrderRecord>();
    const text = this.readNaming(key);
    if (text === undefined || !text.includes(JSON.stringify(key).slice(0, -1))) return found;
    for (const record of recordsIn(text)) {
      if (record.key !== key && !(record.key.startsWith(`${key}-g`) && LATER_ROW_KEY.test(record.key))) continue;
      if (!inScope(record, scope)) continue;
      // A record of the scope's key id wins over one without (an older version's), as in get().
      const kept = found.get(record.key);
      if (kept === undefined || record.keyId !== undefined || kept.keyId === undefined) found.set(record.key, record);
    }
    return found;
  }

  private hasLegacy(): boolean {
    if (this.legacy === undefined) {
      try {
        this.legacy = readdirSync(this.dir).some((name) => name.endsWith('.json'));
      } catch {
        // No directory yet: none of an older version's files, and only this version's made from now on.
        this.legacy = false;
      }
    }
    return this.legacy;
  }

  /**
   * An older version's file of a record: keys are the user's to choose, hashed into safe file names; with the
   * scope, or by the key alone for a record without a key id.
   */
  private legacyFileOf(r: Pick<OrderRecord, 'key' | 'keyId' | 'baseUrl' | 'environment'> | { key: string }): string {
    const scoped =
      'keyId' in r && r.keyId !== undefined ? JSON.stringify([r.key, r.baseUrl, r.environment, r.keyId]) : r.key;
    return join(this.dir, `${sha256(scoped).slice(0, 40)}.json`);
  }
}

/**
 * A temporary file of a record's rewrite (prune's, files/atomic.ts: `.<name>.<pid>-<random>.tmp`) whose process is
 * gone: killed before its rename, never to be read. A live process's is its own, whatever it holds.
 */
function leftBehind(name: string): boolean {
  const pid = Number(/^\..+\.(\d+)-[0-9a-f]+\.tmp$/.exec(name)?.[1]);
  return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
}

/** Which record a record replaces: the same key in the same scope (a record without a key id is its own scope). */
function identityOf(r: OrderRecord): string {
  return JSON.stringify([r.key, r.baseUrl, r.environment, r.keyId ?? null]);
}

/** The records of a line file's text, in the order written; a line that is not one (cut short by a crash) is skipped. */
function recordsIn(text: string | undefined): OrderRecord[] {
  const records: OrderRecord[] = [];
  if (text === undefined) return records;
  for (const line of text.split('\n')) {
    const record = line === '' ? undefined : recordOfLine(line);
    if (record) records.push(record);
  }
  return records;
}

/** The record a line holds, or undefined for a line that is none (cut short by a crash: the record is a convenience, the server holds the truth). */
function recordOfLine(line: string): OrderRecord | undefined {
  try {
    return parseRecord(JSON.parse(line));
  } catch {
    return undefined;
  }
}

/**
 * Each record of a line file, as recordsIn reads its text (a line that is not one is skipped; nothing of a file
 * that cannot be read), read into one buffer kept for every file and decoded a line at a time: the text of a
 * file as one string, 165 KB with 90,000 records, was a large object for V8 at every file, and reading them was
 * most of `order list`'s time there (BENCHMARKS.md, thirty-sixth round). UTF-8 never has a newline byte inside a
 * character, so each line decodes as it did within the whole text.
 */
function eachRecordIn(file: string, each: (record: OrderRecord) => void): void {
  let bytes: Buffer;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const { size } = fstatSync(fd);
    if (size > recordBytes.length) recordBytes = Buffer.allocUnsafe(size + (size >> 2));
    bytes = bytesAt(fd, 0, size, recordBytes);
  } catch {
    return;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  eachLine(bytes, 0, bytes.length, (start, end) => {
    const record = recordOfLine(bytes.toString('utf8', start, end));
    if (record) each(record);
  });
}

/** The buffer eachRecordIn reads line files into, grown to the largest. */
let recordBytes = Buffer.alloc(0);

/**
 * A line file opened to append (made 0600 when it is not there, never through a link), and its length now.
 * `fresh`: empty, so perhaps new: its directory's fsync is due. Opened for each record and closed after it: a
 * descriptor kept open for writing would keep an administrator from remounting the disk read-only, and must be
 * checked, every time, to still be the file at its name (prune renames another over it).
 */
function openLines(file: string): { fd: number; size: number; fresh: boolean } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NOFOLLOW, 0o600);
  } catch (error) {
    throw localError(error, file);
  }
  try {
    const size = fstatSync(fd).size;
    return { fd, size, fresh: size === 0 };
  } catch (error) {
    closeSync(fd);
    throw localError(error, file);
  }
}

/**
 * Appends whole lines at `size`, the file's length a moment ago. A file whose last line a crash (or a full disk)
 * cut short gets a newline first, so the new line is never glued to it. O_APPEND: each write lands at the end,
 * whatever another process appends.
 */
function writeLines(fd: number, size: number, text: string): void {
  const last = Buffer.alloc(1);
  const cut = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
  const bytes = Buffer.from(cut ? `\n${text}` : text, 'utf8');
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Appends and fdatasyncs, synchronously; a file that may be new has its directory fsynced too. */
function appendLines(file: string, text: string): void {
  const { fd, size, fresh } = openLines(file);
  try {
    writeLines(fd, size, text);
    fdatasyncSync(fd);
  } catch (error) {
    throw localError(error, file);
  } finally {
    closeSync(fd);
  }
  if (fresh) fsyncDirectory(dirname(file));
}

/** appendLines without blocking, for one file of a batch: whether it may be new (the batch fsyncs the directory once). */
async function appendLinesAsync(file: string, text: string): Promise<boolean> {
  const { fd, size, fresh } = openLines(file);
  try {
    writeLines(fd, size, text);
    await new Promise<void>((done, fail) => fdatasync(fd, (error) => (error ? fail(error) : done())));
  } catch (error) {
    throw localError(error, file);
  } finally {
    closeSync(fd);
  }
  return fresh;
}

/**
 * Rewrites a line file without the records `old` names (ended before the limit), when it has any (atomically: a temporary
 * file, fsynced, renamed). A line that is no record is kept unless it is not JSON at all (cut short by a crash).
 * Under the journal's lock, which another machine's process takes over from a turn older than 5 s (lock.ts): a
 * file that grew while it was read is left for the next prune, and lines that reach the file replaced after all
 * (a writer that opened it a moment before) are carried over into the new one.
 */
/**
 * A mark file's text, dated `now` through its descriptor, never through a link planted at its name (as the line
 * files: O_NOFOLLOW); a mark that cannot be written is written again next time.
 */
function writeMark(mark: string, text: string, now: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(mark, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW, 0o600);
    writeSync(fd, text);
    futimesSync(fd, now / 1000, now / 1000);
  } catch {
    // Written again next time.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function pruneLines(file: string, old: (record: OrderRecord | undefined) => boolean): void {
  const fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  try {
    const read = readFileSync(fd);
    const kept: string[] = [];
    let dropped = false;
    for (const line of read.toString('utf8').split('\n')) {
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        dropped = true;
        continue;
      }
      if (old(parseRecord(value))) dropped = true;
      else kept.push(line);
    }
    if (!dropped || fstatSync(fd).size !== read.length) return;
    if (kept.length === 0) unlinkSync(file);
    else writeFileAtomicSync(file, `${kept.join('\n')}\n`);
    const late = readFileSync(fd);
    // Made again if every old line went: its directory entry made durable, as any new line file's (appendLines).
    if (late.length > 0) appendLines(file, late.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

function readRecord(file: string): OrderRecord | undefined {
  const text = readIfThere(file);
  if (text === undefined) return undefined;
  try {
    return parseRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/**
 * A record as stored: the order's identifiers exactly as given and answered (never rewritten: `order list`
 * and a re-run compare them); only the server's free text, its status and error, may echo a key, and is
 * masked (issue 15).
 */
function lineOf(r: OrderRecord): string {
  const kept = clean(r);
  const masked: OrderRecord = {
    ...kept,
    ...(kept.status !== undefined ? { status: redactKeys(kept.status) } : {}),
    ...(kept.error !== undefined
      ? { error: { code: redactKeys(kept.error.code), message: redactKeys(kept.error.message) } }
      : {}),
  };
  return `${JSON.stringify(masked)}\n`;
}

function timeOf(r: OrderRecord): string {
  return r.endedAt ?? r.updatedAt;
}

/**
 * Newest first: by when the order was created (the time `order list` shows in CREATED and `--since` filters on, and
 * the order shell completion offers ids in), then by key, for a stable order of equal times. Not by when it ended: a
 * slow order finished later would be listed above the ones placed after it, and `--limit 1` would not be the last.
 */
export function newestFirst(a: OrderRecord, b: OrderRecord): number {
  return byCodePoint(b.createdAt, a.createdAt) || byCodePoint(b.key, a.key);
}

/** Only the fields of OrderRecord are written: nothing else an intent carries (its body, its owner) leaks in. */
function clean(r: OrderRecord): OrderRecord {
  const amount = moneyOf(r.amount);
  return {
    key: r.key,
    ...(r.keyId !== undefined ? { keyId: r.keyId } : {}),
    ...(typeof r.resellerId === 'string' ? { resellerId: r.resellerId } : {}),
    ...(r.orderId !== undefined ? { orderId: r.orderId } : {}),
    productId: r.productId,
    quantity: r.quantity,
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(amount ? { amount } : {}),
    environment: r.environment,
    profile: r.profile,
    baseUrl: r.baseUrl,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    ...(r.endedAt !== undefined ? { endedAt: r.endedAt } : {}),
    outcome: r.outcome,
    ...(r.out !== undefined ? { out: r.out } : {}),
    ...(typeof r.outAt === 'string' && r.out !== undefined ? { outAt: r.outAt } : {}),
    ...(Array.isArray(r.copies) && r.copies.every((c) => typeof c === 'string') && r.copies.length > 0
      ? { copies: r.copies.slice(-MAX_COPIES) }
      : {}),
    ...copiedAtOf(r),
    ...(r.error !== undefined ? { error: { code: r.error.code, message: r.error.message } } : {}),
    ...(typeof r.finishedBy === 'string' ? { finishedBy: r.finishedBy } : {}),
    ...(r.sent === true ? { sent: true } : {}),
    ...(r.declined === true ? { declined: true } : {}),
    ...(typeof r.keySince === 'string' ? { keySince: r.keySince } : {}),
    ...(typeof r.plan === 'string' ? { plan: r.plan } : {}),
    ...(typeof r.batch === 'string' || r.batch === null ? { batch: r.batch } : {}),
    ...(typeof r.planDir === 'string' ? { planDir: r.planDir } : {}),
  };
}

function parseRecord(value: unknown): OrderRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  const str = (x: unknown): x is string => typeof x === 'string';
  if (!str(v.key) || !str(v.productId) || typeof v.quantity !== 'number' || !str(v.profile) || !str(v.baseUrl))
    return undefined;
  if (!str(v.createdAt) || !str(v.updatedAt) || (v.environment !== 'test' && v.environment !== 'live'))
    return undefined;
  if (!str(v.outcome) || !(OUTCOMES as readonly string[]).includes(v.outcome)) return undefined;
  if (v.keyId !== undefined && !str(v.keyId)) return undefined;
  return clean(v as unknown as OrderRecord);
}

/** The record lives beside the journal (`<config dir>/journal`): `<config dir>/history`. */
export function historyDir(configDir: string): string {
  return join(configDir, 'history');
}

/** A record's copiedAt, kept for the copies it still names (the newest MAX_COPIES), each a string; else nothing. */
function copiedAtOf(r: OrderRecord): { copiedAt?: Record<string, string> } {
  const times = r.copiedAt;
  if (typeof times !== 'object' || times === null || !Array.isArray(r.copies)) return {};
  const kept = Object.fromEntries(
    r.copies
      .slice(-MAX_COPIES)
      .flatMap((c) => (typeof c === 'string' && typeof times[c] === 'string' ? [[c, times[c]] as const] : [])),
  );
  return Object.keys(kept).length > 0 ? { copiedAt: kept } : {};
}
