// The durable order journal: one file per unresolved intent, written atomically and fsynced before the
// first byte of the order request is sent, removed only once the outcome has reached the user (it then
// becomes a record in history/, beside the journal). A short lock over the whole directory makes "find an
// orphan or create an intent" safe for overlapping processes; the lock goes by its owner's liveness.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CliError, LocalError, UsageError } from '../errors.js';
import { stageFile, syncDirectory, writeFileAtomic, writeFileAtomicSync, type Staged } from '../files/atomic.js';
import { DEFAULT_HISTORY_DAYS, History, recordOf, type OrderRecord } from './history.js';
import { INTENT_VERSION, orderBody, sameOrder, sameRequest, sha256, staleness, type Intent, type OrderSpec, type OutSpec } from './intent.js';
import { withDirLock } from './lock.js';
import { deliveredFile, renamedFile } from './codes-file.js';
import { failpoint } from '../failpoints.js';
import { redactKeys } from '../secrets.js';
import { currentOwner, isAlive, isSameProcess, leftByDead } from './owner.js';
import { intentSchema } from './schema.js';

export interface Unreadable {
  file: string;
  reason: string;
}

export interface BeginOptions extends OrderSpec {
  /** A key the user supplied with --idempotency-key. */
  key?: string | undefined;
  wait?: boolean | undefined;
  out?: OutSpec | undefined;
}

export interface Begun {
  intent: Intent;
  /** True when an interrupted intent was taken over: the same key and body will be sent again. */
  resumed: boolean;
  /** Interrupted intents of the same order whose outcome had reached the user: settled now, for the verb to say so. */
  settled: Intent[];
}

export type Ending = Exclude<OrderRecord['outcome'], 'pending'>;

export class Journal {
  readonly dir: string;
  readonly history: History;
  private historyDays: number;
  private pruned = false;
  private swept = false;
  /** File names of the intents this journal saved and has not ended (see find). */
  private readonly written = new Set<string>();
  /** Intents read from a file other than their key's own (renamed or restored by hand): key → those files. */
  private readonly foreign = new Map<string, Set<string>>();

  constructor(dir: string, options: { historyDays?: number | undefined } = {}) {
    this.dir = dir;
    this.history = new History(join(dirname(dir), 'history'));
    this.historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS;
  }

