// The durable order journal: every unresolved intent, durable before the first byte of the order request is
// sent, ended only once the outcome has reached the user (it then becomes a record in history/, beside the
// journal). Its changes go through one group-commit writer (log.ts): this process's log, one fsync for the
// changes of many intents at once; a dead process's log becomes one intent file per intent (compaction), which
// is what an interrupted order looks like on disk. A short lock over the whole directory makes "find an orphan
// or create an intent" safe for overlapping processes; the lock goes by its owner's liveness.
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { refusesTheOrder } from '../api/errors.js';
import { CliError, ExitCode, LocalError, UsageError } from '../errors.js';
import { localError as writeFailure } from '../files/atomic.js';
import {
  DEFAULT_HISTORY_DAYS,
  History,
  recordOf,
  inScope,
  scopeOf,
  sentUnanswered,
  type OrderRecord,
  type Scope,
} from './history.js';
import {
  neverSent,
  newIntent,
  otherKeyOfReseller,
  sameOrder,
  sameRequest,
  sameReseller,
  sameResellerRequest,
  staleness,
  type Intent,
  type OrderSpec,
  type OutSpec,
} from './intent.js';
import { LOCK_WAIT_MS, lockTenure, withDirLock } from './lock.js';
import { deliveredFile, renamedFile } from './codes-file.js';
import { failpoint } from '../failpoints.js';
import { byCodePoint } from '../compare.js';
import {
  compactLog,
  foldIntent,
  foldIntents,
  forgetListing,
  intentFile,
  isSetAsideLog,
  keepListing,
  keptListing,
  logIsDead,
  logOf,
  otherLogs,
  readIntentFile,
  readLog,
  type Folded,
  type IntentLog,
  type OtherLogs,
} from './log.js';
import { currentOwner, isAlive, isSameProcess, leftByDead, otherMachine, runsGone } from './owner.js';
import { sweepLeftBy } from '../files/codes-temps.js';
import { intentSchema } from './schema.js';
import { remembered } from '../remembered.js';
import { mayBeOwn, resellerKeyWords, unitsOf, UNREADABLE_OWN, unreadableOwnHint } from '../output/words.js';
import { groupBy } from '../group.js';
import { nodeCrypto } from '../random.js';
import { placeCommand } from '../output/pinned-hint.js';

/** The command that finished an intent in its own run's place (OrderRecord.finishedBy), for all of them or each. */
export type FinishedBy = string | ((intent: Intent) => string | undefined);

/** How many times a read without the lock starts over when a run's exit moved an intent from its log to a file meanwhile. */
const READ_ATTEMPTS = 10;

export interface Unreadable {
  file: string;
  reason: string;
}

export interface BeginOptions extends OrderSpec {
  /** A key the user supplied with --idempotency-key. */
  key?: string | undefined;
  /** `key` is not the user's: it is the made key of an order abandoned after its request went out, sent again. */
  keyReused?: boolean | undefined;
  /** A plan's row: the plan's file name, kept in the intent and its record. */
  plan?: string | undefined;
  /** A plan's row: its run's --batch, null for none. */
  batch?: string | null | undefined;
  /** A plan's row: its plan file's directory (Intent.planDir). */
  planDir?: string | undefined;
  wait?: boolean | undefined;
  out?: OutSpec | undefined;
  /**
   * Only take over the intent of `key`, never create one: a live order resumed without being asked about again
   * (it was confirmed when it was placed). Gone meanwhile (another run finished or abandoned it), nothing is sent.
   */
  resumeOnly?: boolean | undefined;
  /**
   * A new intent sent as soon as it is written (a plan's row): written `sending` at once, the one line and fsync that
   * `prepared` and then `sending` were (src/orders/lifecycle.ts). An intent taken over stays as it was.
   */
  armed?: boolean | undefined;
}

export interface Begun {
  intent: Intent;
  /** True when an interrupted intent was taken over: the same key and body will be sent again. */
  resumed: boolean;
  /** Interrupted intents of the same order whose outcome had reached the user: settled now, for the verb to say so. */
  settled: Intent[];
  /** A new intent written `sending` (BeginOptions.armed): armed by this process, and certainly not sent yet. */
  armed?: true;
}

export type Ending = Exclude<OrderRecord['outcome'], 'pending'>;

/** What claim() gives: the intent, now this process's; or, when its outcome had already reached the user, the intent settled and how it ended. */
export interface Claimed {
  intent: Intent;
  reached?: Ending | undefined;
}

export class Journal {
  readonly dir: string;
  readonly history: History;
  private historyDays: number;
  private pruned = false;
  private swept = false;
  /** This process's log in this directory (log.ts): every change of an intent goes through it. */
  private readonly log: IntentLog;
  /** Keys whose state was last read from another process's log: held by that process, never claimed from here. */
  private readonly elsewhere = new Set<string>();
  /** The listing the looks made inside sameListing share. */
  private listing: string[] | undefined;
  /** The names of the last listing looked in (listed), as a set. */
  private listedSet: { names: readonly string[]; set: ReadonlySet<string>; files: boolean } | undefined;
  /** misplacedIn's last reading: the names it was read for, and what it found. */
  private misplaced:
    | {
        names: readonly string[];
        byKey: ReadonlyMap<string, Intent[]>;
        watched: readonly { file: string; stamp: string | undefined }[];
      }
    | undefined;

  /** The profile whose history-days this run prunes by: only its records (undefined: every record, as before). */
  private historyProfile: string | undefined;

  /** Read where the config directory is not there (order show): no intent, and nothing made; a missing journal is otherwise exit 8. */
  private readonly absent: boolean;

  constructor(
    dir: string,
    options: { historyDays?: number | undefined; historyProfile?: string | undefined; absent?: boolean } = {},
  ) {
    this.dir = dir;
    this.absent = options.absent === true;
    this.log = logOf(resolve(dir));
    this.history = new History(join(dirname(dir), 'history'));
    this.historyDays = options.historyDays ?? DEFAULT_HISTORY_DAYS;
    this.historyProfile = options.historyProfile;
  }

  /**
   * Every unresolved intent: the intent files, with the logs folded over them; unreadable files and logs are
   * reported, never removed. Read without the lock: a log compacted by its run's exit between the listing and
   * its read is a file now, one that was not listed, so the journal is read again (never an intent in neither place).
   */
  read(): { intents: Intent[]; unreadable: Unreadable[] } {
    for (let attempt = 1; ; attempt++) {
      const seen = this.readOnce();
      if (seen !== undefined) return seen;
      this.relist();
      if (attempt === READ_ATTEMPTS)
        throw new LocalError(`the order journal ${this.dir} kept changing while it was read`, {
          code: 'journal_busy',
          hint: 'run the command again',
        });
    }
  }

