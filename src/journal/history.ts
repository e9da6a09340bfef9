// The local order record: every intent that ended (resolved, refused, abandoned, failed) leaves one small
// file in `history/` beside the journal. One file per record, written atomically: overlapping processes
// never lose each other's records. A record never holds an API key or a code.
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeFileAtomic, writeFileAtomicSync } from '../files/atomic.js';
import { redactKeys } from '../secrets.js';
import { sha256, type Intent } from './intent.js';
import { readIfThere } from '../files/read-if-there.js';
import { byCodePoint } from '../compare.js';
import { moneyOf, type Money } from '../money.js';

export interface OrderRecord {
  key: string;
  /** The API key's id (keyIdOf: a short hash, never the key): with baseUrl and environment, the key's scope. Absent in older records. */
  keyId?: string;
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
  error?: { code: string; message: string };
}

export const DEFAULT_HISTORY_DAYS = 90;

/**
 * Where an idempotency key names one order: the server, the environment and the API key (by its id). The
 * same key in another scope (a test run of a live plan, another reseller) is another order, and its record
 * never stands for this one's.
 */
export interface Scope {
  baseUrl: string;
  environment: 'test' | 'live';
  keyId: string;
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
  return clean({ ...intent, outcome, out: intent.out?.path } as OrderRecord);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** When the file at `path` was last written (ms), or undefined when there is none. */
function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}
/** Every outcome a record can have, in the order `order list --status` names them. */
export const OUTCOMES: readonly OrderRecord['outcome'][] = ['delivered', 'failed', 'refused', 'abandoned', 'pending'];
/**
 * The word `order list`'s OUTCOME column shows for a pending order ("unfinished: resume it"), taken by --status as
 * the outcome it stands for: a person filters by what the table says.
 */
export const STATUS_WORDS: Readonly<Record<string, OrderRecord['outcome']>> = {
  unfinished: 'pending',
  'not placed': 'refused',
};
/** What `order list --status` completes: every outcome, then the one-word words for them (a shell splits the others). */
export const STATUS_FILTERS: readonly string[] = [
  ...OUTCOMES,
  ...Object.keys(STATUS_WORDS).filter((word) => !word.includes(' ')),
];

export class History {
  readonly dir: string;
  /** Whether this process made (or found) the directory: a plan of 1,000 rows asked for it 2,000 times. */
  private made = false;

  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * The newest order (another than `exceptKey`) whose codes were delivered to `path`: what writing over that file
   * would lose. The record is what this machine knows; the file may have been moved away since.
   */
  codesHolder(path: string, exceptKey?: string): OrderRecord | undefined {
    const target = resolve(path);
    const modified = modifiedAt(target);
    if (modified === undefined) return undefined;
    const holder = this.list().find(
      (r) => r.outcome === 'delivered' && r.out !== undefined && resolve(r.out) === target && r.key !== exceptKey,
    );
    // A file written after that delivery ended (replaced by hand, or by an order this machine has no record of) is
    // not known to hold its codes. A minute of slack: the record is written after the file's rename.
    const ended = holder ? Date.parse(holder.endedAt ?? holder.updatedAt) : NaN;
    return holder && !(modified > ended + 60_000) ? holder : undefined;
  }

  /** Every readable record, newest first (by the time it ended, else its last update). */
  list(): OrderRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const records: OrderRecord[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      try {
        const record = parseRecord(JSON.parse(readFileSync(join(this.dir, name), 'utf8')));
        if (record) records.push(record);
      } catch {
        // A damaged record is skipped: the record is a convenience, the server holds the truth.
      }
    }
    return records.sort(newestFirst);
  }

  /**
   * The record of one key in one scope, if there is a readable one: its own file, else the file an older
   * version named by the key alone, when that record has no key id and is of this server and environment.
   */
  get(key: string, scope: Scope): OrderRecord | undefined {
    const scoped = readRecord(this.fileOf({ key, ...scope }));
    if (scoped?.key === key && inScope(scoped, scope)) return scoped;
    const legacy = readRecord(this.fileOf({ key }));
    return legacy?.key === key && legacy.keyId === undefined && inScope(legacy, scope) ? legacy : undefined;
  }

  /** Writes (or replaces) the record of one key in its scope. */
  record(r: OrderRecord): void {
    this.inDir(() => writeFileAtomicSync(this.fileOf(r), textOf(r)));
  }

  /** record() without blocking, for many at once: the caller makes the directory's fsync, one for all (syncDirectory). */
  async recordInBatch(r: OrderRecord): Promise<void> {
    await this.inDir(() => writeFileAtomic(this.fileOf(r), textOf(r), 'file', { syncDir: false }));
  }

  /** Runs a write in the directory, made on the first write of the process, and again if it has gone since. */
  private inDir<T>(write: () => T): T;
  private inDir<T>(write: () => Promise<T>): Promise<T>;
  private inDir<T>(write: () => T | Promise<T>): T | Promise<T> {
    const again = (error: unknown): T | Promise<T> => {
      // The atomic writes wrap the errno in a LocalError (its cause).
      const code = (error as { cause?: NodeJS.ErrnoException }).cause?.code ?? (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || !this.made) throw error;
      this.made = false;
      return this.inDir(write);
    };
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      this.made = true;
    }
    try {
      const written = write();
      return written instanceof Promise ? written.catch(again) : written;
    } catch (error) {
      return again(error);
    }
  }

  /** Drops records that ended more than `days` days ago. */
  prune(days: number, now: number = Date.now()): void {
    const limit = now - days * DAY_MS;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        const record = parseRecord(JSON.parse(readFileSync(file, 'utf8')));
        if (record && Date.parse(timeOf(record)) < limit) unlinkSync(file);
      } catch {
        // Unreadable or removed by another process meanwhile: left alone.
      }
    }
  }

  /**
   * Keys are the user's to choose: hashed into safe file names, as the journal does; with the scope, so that
   * one key's records on two servers, environments or API keys are two files. A record without a key id (an
   * older version's) keeps the name by the key alone, and is rewritten there (`order list --refresh`).
   */
  private fileOf(r: Pick<OrderRecord, 'key' | 'keyId' | 'baseUrl' | 'environment'> | { key: string }): string {
    const scoped =
      'keyId' in r && r.keyId !== undefined ? JSON.stringify([r.key, r.baseUrl, r.environment, r.keyId]) : r.key;
    return join(this.dir, `${sha256(scoped).slice(0, 40)}.json`);
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
function textOf(r: OrderRecord): string {
  const kept = clean(r);
  const masked: OrderRecord = {
    ...kept,
    ...(kept.status !== undefined ? { status: redactKeys(kept.status) } : {}),
    ...(kept.error !== undefined
      ? { error: { code: redactKeys(kept.error.code), message: redactKeys(kept.error.message) } }
      : {}),
  };
  return `${JSON.stringify(masked, null, 2)}\n`;
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
    ...(r.error !== undefined ? { error: { code: r.error.code, message: r.error.message } } : {}),
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