  /** Every intent on disk (of the names `which` accepts); unreadable files are reported, never removed. */
  read(which: (name: string) => boolean = () => true): { intents: Intent[]; unreadable: Unreadable[] } {
    const intents: Intent[] = [];
    const unreadable: Unreadable[] = [];
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      throw localError(error, `cannot read the order journal ${this.dir}`);
    }
    for (const name of names) {
      if (!name.endsWith('.json') || !which(name)) continue;
      const file = join(this.dir, name);
      try {
        const parsed = intentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
        if (parsed.success) {
          intents.push(parsed.data);
          // Saved and ended under the key's own name: a copy under another would outlive its order's end.
          if (basename(this.fileOf(parsed.data.key)) !== name) this.foreign.set(parsed.data.key, (this.foreign.get(parsed.data.key) ?? new Set()).add(file));
        } else unreadable.push({ file, reason: 'not an intent of this version' });
      } catch (error) {
        unreadable.push({ file, reason: (error as NodeJS.ErrnoException).code ?? 'not valid JSON' });
      }
    }
    intents.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return { intents, unreadable };
  }

  /**
   * The intent of one key. save() writes it at fileOf(key) and nowhere else, so that one file is read; only
   * when it is missing or is not that key's intent are the other files read: an intent put there by other
   * means (copied by hand) is still found. The files this journal itself wrote under other keys are skipped
   * then: each holds the key it was written for (another process changes an intent only once its owner, this
   * process, is dead). Reading every file for every key made a plan's rows quadratic: the rows stay in the
   * journal until the summary is out, and 1,000 rows read half a million files (issue 16).
   */
  find(key: string): Intent | undefined {
    const file = this.fileOf(key);
    const direct = readIntent(file);
    if (direct?.key === key) return direct;
    return this.read((name) => name !== basename(file) && !this.written.has(name)).intents.find((intent) => intent.key === key);
  }

  /** Takes over the matching interrupted intent, or writes a new one (`prepared`); either way it is on disk when this returns. */
  async begin(options: BeginOptions, now: number = Date.now()): Promise<Begun> {
    // A new intent's file is written and fsynced before the lock is taken, renamed into place under it, and
    // its directory fsynced once the lock is released: the lock covers "find one or create it", not the
    // disk's waits, which the rows of a plan would otherwise queue behind. Durable before begin returns.
    const fresh = newIntent(options, options.key ?? randomUUID(), now);
    let staged: Staged;
    try {
      staged = await stageFile(this.fileOf(fresh.key), textOf(fresh));
    } catch (error) {
      throw localError(error, `cannot write the order journal ${this.dir}`);
    }
    const settled: Intent[] = [];
    const create = (): Begun => {
      try {
        staged.commit();
      } catch (error) {
        throw localError(error, `cannot write the order journal ${this.dir}`);
      }
      this.written.add(basename(this.fileOf(fresh.key)));
      return { intent: fresh, resumed: false, settled };
    };
    try {
      const begun = await this.withLock(async () => (await this.found(options, now, settled)) ?? create());
      await syncDirectory(this.dir);
      await failpoint('intent.written');
      return begun;
    } finally {
      await staged.discard();
    }
  }

  /**
   * The intent begin() takes over (claimed, on disk when this settles), or undefined when it creates one.
   * An interrupted intent whose outcome already reached the user is done: it is settled (into `settled`),
   * never resumed, so the new order is placed beside it; except that one whose codes file is at this
   * command's --out, unchanged, is this command run again (the codes are not written or charged again), and
   * one whose codes went to another file refuses this command: its codes are never written into a second file.
   */
  private async found(options: BeginOptions, now: number, settled: Intent[]): Promise<Begun | undefined> {
    if (options.key !== undefined) {
      const existing = this.find(options.key);
      if (existing && !isAlive(existing.owner) && !(await this.resumable(existing, options, now, settled))) throw keyDelivered(existing.key, existing.orderId, existing.out?.path);
      if (existing) return { intent: await this.takeOver(existing, options, now), resumed: true, settled };
      // A key names one order on one server: the one its record says it placed and delivered, which the server
      // may have forgotten by now (a second charge), and whose codes would otherwise go into a second file. The
      // same key with another body is the server's to refuse (422 idempotency_key_reused, exit 4).
      const record = this.history.get(options.key);
      if (record?.outcome === 'delivered' && record.orderId !== undefined && record.baseUrl === options.baseUrl && record.environment === options.environment && record.productId === options.productId && record.quantity === options.quantity) {
        throw keyDelivered(record.key, record.orderId, record.out);
      }
      return undefined;
    }
    const { intents } = this.read();
    const orphans: Intent[] = [];
    for (const intent of intents) if (sameOrder(intent, options) && !isAlive(intent.owner) && (await this.resumable(intent, options, now, settled))) orphans.push(intent);
    const fresh = orphans.find((intent) => staleness(intent, now) === undefined);
    if (fresh) return { intent: await this.claimed(fresh, options, now), resumed: true, settled };
    // The contract matches on product, quantity, profile and environment. An orphan that matches those
    // but was made with another key or server cannot be resumed from here, and must not be silently skipped.
    const other = intents.find((intent) => sameRequest(intent, options) && !sameOrder(intent, options) && !isAlive(intent.owner));
    if (other) {
      throw new UsageError(
        `an interrupted order for ${other.quantity} × ${other.productId} in profile "${other.profile}" (${other.environment}) was made with another API key or base URL (${other.baseUrl}), so it is not resumed with this one`,
        {
          code: 'intent_conflict',
          hint: `resume it with its own key: giftcodes order resume ${other.key}   or drop it: giftcodes order abandon ${other.key}`,
        },
      );
    }
    const stale = orphans[0];
    if (stale) throw staleError(stale, now);
    return undefined;
  }

  /**
   * False for an interrupted intent whose outcome already reached the user: it is settled now (into
   * `settled`), and when its codes went to a file other than this command's --out, this command is refused.
   * The one such intent that is resumed is this very command run again: its codes file is at this --out,
   * unchanged (it is not written or charged again).
   */
  private async resumable(intent: Intent, options: BeginOptions, now: number, settled: Intent[]): Promise<boolean> {
    const ending = this.reached(intent);
    if (ending === undefined) return true;
    if (options.out && intent.out && resolve(options.out.path) === resolve(intent.out.path) && deliveredFile(intent, intent.out.path)) return true;
    await this.endLocked([intent], ending, { now });
    settled.push(intent);
    if (ending === 'delivered' && intent.out && intent.out.path !== '-') throw codesDelivered(intent);
    return false;
  }

  /**
   * How the intent's outcome already reached the user, from the files alone, or undefined while it has not:
   * its record says so (this very intent's: its createdAt is kept through every claim, so a key reused for the
   * same order to another file is not taken for the first run's delivery), or it is in phase `delivered`
   * (written by versions before the record was the fact), or the codes file its run renamed into place is
   * there unchanged, or was renamed and has since been moved away (codes-file.ts).
   */
  reached(intent: Intent): Ending | undefined {
    if (intent.phase === 'delivered') return 'delivered';
    if (intent.orderId === undefined) return undefined;
    const record = this.history.get(intent.key);
    if (record && (record.outcome === 'delivered' || record.outcome === 'failed') && record.orderId === intent.orderId && record.baseUrl === intent.baseUrl && record.createdAt === intent.createdAt) return record.outcome;
    if (intent.out && intent.out.path !== '-' && (deliveredFile(intent, intent.out.path) !== undefined || renamedFile(intent) !== undefined)) return 'delivered';
    return undefined;
  }

  /** Temporary files a writer killed mid-write left (`.<intent file>.<pid>-<random>.tmp`): the first time a run takes the lock. */
  private sweep(): void {
    if (this.swept) return;
    this.swept = true;
    for (const name of leftByDead(this.dir, (file) => Number(/^\..+\.(\d+)-[0-9a-f]+\.tmp$/.exec(file)?.[1]) || undefined)) {
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // Removed by another run meanwhile: what matters is that it is gone.
      }
    }
  }

  /** Claims one intent for `order resume`; refuses one a live process holds, and a stale one unless forced. */
  claim(key: string, options: { forceStale?: boolean | undefined } = {}, now: number = Date.now()): Promise<Intent> {
    return this.withLock(() => {
      const intent = this.find(key);
      if (!intent) throw notFound(key);
      this.assertNotHeld(intent);
      if (!options.forceStale && staleness(intent, now) !== undefined) throw staleError(intent, now);
      return this.claimed(intent, {}, now);
    });
  }

  /** Ends every intent of a dead owner that `endingOf` gives an ending (see orders/lifecycle.ts settle); returns them. */
  settleWhere(endingOf: (intent: Intent) => Ending | undefined, now: number = Date.now()): Promise<Intent[]> {
    return this.withLock(async () => {
      const settled = this.read().intents.filter((intent) => !isAlive(intent.owner) && endingOf(intent) !== undefined);
      await this.endLocked(settled, (intent) => endingOf(intent)!, { now });
      return settled;
    });
  }

  /** Writes the intent's new state durably (atomic, fsynced) before the caller takes the next step. */
  save(intent: Intent, now: number = Date.now()): Intent {
    const next = { ...intent, updatedAt: new Date(now).toISOString() };
    const file = this.fileOf(intent.key);
    try {
      writeFileAtomicSync(file, textOf(next));
    } catch (error) {
      throw localError(error, `cannot write the order journal ${this.dir}`);
    }
    this.written.add(basename(file));
    return next;
  }

  /**
   * save() without blocking the event loop: as durable (the file and its directory entry fsynced) when the
   * promise settles, and the caller awaits it before its next step. The rows of a plan save at once: their
   * fsyncs overlap, and one directory fsync serves the renames of all of them (syncDirectory).
   */
  async saveAsync(intent: Intent, now: number = Date.now()): Promise<Intent> {
    const next = { ...intent, updatedAt: new Date(now).toISOString() };
    const file = this.fileOf(intent.key);
    try {
      await writeFileAtomic(file, textOf(next));
    } catch (error) {
      throw localError(error, `cannot write the order journal ${this.dir}`);
    }
    this.written.add(basename(file));
    return next;
  }

  /**
   * The fact that outcomes reached the user (orders/lifecycle.ts deliver): their records, each file fsynced,
   * then history/ once. Unlike a record written as an intent ends, a failure here is an error (exit 8): the
   * intents stay pending, and their next run delivers again.
   */
  async recordDelivery(records: readonly OrderRecord[]): Promise<void> {
    try {
      await inTurns(records, (record) => this.history.recordInBatch(record));
      await syncDirectory(this.history.dir);
    } catch (error) {
      throw localError(error, `cannot write the order record ${this.history.dir}`);
    }
  }

  /**
   * The intents are over: each becomes a record of the order history and leaves the journal. The one place an
   * intent ends. Under the lock: another process that read this intent a moment ago must not see it gone,
   * judge its owner dead (this process exits right after) and take over an order that was already delivered.
   * `recorded`: their records were written by recordDelivery, and are not written again.
   */
  end(intents: readonly Intent[], ending: Ending | ((intent: Intent) => Ending), o: { error?: CliError | undefined; now?: number; recorded?: boolean } = {}): Promise<OrderRecord[]> {
    return this.withLock(() => this.endLocked(intents, ending, o));
  }

  /**
   * Every record is on disk (each file fsynced, then one fsync of history/) before the first intent leaves the
   * journal; then every intent file is removed and the journal's directory fsynced once. A crash in between
   * leaves intents whose records exist: they end again, nothing is lost. Many at once only share the fsyncs.
   */
  private async endLocked(intents: readonly Intent[], ending: Ending | ((intent: Intent) => Ending), o: { error?: CliError | undefined; now?: number; recorded?: boolean } = {}): Promise<OrderRecord[]> {
    const now = o.now ?? Date.now();
    const endingOf = typeof ending === 'function' ? ending : () => ending;
    const records = intents.map(
      (intent): OrderRecord => ({
        ...recordOf(intent, endingOf(intent)),
        endedAt: new Date(now).toISOString(),
        ...(o.error ? { error: { code: o.error.code, message: o.error.message } } : {}),
      }),
    );
    if (!o.recorded) {
      try {
        // A key the user reuses for another order (refused 422, or abandoned before anything was sent) must
        // not erase the record of the order that key placed: a record with an order id is kept.
        const kept = records.filter((record, i) => intents[i]!.orderId !== undefined || this.history.get(record.key)?.orderId === undefined);
        await inTurns(kept, (record) => this.history.recordInBatch(record));
        if (kept.length > 0) await syncDirectory(this.history.dir);
      } catch {
        // The record is a convenience here; the journal is the promise. A failed record never keeps an intent open.
      }
    }
    if (!this.pruned) {
      this.pruned = true;
      try {
        this.history.prune(this.historyDays, now);
      } catch {
        // As above: pruning old records never stands in the way of an order.
      }
    }
    let failure: unknown;
    for (const intent of intents) {
      const file = this.fileOf(intent.key);
      this.written.delete(basename(file));
      try {
        unlinkSync(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') failure ??= error;
      }
      try {
        this.removeForeign(intent.key);
      } catch (error) {
        failure ??= error;
      }
    }
    if (intents.length > 0) await syncDirectory(this.dir);
    if (failure !== undefined) throw localError(failure, `cannot update the order journal ${this.dir}`);
    return records;
  }

  abandon(key: string, now: number = Date.now()): Promise<Intent> {
    return this.withLock(async () => {
      const intent = this.find(key);
      if (!intent) throw notFound(key);
      this.assertNotHeld(intent);
      await this.endLocked([intent], 'abandoned', { now });
      return intent;
    });
  }

  private takeOver(existing: Intent, options: BeginOptions, now: number): Promise<Intent> {
    this.assertNotHeld(existing);
    if (!sameOrder(existing, options)) {
      throw new UsageError(`the idempotency key ${existing.key} already belongs to another order (${existing.quantity} × ${existing.productId})`, {
        code: 'idempotency_key_reused',
        hint: 'use a new key, or repeat the original product, quantity, profile and environment',
      });
    }
    if (staleness(existing, now) !== undefined) throw staleError(existing, now);
    return this.claimed(existing, options, now);
  }

  private assertNotHeld(intent: Intent): void {
    if (isAlive(intent.owner) && !isSameProcess(intent.owner, currentOwner())) {
      throw new UsageError(`another giftcodes process (pid ${intent.owner.pid}) is working on the order with key ${intent.key}`, {
        code: 'intent_busy',
        hint: 'wait for it to finish, then check: giftcodes order pending',
      });
    }
  }

  private async claimed(intent: Intent, options: Pick<BeginOptions, 'wait' | 'out'>, now: number): Promise<Intent> {
    const saved = await this.saveAsync(
      {
        ...intent,
        owner: currentOwner(),
        ...(options.wait !== undefined ? { wait: options.wait } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
      },
      now,
    );
    // Now durable under its own name: a copy it was found in under another name goes (under the lock).
    let removed = false;
    try {
      removed = this.removeForeign(intent.key);
    } catch {
      // Left for the intent's end to remove (and report); the claim itself is durable.
    }
    if (removed) await syncDirectory(this.dir);
    return saved;
  }

  /** Removes the files other than its own that held the key's intent; true when one was removed. */
  private removeForeign(key: string): boolean {
    const files = this.foreign.get(key);
    this.foreign.delete(key);
    let removed = false;
    for (const file of files ?? []) {
      // Only while it still holds this key: a file named for another key may since have become that key's own.
      if (readIntent(file)?.key !== key) continue;
      try {
        unlinkSync(file);
        removed = true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
    return removed;
  }

  private fileOf(key: string): string {
    // Keys are the user's to choose: hash them into safe file names.
    return join(this.dir, `${sha256(key).slice(0, 40)}.json`);
  }

  private withLock<T>(fn: () => T | Promise<T>): Promise<T> {
    return withDirLock(this.dir, () => {
      this.sweep();
      return fn();
    });
  }
}

/** A new intent, `prepared`: the exact body that will be sent, and this process as its owner. */
function newIntent(options: BeginOptions, key: string, now: number): Intent {
  const body = orderBody(options.productId, options.quantity);
  const time = new Date(now).toISOString();
  return {
    version: INTENT_VERSION,
    key,
    profile: options.profile,
    environment: options.environment,
    baseUrl: options.baseUrl,
    keyId: options.keyId,
    productId: options.productId,
    quantity: options.quantity,
    body,
    fingerprint: sha256(body),
    phase: 'prepared',
    createdAt: time,
    updatedAt: time,
    owner: currentOwner(),
    ...(options.wait ? { wait: true } : {}),
    ...(options.out ? { out: options.out } : {}),
  };
}

/** A server's error text kept in an intent may echo a key: no file holds one (issue 15). */
function textOf(intent: Intent): string {
  return redactKeys(`${JSON.stringify(intent, null, 2)}\n`);
}

/** At most 16 at a time: as many files open as the file system can usefully sync together, never thousands. */
async function inTurns<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(16, items.length) }, worker));
}