  /** One read of the journal, or undefined when a file or log listed was gone by the time it was read. */
  private readOnce(): { intents: Intent[]; unreadable: Unreadable[] } | undefined {
    const names = this.names();
    const files: Intent[] = [];
    const unreadable: Unreadable[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        const parsed = intentSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
        if (parsed.success) files.push(parsed.data);
        else unreadable.push({ file, reason: 'not an intent of this version' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return undefined;
        unreadable.push({ file, reason: code ?? 'not valid JSON' });
      }
    }
    const { logs, vanished, failed } = otherLogs(this.dir, this.log.file, names);
    if (vanished.length > 0) return undefined;
    for (const { file, error } of failed) unreadable.push({ file, reason: error.code ?? 'error' });
    for (const log of logs)
      for (const line of log.bad) unreadable.push({ file: log.file, reason: `line ${line} is not a journal entry` });
    for (const name of names) {
      if (!isSetAsideLog(name)) continue;
      const file = join(this.dir, name);
      let bad: number[] = [];
      try {
        bad = readLog(file).bad;
      } catch {
        // Removed by a person meanwhile.
      }
      for (const line of bad)
        unreadable.push({
          file,
          reason: `line ${line} is not a journal entry; the readable ones are intent files now`,
        });
    }
    const folded = foldIntents(files, logs, this.log);
    this.elsewhere.clear();
    const intents = [...folded.values()].map((f) => this.noted(f));
    intents.sort((a, b) => byCodePoint(a.createdAt, b.createdAt));
    return { intents, unreadable };
  }

  /**
   * The intent of one key: its own file, the logs, and this process's own log (in memory). Only when none holds
   * the key are the other intent files read: an intent put there by other means (copied by hand) is still
   * found. Reading every file for every key made a plan's rows quadratic (issue 16).
   */
  find(key: string): Intent | undefined {
    const files: Intent[] = [];
    const names = this.names();
    // Read only when listed: the listing is of this moment, or of this tenure of the lock (which only this process's
    // compaction changes, and it lists again), or of a sameListing's moment. An intent file is only ever written from a
    // log (compaction): one made after the listing was read below as that log's, or, compacted meanwhile, is read
    // then (vanished). Four looks for files that are not there a plan's row, 4,000 of a 1,000-row plan (issue 33).
    // The key's file name (a sha256 of the key) is made only where a file could be listed: a plan's every row looks up a
    // next key of its own (sentAgainKey) that nothing else names, in a journal that holds its logs alone (issue 33).
    let direct =
      this.listsFiles(names) && this.listed(names, this.fileOf(key)) ? readIntentFile(this.fileOf(key)) : undefined;
    const { logs, vanished, failed } = otherLogs(this.dir, this.log.file, names);
    unreadableLogs(failed);
    // A log compacted between the look at the key's file and the read of the log: its intents are files now,
    // and the key's may be one of them (never in neither place, or a keyed begin makes a second intent).
    if (!direct && vanished.length > 0) direct = readIntentFile(this.fileOf(key));
    if (direct?.key === key) files.push(direct);
    if (!direct && !this.log.live.has(key) && !logs.some((log) => log.live.has(key)))
      files.push(...(this.misplacedIn(names).get(key) ?? []));
    const folded = foldIntent(key, files, logs, this.log);
    this.elsewhere.delete(key);
    return folded && this.noted(folded);
  }

  /**
   * The intent files not at their key's own name (copied or renamed by hand), by key, read once for each listing of
   * the same names. Read for every key not found at its own name, every file a row: a plan run after a few killed
   * runs had left their intents as files took 5 s before its first row, rows × files reads (a person's day). The
   * files the runs write are always at their key's own name, so this holds what a person put there.
   */
  private misplacedIn(names: readonly string[]): ReadonlyMap<string, Intent[]> {
    const seen = this.misplaced;
    // The same names, and the files it kept or could not read unchanged since (a copy written again in place, or read
    // half-copied): a person's files are few, so each is looked at again (a review).
    if (
      seen &&
      seen.names.length === names.length &&
      seen.names.every((name, i) => name === names[i]) &&
      seen.watched.every(({ file, stamp }) => stampOf(file) === stamp)
    )
      return seen.byKey;
    const found: Intent[] = [];
    const watched: { file: string; stamp: string | undefined }[] = [];
    for (const name of names) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      const stamp = stampOf(file);
      const intent = readIntentFile(file);
      if (intent !== undefined && this.fileOf(intent.key) === file) continue;
      watched.push({ file, stamp });
      if (intent !== undefined) found.push(intent);
    }
    const byKey = groupBy(found, (intent) => intent.key);
    this.misplaced = { names: [...names], byKey, watched };
    return byKey;
  }

  private noted(folded: Folded): Intent {
    if (folded.source === 'log') this.elsewhere.add(folded.intent.key);
    return folded.intent;
  }

  /** Whether another process holds the intent: its owner lives, or its state is in another process's log. */
  private held(intent: Intent): boolean {
    return isAlive(intent.owner) || this.elsewhere.has(intent.key);
  }

  /**
   * The directory's names. While a turn of this process holds the lock, listed once for as long as this process
   * keeps it (log.ts keptListing): under the lock nothing but the holder adds or removes an intent file or a log
   * (another process's first line of a new log is written under its lock too), so the compaction of dead logs
   * and the lookup of each row's key share one listing, turn after turn; a compaction by this process lists
   * again. A plan's row listed the journal two, then four times (issue 33).
   */
  private names(): string[] {
    if (this.listing) return this.listing;
    if (this.absent) return [];
    const tenure = lockTenure(this.dir);
    const kept = tenure && keptListing(this.dir, tenure);
    if (kept) return kept;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      throw localError(error, `cannot read the order journal ${this.dir}`);
    }
    if (tenure) keepListing(this.dir, tenure, names);
    return names;
  }

  /** Whether a listing of the directory holds `file` (a path in it): one set made per listing, for a plan's many looks. */
  private listed(names: readonly string[], file: string): boolean {
    return this.setOf(names).set.has(basename(file));
  }

  /** Whether a listing holds any intent file (`.json`): a journal of logs alone has none for any key to be found in. */
  private listsFiles(names: readonly string[]): boolean {
    return this.setOf(names).files;
  }

  private setOf(names: readonly string[]): { set: ReadonlySet<string>; files: boolean } {
    if (this.listedSet?.names !== names)
      this.listedSet = { names, set: new Set(names), files: names.some((name) => name.endsWith('.json')) };
    return this.listedSet;
  }

  /** The directory's names changed (a compaction, or a file gone while it was read): the next look lists them again. */
  private relist(): void {
    forgetListing(this.dir);
    this.listing = undefined;
  }

  /**
   * `fn`'s looks at the journal (find) from one listing of it: a few keys looked up at one moment, outside the
   * lock (a plan row's generations of its key: orders/plan.ts sentAgainKey listed the journal twice a row,
   * issue 33). As two finds one after the other: either may see a change another process makes meanwhile, or
   * not. Synchronous only, so that no turn of the lock begins or ends inside it. A plan keys all its rows inside one
   * (keyRows, before any row begins): 1,000 listings of the journal at its start were one a row. A log compacted
   * meanwhile (a file now, not listed) is read again as before (find: vanished; read: relist, which lists anew).
   */
  sameListing<T>(fn: () => T): T {
    // Nested (a plan's rows keyed in one go, orders/plan.ts keyRows, each row's generations inside): the outer listing serves.
    const outer = this.listing;
    this.listing ??= this.names();
    try {
      return fn();
    } finally {
      if (outer === undefined) this.listing = undefined;
    }
  }

  /** Takes over the matching interrupted intent, or writes a new one (`prepared`, or `sending` when armed); either way it is on disk when this returns. */
  async begin(options: BeginOptions, now: number = Date.now()): Promise<Begun> {
    // A new intent's line is written under the lock (the next holder reads it) and made durable after it is
    // released, by an fsync it shares with the other rows of a plan: the lock covers "find one or create it",
    // not the disk's waits. Durable before begin returns.
    const fresh = newIntent(
      options,
      options.key ?? nodeCrypto().randomUUID(),
      now,
      options.key !== undefined && !options.keyReused,
    );
    const settled: Intent[] = [];
    let durable: Promise<void> = Promise.resolve();
    // The given key's record, as found() read it: a key whose order was abandoned after its request went out was
    // sent before (an order place sending it again, its plan's row, --idempotency-key given again), so its new
    // intent is dated from that first send (Intent.keySince), and none of its sends is a first attempt.
    const seen: { record?: OrderRecord } = {};
    const create = (): Begun => {
      const before = seen.record;
      const made = sentUnanswered(before) ? { ...fresh, keySince: before.keySince ?? before.createdAt } : fresh;
      const intent: Intent = options.armed ? { ...made, phase: 'sending' } : made;
      durable = this.log.append([{ key: intent.key, intent }]);
      durable.catch(() => undefined); // awaited below, once the lock is released
      return { intent, resumed: false, settled, ...(options.armed ? { armed: true as const } : {}) };
    };
    const begun = await this.withLock(async () => (await this.found(options, now, settled, seen)) ?? create());
    try {
      await durable;
    } catch (error) {
      throw journalWriteError(error, this.dir);
    }
    await failpoint('intent.written');
    // Written `sending` at once: that step is durable too, and a kill there is the one the lifecycle names.
    if (begun.armed) await failpoint('sending.written');
    return begun;
  }

  /**
   * The intent begin() takes over (claimed, on disk when this settles), or undefined when it creates one.
   * An interrupted intent whose outcome already reached the user is done: it is settled (into `settled`),
   * never resumed, so the new order is placed beside it; except that one whose codes file is at this
   * command's --out, unchanged, is this command run again (the codes are not written or charged again), and
   * one whose codes went to another file refuses this command: its codes are never written into a second file.
   */
  private async found(
    options: BeginOptions,
    now: number,
    settled: Intent[],
    seen: { record?: OrderRecord },
  ): Promise<Begun | undefined> {
    if (options.key !== undefined) {
      const existing = this.find(options.key);
      // The key's own file there but unreadable (damaged, or a version this one cannot read): it may be this very
      // order, sent. Sent again, the API answers with that order and this run took it for another machine's (exit 4,
      // and a hint to order anew: a second charge for a person who followed it, a review).
      if (
        !existing &&
        this.listed(this.names(), this.fileOf(options.key)) &&
        existsSync(this.fileOf(options.key)) &&
        readIntentFile(this.fileOf(options.key)) === undefined
      )
        throw keyFileUnreadable(options.key, this.fileOf(options.key));
      if (existing && !this.held(existing) && otherMachine(existing.owner) !== undefined)
        throw onOtherMachine(existing);
      if (existing && !this.held(existing) && !(await this.resumable(existing, options, now, settled)))
        throw keyDelivered(existing.key, existing.orderId, existing.out?.path);
      if (existing) return { intent: await this.takeOver(existing, options, now), resumed: true, settled };
      // A key names one order on one server: the one its record says it placed and delivered, which the server
      // may have forgotten by now (a second charge), and whose codes would otherwise go into a second file. The
      // same key with another body is the server's to refuse (422 idempotency_key_reused, exit 4).
      // Only this scope's record: the same key under test (or another reseller) is another order.
      const record = this.history.get(options.key, scopeOf(options));
      seen.record = record;
      // Abandoned after its request went out without an answer, over a day ago from its first send: the server may
      // have forgotten the key, and sending it again is a second order if the first went through (a fourth review:
      // two orders under one key, no word). Not sent: the provider's dashboard says whether it was placed.
      const stale = record && sentUnanswered(record) ? staleness(record, now) : undefined;
      if (stale !== undefined) throw staleAbandoned(record!, stale);
      // Abandoned after it was sent for another request (a person fixing a typo in the quantity under the same key):
      // the server refuses another body under a key (422), which, the key sent before, could not tell this order from
      // that one, so its note stayed "may have been charged" and its order resume met the same 422 forever (review F1).
      // Refused here, nothing sent, with the way back to that order, and to this one under a key of its own.
      if (
        sentUnanswered(record) &&
        !options.key.startsWith('plan-') &&
        (record.productId !== options.productId || record.quantity !== options.quantity)
      )
        throw keySentForAnother(record);
      // Abandoned after the API had placed it (its order id known), the key names that order as much: sent again, it
      // was that order within the day and a second one after it, without a word (a review).
      if (
        record?.orderId !== undefined &&
        record.productId === options.productId &&
        record.quantity === options.quantity
      ) {
        if (record.outcome === 'delivered') throw keyDelivered(record.key, record.orderId, record.out);
        if (record.outcome === 'abandoned')
          throw keyAbandoned(record.key, record.orderId, record.endedAt ?? record.updatedAt);
      }
      // The same key given at another spelling of the server's address (localhost for 127.0.0.1) or under a key
      // since rotated, by the same reseller: the server sees one key, and its order was that one's within the day and
      // a second one after it (a review: two orders under one key, no word). Refused as at its own address; a key
      // that named an order on a server that truly differs is better not given again either.
      if (options.key !== undefined && !options.keyReused && !options.key.startsWith('plan-')) {
        const elsewhere = this.history.everyScope(options.key).find(
          (r) =>
            r.environment === options.environment &&
            // The same reseller: this API key under another profile, or this profile under a key since rotated, or
            // another key login learned is of the same reseller; another profile's other key is another reseller's,
            // unless login learned otherwise (a review reused the key under a second profile holding the same API key).
            (sameReseller(r, options) || r.profile === options.profile) &&
            !inScope(r, scopeOf(options)) &&
            // Its order placed there (delivered, abandoned), or its request sent there without an answer and
            // abandoned: the server answers this run with that order, which read as another run's (a review).
            ((r.orderId !== undefined && (r.outcome === 'delivered' || r.outcome === 'abandoned')) ||
              sentUnanswered(r)) &&
            r.productId === options.productId &&
            r.quantity === options.quantity,
        );
        if (elsewhere) throw keyUsedElsewhere(elsewhere);
      }
      // A key the API answered with an order placed elsewhere under it is that order's, never this directory's:
      // sent again once the server forgot it, it was a second order (a review ran the same plan a day later and was
      // charged twice under one key). Refused without a request, in the same words, as long as the record is kept.
      if (record && placedElsewhere(record)) throw placedElsewhereBefore(record);
      if (options.resumeOnly)
        throw new UsageError(
          `the interrupted order with key ${options.key} was finished or abandoned by another run meanwhile; nothing was sent`,
          { code: 'intent_not_found', hint: 'see giftcodes order list and giftcodes order pending' },
        );
      return undefined;
    }
    const { intents: all } = this.read();
    // Another machine's intent for this order may be running there: taken over only by its key, never matched.
    const foreign = all.find(
      (intent) => sameOrder(intent, options) && !this.held(intent) && otherMachine(intent.owner) !== undefined,
    );
    if (foreign) throw onOtherMachine(foreign);
    const intents = all.filter((intent) => otherMachine(intent.owner) === undefined);
    const orphans: Intent[] = [];
    for (const intent of intents)
      if (sameOrder(intent, options) && !this.held(intent) && (await this.resumable(intent, options, now, settled)))
        orphans.push(intent);
    const fresh = orphans.find((intent) => staleness(intent, now) === undefined);
    if (fresh) return { intent: await this.claimed(fresh, options, now), resumed: true, settled };
    // The contract matches on product, quantity, profile and environment. An orphan that matches those
    // but was made with another key or server cannot be resumed from here, and must not be silently skipped; nor
    // one made with this very API key in another profile (one reseller to the API: sameResellerRequest).
    // Another profile's note only while it may have charged this reseller: sent, its outcome not yet reached, fresh. One
    // never sent, delivered already, or past the day refused a cron job's run in a second profile for nothing (a review).
    const mayHaveCharged = (intent: Intent): boolean =>
      sameRequest(intent, options) ||
      (!neverSent(intent) && staleness(intent, now) === undefined && this.reached(intent) === undefined);
    const other = intents.find(
      (intent) =>
        sameResellerRequest(intent, options) &&
        !sameOrder(intent, options) &&
        !this.held(intent) &&
        mayHaveCharged(intent),
    );
    if (other) {
      const units = unitsOf(other.quantity, other.productId);
      // Dropped, an order that went out may have been placed all the same: this command run again is then a second
      // order beside it, and the abandon is no way to that order (a review followed "or drop it", ran the command
      // again, and was charged twice).
      const dropped = neverSent(other)
        ? `giftcodes order abandon ${other.key} (it was never sent)`
        : `giftcodes order abandon ${other.key} (if it was placed, this command run after that is a second order beside it)`;
      // Another profile's is matched only with this very key or another of the same reseller (sameResellerRequest):
      // said as the second order this run would be, not as a resume it asked for (a review read "not resumed from
      // profile backup" as its own request). Never resumed with another key: the API does not say a reseller's keys
      // share idempotency keys, so it is finished with the key it was placed with, in its profile.
      if (other.profile !== options.profile)
        throw new UsageError(
          `an interrupted order for ${units} (${other.environment}) was started in profile "${other.profile}", which holds ${resellerKeyWords(other, options)}, and may have been charged; this run would place a second one beside it, so it placed nothing`,
          {
            code: 'intent_conflict',
            hint: `finish that one${other.keyId !== options.keyId ? ` with the API key it was placed with (profile "${other.profile}"'s)` : ''}: giftcodes order resume ${other.key}${other.out && other.out.path !== '-' ? ` (its codes go to ${other.out.path})` : ''}, or drop it: ${dropped}; then run this again`,
          },
        );
      throw new UsageError(
        `an interrupted order for ${units} in profile "${other.profile}" (${other.environment}) was made with ${otherKeyOfReseller(other, options) ? `${resellerKeyWords(other, options)} at ${other.baseUrl}` : `another API key or base URL (${other.baseUrl})`}, so it is not resumed with this one`,
        {
          code: 'intent_conflict',
          // "Its own key" read as its idempotency key, which `order resume` takes anyway, and the resume then refused for
          // the API key (a review): it is the API key (or the base URL) the order was placed with.
          hint: `resume it with the API key and base URL it was placed with (${other.keyId !== options.keyId && other.profile === options.profile && other.baseUrl === options.baseUrl ? `that key in GIFTCODES_API_KEY: this run's key is another one` : `that key in profile "${other.profile}" or in GIFTCODES_API_KEY`}): giftcodes order resume ${other.key}   or drop it: ${dropped}`,
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
    if (
      options.out &&
      intent.out &&
      resolve(options.out.path) === resolve(intent.out.path) &&
      deliveredFile(intent, intent.out.path)
    )
      return true;
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
    const recorded = this.recorded(intent);
    if (recorded !== undefined) return recorded;
    if (intent.orderId === undefined) return undefined;
    if (
      intent.out &&
      intent.out.path !== '-' &&
      (deliveredFile(intent, intent.out.path) !== undefined || renamedFile(intent) !== undefined)
    )
      return 'delivered';
    return undefined;
  }

  /** Whether the API answered this key, in this scope, with an order placed elsewhere: found() never sends it again. */
  keyPlacedElsewhere(key: string, scope: Scope): boolean {
    const record = this.history.get(key, scope);
    return record !== undefined && placedElsewhere(record);
  }

  /** How the intent's outcome reached the user by its run's own record of it (reached's first half): the run told the user. */
  recorded(intent: Intent): Ending | undefined {
    if (intent.phase === 'delivered') return 'delivered';
    if (intent.orderId === undefined) return undefined;
    const record = this.history.get(intent.key, scopeOf(intent));
    if (
      record &&
      (record.outcome === 'delivered' || record.outcome === 'failed') &&
      record.orderId === intent.orderId &&
      record.createdAt === intent.createdAt
    )
      return record.outcome;
    return undefined;
  }

  /** Whether an intent recorded `temp` as the temporary file of a finished codes file (codes-file.ts recordedFileState). */
  recordsTemp(temp: string): boolean {
    return this.read().intents.some((intent) => intent.files?.some((f) => f.temp === temp) === true);
  }

  /** Temporary files a writer killed mid-write left (`.<intent file>.<pid>-<random>.tmp`): the first time a run takes the lock. */
  private sweep(): void {
    if (this.swept) return;
    this.swept = true;
    for (const name of leftByDead(
      this.dir,
      (file) => Number(/^\..+\.(\d+)-[0-9a-f]+\.tmp$/.exec(file)?.[1]) || undefined,
    )) {
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // Removed by another run meanwhile: what matters is that it is gone.
      }
    }
  }

  /**
   * Claims one intent for `order resume`; refuses one a live process holds, and a stale one unless forced.
   * First the question every verb that takes an intent over asks (reached, as begin and resume --all do): an
   * intent whose outcome already reached the user is not claimed but settled here, and `reached` says how it
   * ended, so its codes are never delivered a second time.
   */
  claim(key: string, options: { forceStale?: boolean | undefined } = {}, now: number = Date.now()): Promise<Claimed> {
    return this.withLock(async () => {
      const intent = this.find(key);
      if (!intent) throw notFound(key);
      this.assertNotHeld(intent);
      const reached = this.reached(intent);
      if (reached !== undefined) {
        await this.endLocked([intent], reached, { now });
        return { intent, reached };
      }
      if (!options.forceStale && staleness(intent, now) !== undefined) throw staleError(intent, now);
      return { intent: await this.claimed(intent, {}, now, 'order resume') };
    });
  }

  /** Ends every intent of a dead owner that `endingOf` gives an ending (see orders/lifecycle.ts settle); returns them. */
  settleWhere(
    endingOf: (intent: Intent) => Ending | undefined,
    now: number = Date.now(),
    /** `error`: why they ended, kept in their records (a never-sent plan row an edited plan dropped: its reason). */
    o: { out?: string | undefined; finishedBy?: FinishedBy | undefined; error?: CliError | undefined } = {},
  ): Promise<Intent[]> {
    return this.withLock(async () => {
      // Never another machine's: it may be running there, between its delivery and its end.
      const settled = this.read().intents.filter(
        (intent) => !this.held(intent) && otherMachine(intent.owner) === undefined && endingOf(intent) !== undefined,
      );
      // `out`: where the codes reached the user this time (codes get to another file, or stdout), which the records
      // name rather than the --out the order was placed with: a record's file is where its codes are.
      const ended =
        o.out === undefined
          ? settled
          : settled.map((intent) => ({
              ...intent,
              // The file its run was to write stays known, for what that run left beside it (endLocked).
              ...leftBy(intent),
              out: { ...(intent.out ?? { force: false, csvRaw: false }), path: o.out! },
            }));
      await this.endLocked(ended, (intent) => endingOf(intent)!, { now, finishedBy: o.finishedBy, error: o.error });
      if (o.finishedBy !== undefined && settled.length > 0) this.history.mark('finished', now);
      return settled;
    });
  }

  /** Writes the intent's new state durably (its line in the log, fsynced) before the caller takes the next step; for synchronous code. */
  save(intent: Intent, now: number = Date.now()): Intent {
    const next = { ...intent, updatedAt: new Date(now).toISOString() };
    try {
      this.log.appendSync([{ key: next.key, intent: next }]);
    } catch (error) {
      throw journalWriteError(error, this.dir);
    }
    return next;
  }

  /**
   * save() without blocking the event loop: durable when the promise settles, and the caller awaits it before
   * its next step. The rows of a plan save at once, and one fsync of the log serves all of them (log.ts).
   */
  async saveAsync(intent: Intent, now: number = Date.now()): Promise<Intent> {
    const next = { ...intent, updatedAt: new Date(now).toISOString() };
    try {
      await this.log.append([{ key: next.key, intent: next }]);
    } catch (error) {
      throw journalWriteError(error, this.dir);
    }
    return next;
  }

  /**
   * The fact that outcomes reached the user (orders/lifecycle.ts deliver): their records, durable (history.ts
   * recordAll). Unlike a record written as an intent ends, a failure here is an error (exit 8): the intents stay
   * pending, and their next run delivers again. Under the lock, as every outcome's record: prune rewrites the
   * record files whole under it.
   */
  async recordDelivery(records: readonly OrderRecord[], now: number = Date.now()): Promise<void> {
    await this.withLock(async () => {
      try {
        await this.history.recordAll(records);
        if (records.some((record) => record.finishedBy !== undefined)) this.history.mark('finished', now);
      } catch (error) {
        throw localError(error, `cannot write the order record ${this.history.dir}`);
      }
    });
  }

  /**
   * Statuses read of orders that ended (`order show`, `watch`, `codes get`, `order list --refresh`): each record's
   * new line, under the lock as every record is written. A line file is shared by many orders, and another machine
   * appending to it at once over NFS (where O_APPEND is not atomic between machines) could write over an order's
   * record; prune, too, rewrites the files under the lock. `waitMs`: how long a read command waits for it.
   */
  async recordStatuses(records: readonly OrderRecord[], waitMs: number = LOCK_WAIT_MS): Promise<void> {
    if (records.length === 0) return;
    await this.withLock(() => this.history.recordAll(records), waitMs);
  }

  /**
   * The intents are over: each becomes a record of the order history and leaves the journal. The one place an
   * intent ends. Under the lock: another process that read this intent a moment ago must not see it gone,
   * judge its owner dead (this process exits right after) and take over an order that was already delivered.
   * `recorded`: their records were written by recordDelivery, and are not written again.
   */
  end(
    intents: readonly Intent[],
    ending: Ending | ((intent: Intent) => Ending),
    o: { error?: CliError | undefined; now?: number; recorded?: boolean } = {},
  ): Promise<OrderRecord[]> {
    return this.withLock(() => this.endLocked(intents, ending, o));
  }

  /**
   * Every record is on disk (its line fdatasynced, history.ts recordAll) before the first intent leaves the
   * journal; then every intent's end is a line of the log, all made durable by one fsync. A crash in between
   * leaves intents whose records exist: they end again, nothing is lost. Many at once only share the fsyncs.
   */
  private async endLocked(
    intents: readonly Intent[],
    ending: Ending | ((intent: Intent) => Ending),
    o: { error?: CliError | undefined; now?: number; recorded?: boolean; finishedBy?: FinishedBy | undefined } = {},
  ): Promise<OrderRecord[]> {
    const now = o.now ?? Date.now();
    const endingOf = typeof ending === 'function' ? ending : () => ending;
    const finishedBy = typeof o.finishedBy === 'function' ? o.finishedBy : () => o.finishedBy as string | undefined;
    const records = intents.map((intent): OrderRecord => {
      const by = finishedBy(intent);
      return {
        ...recordOf(intent, endingOf(intent)),
        endedAt: new Date(now).toISOString(),
        ...(o.error ? { error: { code: o.error.code, message: o.error.message } } : {}),
        ...(by ? { finishedBy: by } : {}),
      };
    });
    if (!o.recorded) {
      try {
        // A key the user reuses for another order (refused 422, or abandoned before anything was sent) must
        // not erase the record of the order that key placed: a record with an order id is kept. Nor may a later
        // run of the key that placed nothing (refused) erase an `abandoned` record, which says an order may have
        // been placed under it: that record is what tells a replay of it apart from an order placed elsewhere
        // (machine.ts usedHereBefore; a review abandoned a row, met an outage, and had its own order refused).
        // An abandoned record keeps that the key's request went out before (`sent`): a run of the abandoned key
        // killed before it sent again, abandoned in turn, said "never sent", and its charged order was lost (a review).
        // A refusal of the order the API names (insufficient funds, a product gone: refusesTheOrder) does settle it:
        // the server placed nothing under it, or it would have replayed that order (same key, same body: the original
        // response). Kept abandoned, a refused reuse sent the key again all day and met the server's stored refusal
        // each time, after the wallet was topped up (a review). Nothing else does: not the API key (401, 403), a
        // timeout, a request in progress, a rate limit, a key reused for another body (an order IS under it), nor a
        // gateway's or proxy's page (reviews lost charged orders to `{"error":"Not Found"}` and `{"code":404}`).
        const status = o.error?.status;
        const answered =
          status !== undefined &&
          status >= 400 &&
          status < 500 &&
          ![401, 403, 408, 409, 429].includes(status) &&
          refusesTheOrder(o.error?.code ?? '');
        const kept = records.flatMap((record, i) => {
          if (intents[i]!.orderId !== undefined) return [record];
          const before = this.history.get(record.key, scopeOf(intents[i]!));
          if (
            before?.orderId !== undefined ||
            (before?.outcome === 'abandoned' && record.outcome === 'refused' && !answered)
          )
            return [];
          return before?.sent && record.outcome === 'abandoned' ? [{ ...record, sent: true as const }] : [record];
        });
        await this.history.recordAll(kept);
      } catch {
        // The record is a convenience here; the journal is the promise. A failed record never keeps an intent open.
      }
    }
    if (!this.pruned) {
      this.pruned = true;
      try {
        this.history.prune(this.historyDays, now, this.historyProfile);
      } catch {
        // As above: pruning old records never stands in the way of an order.
      }
    }
    if (intents.length === 0) return records;
    // Their ends, one line each, made durable by one fsync; the files they were read from go at compaction.
    try {
      await this.log.append(intents.map((intent) => ({ key: intent.key, ended: intent.createdAt })));
    } catch (error) {
      throw journalWriteError(error, this.dir);
    }
    if (this.log.live.size === 0 && this.log.idle) await this.compactOwn();
    // Their codes reached the user, or never will through them: what their runs that are gone left beside the files
    // they were to write goes (their temporary files hold the codes; a review found them left for good).
    const runs = intents.flatMap(runsGone);
    if (runs.length > 0) sweepLeftBy(runs, (temp) => this.recordsTemp(temp));
    return records;
  }

  /** Every intent this process's log holds has ended: the files of those ended go, then the log (log.ts compactLog). */
  private async compactOwn(): Promise<void> {
    const file = this.log.file;
    if (file === undefined) return;
    try {
      await compactLog(this.dir, { file, live: this.log.live, ended: this.log.ended });
    } catch (error) {
      throw localError(error, `cannot update the order journal ${this.dir}`);
    } finally {
      this.log.reset();
      this.relist();
    }
  }

  /**
   * The logs of processes that are gone become intent files before anything is claimed (under the lock): from
   * then on, an intent in another process's log is that process's, and never taken over from here.
   */
  private async compactDead(): Promise<void> {
    const { logs, failed } = otherLogs(this.dir, this.log.file, this.names());
    unreadableLogs(failed);
    // One with lines it cannot read too: its readable intents become files, and the log is set aside (compactLog).
    const dead = logs.filter((log) => logIsDead(log));
    if (dead.length === 0) return;
    const ended = new Set(this.log.ended);
    for (const log of logs) for (const mark of log.ended) ended.add(mark);
    this.relist();
    for (const log of dead) {
      try {
        await compactLog(this.dir, log, ended);
      } catch (error) {
        throw localError(error, `cannot update the order journal ${this.dir}`);
      } finally {
        this.relist();
      }
    }
  }

  /**
   * The codes of an order that ended here, written since by `codes get` or `order watch` (orders/deliver.ts
   * deliverFetched), noted in its record: an abandoned one becomes delivered by that command (its codes reached the
   * user: the same plan, or the same --idempotency-key, run again reads it and never writes them a second time, and
   * the same order place asks first, as after any order finished in its run's place), and a delivered one whose
   * codes went to no file names the file (order show and order list then say where they are). An adversarial review
   * abandoned an accepted plan row, took its codes by id, and the plan's next run wrote them to a second file with no
   * word; support saw "placed" for an order whose codes were written. Only over the record as it was read: a run of
   * its key since wrote its own.
   */
  noteFetched(
    record: OrderRecord,
    o: { out: string | undefined; by: string },
    now: number = Date.now(),
  ): Promise<void> {
    const { keyId } = record;
    // An older record without its key's id has no scope to look it up in again: left as it is.
    if (keyId === undefined) return Promise.resolve();
    return this.withLock(async () => {
      const current = this.history.get(record.key, scopeOf({ ...record, keyId }));
      if (
        current === undefined ||
        current.orderId === undefined ||
        current.orderId !== record.orderId ||
        (current.endedAt ?? current.updatedAt) !== (record.endedAt ?? record.updatedAt)
      )
        return;
      const at = new Date(now).toISOString();
      const file = o.out !== '-' ? o.out : undefined;
      if (current.outcome === 'abandoned') {
        const { sent: _sent, declined: _declined, ...rest } = current;
        await this.history.recordAll([
          { ...rest, outcome: 'delivered', endedAt: at, updatedAt: at, finishedBy: o.by, out: o.out ?? '-' },
        ]);
        this.history.mark('finished', now);
      } else if (current.outcome === 'delivered' && (current.out === undefined || current.out === '-') && file)
        await this.history.recordAll([{ ...current, out: file, outAt: at, updatedAt: at }]);
      else if (current.outcome === 'delivered' && file) {
        // Another file of the same codes: named beside the first from now on (OrderRecord.copies).
        const copies = current.copies ?? [];
        const same = (path: string): boolean => resolve(path) === resolve(file);
        // Its own file written again (after another order's codes went there, as a hint said): when, so that the file
        // is this order's again (History.codesWrittenTo: the record that wrote it last). A review was told the file
        // held the other order's codes, and that --force would write over them.
        if (same(current.out!)) await this.history.recordAll([{ ...current, outAt: at, updatedAt: at }]);
        else {
          // The newest 20 are kept as the line is written (history.ts clean, MAX_COPIES), each with when it was last
          // written (OrderRecord.copiedAt: the file's last writer, over another order's delivery there).
          const named = copies.find(same);
          await this.history.recordAll([
            {
              ...current,
              copies: named === undefined ? [...copies, file] : copies,
              copiedAt: { ...current.copiedAt, [named ?? file]: at },
              updatedAt: at,
            },
          ]);
        }
      }
    });
  }

  /**
   * A person answered No to sending an abandoned key again (order/place.ts): its record says so (`declined`), once
   * every question is answered. Only while that record is still the key's: a run that sent the key meanwhile (a
   * cron job's, while the question waited) wrote its own, which a stale copy must not cover (a review lost the
   * delivered order from order list that way).
   */
  decline(record: OrderRecord, scope: Scope): Promise<void> {
    return this.withLock(async () => {
      const now = this.history.get(record.key, scopeOf(scope));
      if (
        now?.outcome !== 'abandoned' ||
        now.sent !== true ||
        (now.endedAt ?? now.updatedAt) !== (record.endedAt ?? record.updatedAt)
      )
        return;
      await this.history.recordAll([{ ...now, declined: true }]);
    });
  }

  /**
   * Ends the intent as abandoned; `sent`: its request went out without an answer (now or in an earlier run of the key).
   * One whose codes file is at its --out as its run wrote it (cut before it said so; `order pending`'s "codes in
   * file") is not abandoned but ended as delivered there (`delivered`), as every other command that takes a note over
   * ends it: abandoned, its record lost the file, and the abandon's `codes get` wrote the same codes into a second
   * file that nothing named (an adversarial review). Its own command run again is then asked about as a second order.
   */
  abandon(key: string, now: number = Date.now()): Promise<Intent & { sent: boolean; delivered: boolean }> {
    return this.withLock(async () => {
      const intent = this.find(key);
      if (!intent) throw notFound(key);
      this.assertNotHeld(intent);
      if (this.reached(intent) === 'delivered') {
        // A plan's row is read by its plan's rules (lifecycle.ts settleReached), not as finished in its command's place.
        const by = intent.key.startsWith('plan-') ? undefined : 'order abandon';
        await this.endLocked([intent], 'delivered', { now, finishedBy: by });
        if (by !== undefined) this.history.mark('finished', now);
        return { ...intent, sent: false, delivered: true };
      }
      await this.endLocked([intent], 'abandoned', { now });
      // Its request went out without an answer (now or in an earlier run of the key): the same order placed again
      // reuses its key (recordOf and endLocked: `sent`).
      const sent =
        intent.orderId === undefined &&
        (intent.phase === 'sending' || this.history.get(intent.key, scopeOf(intent))?.sent === true);
      // Marked too when the API had placed it (an order id): the same order placed again is a second order, asked
      // about (recover.ts ofThisRequest: abandonedPlaced).
      if (sent || intent.orderId !== undefined) this.history.mark('abandoned', now);
      return { ...intent, sent, delivered: false };
    });
  }

  private takeOver(existing: Intent, options: BeginOptions, now: number): Promise<Intent> {
    this.assertNotHeld(existing);
    if (!sameOrder(existing, options)) {
      // The journal holds one intent per key: the same key in another scope waits until that one is finished or dropped.
      const elsewhere =
        existing.baseUrl !== options.baseUrl ||
        existing.environment !== options.environment ||
        existing.keyId !== options.keyId;
      const where = elsewhere
        ? `, ${existing.environment} on ${existing.baseUrl}${existing.keyId !== options.keyId ? ' with another API key' : ''}`
        : '';
      // Still interrupted here either way, and it may have been charged: said, with its ways out, before a new key (a
      // review was told only to "use a new key", which left the interrupted order behind).
      throw new UsageError(
        `the idempotency key ${existing.key} already belongs to another order (${unitsOf(existing.quantity, existing.productId)}${where}), still interrupted: ${neverSent(existing) ? 'it was never sent' : 'it may have been charged'}`,
        {
          code: 'idempotency_key_reused',
          hint: elsewhere
            ? `finish it first (giftcodes order resume ${existing.key}) or drop it (giftcodes order abandon ${existing.key}), or use a new key`
            : `finish it as it was (the same command with ${unitsOf(existing.quantity, existing.productId)}, or giftcodes order resume ${existing.key}) or drop it (giftcodes order abandon ${existing.key}); this order wants a new key`,
        },
      );
    }
    if (staleness(existing, now) !== undefined) throw staleError(existing, now);
    return this.claimed(existing, options, now);
  }

  private assertNotHeld(intent: Intent): void {
    if ((isAlive(intent.owner) && !isSameProcess(intent.owner, currentOwner())) || this.elsewhere.has(intent.key)) {
      throw new UsageError(
        `another giftcodes process (pid ${intent.owner.pid}) is working on the order with key ${intent.key}`,
        {
          code: 'intent_busy',
          hint: 'wait for it to finish, then check: giftcodes order pending',
        },
      );
    }
  }

  private claimed(
    intent: Intent,
    options: Pick<BeginOptions, 'wait' | 'out'>,
    now: number,
    by: Intent['resumedBy'] = undefined,
  ): Promise<Intent> {
    // In this process's log from now on; the file (or hand-made copy) it was read from goes when the log is compacted.
    const { resumedBy: _earlier, ...rest } = intent;
    return this.saveAsync(
      {
        ...rest,
        owner: currentOwner(),
        // Taken over from an earlier run: what another run that meets it held tells apart from a first placing.
        resumedAt: new Date(now).toISOString(),
        ...(by !== undefined ? { resumedBy: by } : {}),
        // What the run that began it was to do, kept at the first takeover (Intent.origin).
        origin: intent.origin ?? {
          ...(intent.out !== undefined ? { out: intent.out } : {}),
          ...(intent.wait !== undefined ? { wait: intent.wait } : {}),
        },
        ...(options.wait !== undefined ? { wait: options.wait } : {}),
        ...(options.out !== undefined ? { out: options.out } : {}),
        ...leftBy(intent),
      },
      now,
    );
  }

  // Keys are the user's to choose: hashed into safe file names. Remembered: a plan's row asks for its key's four times.
  private readonly fileOf = remembered(100_000, (key: string) => intentFile(this.dir, key));

  /** A turn under the lock, which this process keeps a moment after (lock.ts LINGER_MS): a plan's next row comes within it. */
  private withLock<T>(fn: () => T | Promise<T>, waitMs: number = LOCK_WAIT_MS): Promise<T> {
    return withDirLock(
      this.dir,
      async () => {
        this.sweep();
        await this.compactDead();
        return fn();
      },
      waitMs,
      { linger: true },
    );
  }
}

/** An interrupted order's codes went to a file: never written into a second one (docs/exactly-once.md). */
function codesDelivered(intent: Intent): UsageError {
  return new UsageError(
    `the interrupted order ${intent.orderId} for ${unitsOf(intent.quantity, intent.productId)} had already reached you: its codes were written to ${intent.out!.path}. They are never written into a second file, and nothing was charged now`,
    {
      code: 'codes_delivered',
      // A key the user gave names this one order: the same command again is refused (a third review, stop 78, ran it
      // as this hint said, twice).
      hint: `to write them again on purpose: giftcodes codes get ${intent.orderId} --out CODES_FILE; to place a new order for ${unitsOf(intent.quantity, intent.productId)}: run the same command again${intent.keyGiven === true ? ` with another --idempotency-key (${intent.key} names this one)` : ''}`,
    },
  );
}

/** A record of a key the API answered with an order another config directory or machine placed under it. */
function placedElsewhere(record: OrderRecord): boolean {
  return record.outcome === 'refused' && record.error?.code === 'order_placed_elsewhere';
}

/** A key whose order another config directory or machine placed (its record here: refused, order_placed_elsewhere). */
function placedElsewhereBefore(record: OrderRecord): CliError {
  // Answered while journal files here could not be read (machine.ts placedElsewhere): it may be this directory's own.
  // The order is named in the message it was refused with (a refused record keeps no order id).
  const orderId = record.orderId ?? /with order (\S+?),/.exec(record.error?.message ?? '')?.[1];
  const own = orderId !== undefined && mayBeOwn(record.error?.message) ? unreadableOwnHint(orderId) : undefined;
  return new CliError(
    ExitCode.api,
    `the key ${record.key} was answered at ${record.endedAt ?? record.updatedAt} with an order placed under it elsewhere (another config directory or machine${own ? UNREADABLE_OWN : ''}), not from here: a key names one order, so it is never sent from here again, and nothing was sent now`,
    {
      code: 'order_placed_elsewhere',
      ...(orderId !== undefined ? { orderId } : {}),
      hint:
        own ??
        `see that order where it was placed; to order ${unitsOf(record.quantity, record.productId)} here too, as a second order: ${record.key.startsWith('plan-') ? `${placeCommand(record)} (never a --batch of its own, which orders every row again)` : 'order place without --idempotency-key (or with a new one)'}`,
    },
  );
}

/** A key the user chose that already placed an order that reached them. */
function keyDelivered(key: string, orderId: string | undefined, out: string | undefined): UsageError {
  return new UsageError(
    `the idempotency key ${key} already placed order ${orderId ?? '(unknown)'}, which reached you${out && out !== '-' ? ` (codes in ${out})` : ''}; a key names one order, so nothing was sent`,
    {
      code: 'idempotency_key_used',
      hint: `see it with: giftcodes order show ${orderId ?? key}; for a new order, use a new key (or give none, and one is made)${out && out !== '-' && orderId ? `; its codes again: giftcodes codes get ${orderId} --out CODES_FILE` : ''}`,
    },
  );
}

/**
 * A given key used under another scope of this environment (another address spelling, a rotated key): its order
 * placed there, or its request sent there without an answer and abandoned.
 */
function keyUsedElsewhere(r: OrderRecord): UsageError {
  if (r.orderId === undefined)
    return new UsageError(
      `the idempotency key ${r.key} was sent at ${r.baseUrl} and abandoned there without an answer: the server sees one key whichever way its address is written, and its answer would read as another run's order; nothing was sent`,
      {
        code: 'idempotency_key_used',
        hint: `send it where it went, which gives that order if it was placed and a new one if not: ${placeCommand(r)} --idempotency-key ${r.key} --base-url ${r.baseUrl}`,
      },
    );
  return new UsageError(
    `the idempotency key ${r.key} already placed order ${r.orderId} at ${r.baseUrl}${r.outcome === 'abandoned' ? ' (abandoned there after the API had placed it)' : ''}; the server sees one key whichever way its address is written, so nothing was sent`,
    {
      code: 'idempotency_key_used',
      hint: `its codes: giftcodes codes get ${r.orderId} --out CODES_FILE --base-url ${r.baseUrl}; for a new order, use a new key (or give none, and one is made)`,
    },
  );
}

/**
 * A key abandoned after its request went out without an answer, over a day ago: the server may have forgotten it. Or
 * one dated ahead of this machine's clock (`future`: the clock went back since), whose age cannot be told: the same
 * command without a key would try it again, so the way to a new order is a key of its own.
 */
/** How staleAbandoned says a key dated ahead of the clock; a plan's hint reads its row's error for it (plan.ts). */
export const AHEAD_OF_CLOCK = "ahead of this machine's clock (it was moved since), so how long ago cannot be told";

export function staleAbandoned(record: OrderRecord, stale: 'old' | 'future'): UsageError {
  const when = record.keySince ?? record.createdAt;
  const what = unitsOf(record.quantity, record.productId);
  const age = stale === 'old' ? 'more than 24 hours ago' : AHEAD_OF_CLOCK;
  const anew = record.key.startsWith('plan-')
    ? `order the row by itself: giftcodes order place --env ${record.environment} --product ${record.productId} --quantity ${record.quantity} (the plan does not send this key again)`
    : stale === 'old'
      ? 'give a new key (or none, and one is made)'
      : 'place it under a key of its own: the same command with --idempotency-key NEW_KEY';
  return new UsageError(
    `the key ${record.key} was first sent ${when} and abandoned without an answer, ${age}: the server may have forgotten it, and sending it again would place a second order if the first went through; nothing was sent`,
    {
      code: 'stale_intent',
      hint: `look in the provider's dashboard for an order of ${what} placed about ${when}: if there is one, it is this key's (its codes: giftcodes codes get ORDER_ID --out CODES_FILE); if none, ${anew}`,
    },
  );
}

/** A key sent for another request and abandoned before its answer: the server holds it for that request's body. */
function keySentForAnother(r: OrderRecord): UsageError {
  const what = unitsOf(r.quantity, r.productId);
  return new UsageError(
    `the idempotency key ${r.key} was sent at ${r.keySince ?? r.createdAt} for ${what}, abandoned before the API answered (that order may have been placed); a key names one request, so it is not sent for another, and nothing was sent`,
    {
      code: 'idempotency_key_used',
      hint: `for this order, use a new key (or give none, and one is made); to send that one's request again under its key (that order if it was placed, never both): giftcodes order place --env ${r.environment} --product ${r.productId} --quantity ${r.quantity} --idempotency-key ${r.key}`,
    },
  );
}

/** A key whose order the API placed and a person abandoned here: that order is the key's, never a new one. */
function keyAbandoned(key: string, orderId: string, at: string): UsageError {
  return new UsageError(
    `the idempotency key ${key} already placed order ${orderId}, abandoned here at ${at} after the API had placed it; a key names one order, so nothing was sent`,
    {
      code: 'idempotency_key_used',
      hint: `its codes: giftcodes codes get ${orderId} --out CODES_FILE; for a new order, use a new key (or give none, and one is made)`,
    },
  );
}

/** An interrupted intent of another machine sharing this config directory: its pid cannot be checked from here. */
function keyFileUnreadable(key: string, file: string): LocalError {
  return new LocalError(
    `the journal's file of the key ${key}, ${file}, cannot be read: it may be an order already sent under this key, which sending the key again would not deliver here; nothing was sent`,
    {
      code: 'journal_unreadable',
      hint: `see what it holds (an order id: giftcodes order show ORDER_ID, and its codes with giftcodes codes get ORDER_ID --out CODES_FILE); then move the file out of ${dirname(file)}`,
    },
  );
}

function onOtherMachine(intent: Intent): UsageError {
  return new UsageError(
    `the interrupted order with key ${intent.key} (${unitsOf(intent.quantity, intent.productId)}) belongs to another machine (${otherMachine(intent.owner)}) sharing this config directory, which may still be running it; nothing was sent`,
    {
      code: 'intent_other_machine',
      hint: `once you know that host is not running it: giftcodes order resume ${intent.key}`,
    },
  );
}

function notFound(key: string): UsageError {
  return new UsageError(`no unresolved order with the key ${key}`, {
    code: 'intent_not_found',
    hint: 'list them with: giftcodes order pending',
  });
}

/** Old or future-dated: the server may have forgotten the key, or the clock moved; a person decides. */
export function staleError(intent: Intent, now: number = Date.now()): UsageError {
  const why =
    staleness(intent, now) === 'old'
      ? `was started ${intent.createdAt}, more than 24 hours ago: the server may have forgotten its key`
      : `is dated ${intent.createdAt}, in the future (more than 5 minutes ahead of this clock): it was written under another clock`;
  // What --force-stale does depends on how far it got (one the API answered, its order id known, is never stale: it
  // is only read): a request never sent is sent once; one sent without an answer is sent again, and a server that has
  // forgotten its key places a second order if the first went through. The API cannot be asked by key, so that case
  // says so (a review followed "check the server for it" with no way to, resumed it, and was charged twice under "no
  // second charge").
  const hint = neverSent(intent)
    ? `it was never sent: send it now with giftcodes order resume ${intent.key} --force-stale, or drop it with: giftcodes order abandon ${intent.key}`
    : `it was sent without an answer, and the API cannot be asked by key: look in the provider's dashboard for an order of ${unitsOf(intent.quantity, intent.productId)} placed about ${intent.createdAt}; if there is one, drop this with giftcodes order abandon ${intent.key}; if none, giftcodes order resume ${intent.key} --force-stale sends it again (a second order if the first went through after all)`;
  return new UsageError(
    `the interrupted order for ${unitsOf(intent.quantity, intent.productId)} (key ${intent.key}) ${why}, so it is not resumed silently`,
    { code: 'stale_intent', hint },
  );
}

/** A write or fsync of the journal's log failed: exit 8, the reason in words and its errno (the log is not trusted again). */
function journalWriteError(error: unknown, dir: string): CliError {
  return writeFailure(error, dir, 'order journal', 'journal_unwritable');
}

/**
 * A log this process cannot read (permissions, an I/O error) may hold the only note of a charged order: no
 * order is begun, claimed or taken over without it, and `order pending` lists it.
 */
function unreadableLogs(failed: OtherLogs['failed']): void {
  const first = failed[0];
  if (!first) return;
  const reason =
    first.error.code === 'EACCES' || first.error.code === 'EPERM'
      ? 'permission denied'
      : (first.error.code ?? first.error.message);
  throw new LocalError(`cannot read the order journal's log ${first.file}: ${reason}`, {
    code: 'journal_unreadable',
    hint: 'it may hold an order placed earlier: fix its permissions (as the user who runs giftcodes), then run the command again',
    cause: first.error,
  });
}

function localError(error: unknown, message: string): CliError {
  if (error instanceof CliError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  const reason =
    code === 'ENOSPC'
      ? 'no space left on the device'
      : code === 'EROFS'
        ? 'read-only file system'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code;
  return new LocalError(`${message}: ${reason}`, {
    code: 'journal_unwritable',
    hint: 'free space or fix the permissions of the config directory, then run the command again',
    cause: error,
  });
}

function leftBy(intent: Intent): Pick<Intent, 'leftBy'> {
  const runs = runsGone(intent);
  return runs.length > 0 ? { leftBy: runs } : {};
}

/** A file's size and modification time, to tell whether it changed since: undefined when it is not there. */
function stampOf(file: string): string | undefined {
  const stat = statSync(file, { throwIfNoEntry: false, bigint: true });
  return stat && `${stat.size}:${stat.mtimeNs}`;
}