/** The intent in one file, or undefined when there is none or it is not a readable intent. */
function readIntent(file: string): Intent | undefined {
  try {
    const parsed = intentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** An interrupted order's codes went to a file: never written into a second one (README, "Exactly once"). */
function codesDelivered(intent: Intent): UsageError {
  return new UsageError(
    `the interrupted order ${intent.orderId} for ${intent.quantity} × ${intent.productId} had already reached you: its codes were written to ${intent.out!.path}. They are never written into a second file, and nothing was charged now`,
    {
      code: 'codes_delivered',
      hint: `to write them again on purpose: giftcodes codes get ${intent.orderId} --out <file>; to place a new order for ${intent.quantity} × ${intent.productId}: run the same command again`,
    },
  );
}

/** A key the user chose that already placed an order that reached them. */
function keyDelivered(key: string, orderId: string | undefined, out: string | undefined): UsageError {
  return new UsageError(`the idempotency key ${key} already placed order ${orderId ?? '(unknown)'}, which reached you${out && out !== '-' ? ` (codes in ${out})` : ''}; a key names one order, so nothing was sent`, {
    code: 'idempotency_key_used',
    hint: `see it with: giftcodes order show ${orderId ?? key}; for a new order, use a new key (or none: giftcodes makes one)${out && out !== '-' && orderId ? `; its codes again: giftcodes codes get ${orderId} --out <file>` : ''}`,
  });
}

function notFound(key: string): UsageError {
  return new UsageError(`no unresolved order with the key ${key}`, { code: 'intent_not_found', hint: 'list them with: giftcodes order pending' });
}

/** Old or future-dated: the server may have forgotten the key, or the clock moved; a person decides. */
export function staleError(intent: Intent, now: number = Date.now()): UsageError {
  const why =
    staleness(intent, now) === 'old'
      ? `was started ${intent.createdAt}, more than 24 hours ago: the server may have forgotten its key`
      : `is dated ${intent.createdAt}, in the future (more than 5 minutes ahead of this clock): it was written under another clock`;
  return new UsageError(`the interrupted order for ${intent.quantity} × ${intent.productId} (key ${intent.key}) ${why}, so it is not resumed silently`, {
    code: 'stale_intent',
    hint: `check the server for it, then finish it with: giftcodes order resume ${intent.key} --force-stale   or drop it with: giftcodes order abandon ${intent.key}`,
  });
}

function localError(error: unknown, message: string): CliError {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const reason = code === 'ENOSPC' ? 'no space left on the device' : code === 'EROFS' ? 'read-only file system' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code;
  return new LocalError(`${message}: ${reason}`, { code: 'journal_unwritable', hint: 'free space or fix the permissions of the config directory, then run the command again', cause: error });
}
