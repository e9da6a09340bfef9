// Codes delivery, the one path: every verb that writes an order's codes (codes get, order watch, and through
// the order machine order place, resume and a plan's rows) checks its target, writes the codes and hands them
// over here, so a format or a layer is added once (docs/architecture.md, "Codes delivery"). The step's
// failpoints fire here, in this order: codes.tmp-written (the complete temporary file), codes.identity-written
// (an intent's file identity durable, before the rename), codes.committed (renamed, for an intent),
// codes.renamed (the codes are where the user asked: a file in place, or stdout written in full).
// What reached the user is then made durable by lifecycle.ts (deliver, then settle).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ApiClient } from '../api/client.js';
import { LocalError, UsageError, type CliError } from '../errors.js';
import { formatFor, type ExportFormat } from '../export/format.js';
import type { OutLock } from '../export/out-lock.js';
import { failpoint, failpointSync } from '../failpoints.js';
import { deliveredFile, fileIdentity, recordedFileState } from '../journal/codes-file.js';
import { scopeOf, writtenAt, type CodesWritten, type OrderRecord } from '../journal/history.js';
import type { FileIdentity, Intent, OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { anotherLiveRun, runsGone, withRun } from '../journal/owner.js';
import type { Io } from '../output/io.js';
import { counted, firstOf, grouped, holdsCodesOf, unitsOf } from '../output/words.js';
import { deliver, sayUnprinted, settle } from './lifecycle.js';

export interface CodesDelivery {
  api: ApiClient;
  orderId: string;
  /** Where, in which format: '-' is stdout (data only, no atomicity). */
  out: OutSpec;
  /** How many codes the order is for: fewer or more read is exit 5 and no file. */
  expected?: number | undefined;
  /**
   * The caller has judged an existing file's length already (codes get, before its wait): not read again here. It
   * let one through that is too short only where the order was read as failed, or could not be read, so that the
   * API's answer (the order failed, another key) is the one said.
   */
  lengthJudged?: boolean;
  io: Io;
  signal: AbortSignal;
  /** The target's lock, when the caller took it before the charge and holds it to the end of the run. */
  lock?: OutLock | undefined;
  /** Whether a dead run's temporary file is recorded in the journal as a finished codes file (kept for that order's next run). */
  recordedTemp?: ((temp: string) => boolean) | undefined;
  /**
   * The out_exists refusal checkCodesTarget kept: the file there is taken as this order's earlier delivery
   * when it holds exactly the codes this run would write (a run killed right after its rename), else refused.
   */
  existing?: unknown;
  /**
   * The order whose codes this machine recorded writing to a path, if any, and whether the file changed since
   * (History.codesWrittenTo): an existing file refused is said as that order's, as `order place` says it, so that
   * --force is not taken as the way on.
   */
  heldBy?: ((path: string) => CodesWritten | undefined) | undefined;
  /** An intent's codes (order place, resume, a plan's row): the file is recorded around its rename, and a short stdout says how short. */
  intent?: IntentFile | undefined;
}

/** How an intent records its codes file: the identity before the rename, the mark that it happened after. */
export interface IntentFile {
  /** The quantity ordered. */
  quantity: number;
  /** The complete, fsynced temporary file: its identity made durable before it takes the target's place. */
  recordFile(temp: string, count: number, format: ExportFormat): void;
  /** The file took its place. */
  recordRenamed(path: string): Promise<void>;
}

export interface DeliveredCodes {
  /** The absolute path written, or '-'. */
  path: string;
  count: number;
  format: ExportFormat;
  /** The file was there already, holding exactly these codes, and was left as it was. */
  already?: boolean;
}

/**
 * Before anything is waited for or fetched: a target that cannot be written is refused at once; an existing
 * file (out_exists) is returned, to be compared by deliverCodes (`existing`) once the codes can be read.
 */
export async function checkCodesTarget(out: string, force: boolean): Promise<unknown> {
  if (out === '-') return undefined;
  const [{ checkOutTarget }, { outExists }] = await Promise.all([
    import('../export/out-target.js'),
    import('./recover.js'),
  ]);
  return outExists(() => checkOutTarget(out, force));
}

/** The codes of one order to their target, once: see the head of this file for the steps and their failpoints. */
export async function deliverCodes(o: CodesDelivery): Promise<DeliveredCodes> {
  const common = {
    api: o.api,
    orderId: o.orderId,
    out: o.out.path,
    format: o.out.format,
    csvRaw: o.out.csvRaw,
    encryptTo: o.out.encryptTo,
    io: o.io,
    signal: o.signal,
  };
  if (o.existing !== undefined) {
    const { sameCodesAlready } = await import('./recover.js');
    // Compared with the codes as an export reads them, the order's quantity checked: a file holding what a short
    // list gave (`codes get --format jsonl > f` ended exit 5, its lines written) was said to hold the order's codes
    // ("already holds the 6 codes", exit 0). When the codes cannot be read, that failure is the answer, as it would
    // be without the file: it was the refusal (exit 2, "pass --force"), which sent a person after the file for a
    // 503, and kept a 404 from asking with the profile's other key (codes get, fromOtherKey).
    const short = o.lengthJudged ? undefined : await shortFileRefusal(o.out.path, o.out.format, o.expected, o.orderId);
    if (short) throw heldRefusal(o) ?? short;
    const same = await sameCodesAlready({ ...common, expected: o.expected });
    if (!same) throw heldRefusal(o) ?? o.existing;
    await failpoint('codes.renamed');
    return { path: same.path, count: same.count, format: same.format, already: true };
  }
  const { exportCodes } = await import('../export/write.js');
  const intent = o.intent;
  let recorded = false;
  const written = await exportCodes({
    ...common,
    expected: o.expected,
    force: o.out.force,
    ...(o.lock ? { lock: o.lock } : {}),
    ...(o.recordedTemp && o.out.path !== '-' ? { recordedTemp: o.recordedTemp } : {}),
    beforeCommit: (temp, count) => {
      failpointSync('codes.tmp-written');
      if (!intent) return;
      intent.recordFile(temp, count, formatFor(o.out.path, o.out.format));
      recorded = true;
      failpointSync('codes.identity-written');
    },
  });
  if (recorded) {
    await failpoint('codes.committed');
    await intent!.recordRenamed(written.path);
  }
  if (written.path === '-' && (written.readerGone === true || (intent && written.count < intent.quantity)))
    throw await notDelivered(o, written);
  await failpoint('codes.renamed');
  return { path: written.path, count: written.count, format: written.format };
}

/**
 * For a verb that finishes an interrupted `order place --out` of this order by writing its codes to a file (codes get
 * --out, order watch --out): once its temporary file is complete, the note takes this file as its own (its `out`, as
 * a takeover by another --out does) and records it before the rename, marked renamed after, as order place records its
 * own (machine.ts writeCodes). Killed right after the rename, the codes were in the file and no note knew: `order
 * resume` looped on "exists", or wrote the order's own --out too, and another --out wrote the same codes into a second
 * file without a word; and where the note kept its own --out, every later word named that file, which was never
 * written (reviews, stop 78). A note a live run is driving is its run's; one already reached needs nothing; one
 * printed to stdout has no file to find. `takeBack` puts the note back as it was (a failed export): left, its record
 * reads as codes moved away.
 */
export function recordingIn(
  journal: Journal,
  where: { orderId: string; baseUrl: string; out: OutSpec },
  now: () => number,
): { intent: IntentFile; takeBack(): void } | undefined {
  // A note whose recorded file is neither in place nor in its temporary file (moved away after a rename no mark says
  // happened) keeps that record: its codes may be with the user, which the next run must still be told.
  const intents = journal
    .read()
    .intents.filter(
      (i) =>
        i.orderId === where.orderId &&
        i.baseUrl === where.baseUrl &&
        i.out !== undefined &&
        i.out.path !== '-' &&
        !anotherLiveRun(i.owner) &&
        journal.reached(i) === undefined &&
        recordedFileState(i)?.state !== 'unaccounted',
    );
  if (intents.length === 0) return undefined;
  // An earlier run's file that never reached its rename is taken back first, as order place takes back its own
  // (machine.ts writeCodes): still recorded, this export's sweep would keep its temporary file, and the new record
  // would then leave it behind, hidden, holding every code (the chaos run's `hidden`).
  // This run too is named among the note's runs gone, beside its file, before its export: killed, it leaves its
  // temporary file there (every code) and its lock, which whatever run ends the order then sweeps (a third review,
  // stop 78: killed before its identity was written, its temporary file was left for good by every next step).
  const here = { path: where.out.path, pid: process.pid };
  const before = intents.map((i) =>
    journal.save(
      {
        ...i,
        ...(recordedFileState(i) ? { files: [] } : {}),
        leftBy: withRun(i.leftBy ?? [], here),
      },
      now(),
    ),
  );
  let saved = before;
  let identity: FileIdentity | undefined;
  // What the note's dead run left beside its own --out (its temporary file, its lock) is still swept when the order
  // ends, which looks beside the note's `out` and its runs gone (intent.ts leftBy): that run is named there. The
  // command that began it is kept (Intent.origin): the same command run again is not this run's variant (its words
  // named an `order place --out` of this file that never ran, a third review).
  const write = (files: FileIdentity[]): void => {
    saved = saved.map((i, at) =>
      journal.save(
        {
          ...i,
          leftBy: runsGone(before[at]!),
          origin: i.origin ?? { ...(i.out ? { out: i.out } : {}), ...(i.wait !== undefined ? { wait: i.wait } : {}) },
          out: where.out,
          files,
        },
        now(),
      ),
    );
  };
  return {
    intent: {
      quantity: intents[0]!.quantity,
      recordFile: (temp, count, format) => {
        identity = { ...fileIdentity(temp, where.orderId, where.out.path), count, format };
        write([identity]);
      },
      recordRenamed: async () => write([{ ...identity!, renamed: true }]),
    },
    takeBack: () => {
      if (identity === undefined || saved.some((i) => deliveredFile(i, where.out.path) !== undefined)) return;
      try {
        saved = before.map((i) => journal.save(i, now()));
      } catch {
        // recordedFileState then finds the file unaccounted: the next run stops rather than write the codes twice.
      }
    },
  };
}

/** Each interrupted note whose recorded codes file is at `path`, there unchanged, with that file. */
function notesRecording(journal: Journal, path: string): { note: Intent; file: FileIdentity }[] {
  return journal.read().intents.flatMap((note) => {
    const file = deliveredFile(note, path);
    return file ? [{ note, file }] : [];
  });
}

/**
 * The file an interrupted note of this order records as its codes, there unchanged (a codes get or order watch killed
 * after its rename, recordingIn): its next run takes it as delivered. An encrypted one cannot be compared with the
 * codes (sameCodesAlready), and was refused as any file there, "pass --force" (a second review, stop 78).
 */
export function recordedIn(
  journal: Journal,
  orderId: string,
  path: string,
  encryptTo: readonly string[] = [],
): FileIdentity | undefined {
  // Encrypted to the same recipients only: one encrypted to others is no delivery to these (a third review, stop 78:
  // a file for another key was "already holds the codes", and the recipient asked for could not open it).
  const wanted = [...encryptTo].sort().join(' ');
  return notesRecording(journal, path).find(
    ({ note }) => note.orderId === orderId && [...(note.out?.encryptTo ?? [])].sort().join(' ') === wanted,
  )?.file;
}

/**
 * The order whose codes an interrupted note records in `path`, there unchanged, other than `orderId`: a --force over it
 * leaves that order's codes in no file while its note says they reached the user (a third review, stop 78).
 */
export function noteHolding(journal: Journal, path: string, orderId: string): Intent | undefined {
  return notesRecording(journal, path).find(({ note }) => note.orderId !== undefined && note.orderId !== orderId)?.note;
}

/**
 * That note's record of the file, dropped once the file was written over: kept, the note still read as having reached
 * the user there, and `order pending` or the cron recipe's `order resume --all` closed it so (a fourth review, stop
 * 78). Its next run then meets the file as another order's, and says so.
 */
export function dropNoteFile(journal: Journal, note: Intent, path: string): void {
  const now = journal.read().intents.find((i) => i.key === note.key);
  if (now === undefined) return;
  journal.save({ ...now, files: (now.files ?? []).filter((f) => f.path !== path) });
}

/**
 * The reader of stdout went away (`| head`) before every code was written: the codes did not all reach the
 * user, so they are not delivered (exit 8, one line), and an interrupted `order place` of the order stays pending.
 */
async function notDelivered(
  o: CodesDelivery,
  written: { count: number; readerGone?: boolean | undefined },
): Promise<CliError> {
  if (!o.intent) {
    const { readerGoneError } = await import('../export/write.js');
    return readerGoneError(o.orderId);
  }
  // What is known: how many codes were handed to the pipe, not how many its reader read before it closed.
  const what =
    written.readerGone === true
      ? `: the reader closed the pipe; ${written.count} of ${o.intent.quantity} codes were handed to it, how many it read is not known`
      : ` (${written.count} of ${o.intent.quantity} written)`;
  return new LocalError(`could not write the codes of order ${o.orderId} to standard output${what}`, {
    code: 'output_failed',
  });
}

/**
 * An existing --out file that holds another order's codes by this machine's record: refused naming that order (exit
 * 2). It read "exists; pass --force to overwrite it", and --force wrote over the codes of the quickstart's order, whose
 * record still named the file (a person's-day review followed watch's `codes get … --out codes.csv` hint).
 */
/**
 * An existing --out file too short to hold the order's codes (recover.ts tooShortForCodes): refused before a page is
 * fetched, with what it holds (exit 2, out_exists, as any file there).
 */
export async function shortFileRefusal(
  path: string,
  format: string | undefined,
  expected: number | undefined,
  orderId: string,
): Promise<UsageError | undefined> {
  const { tooShortForCodes } = await import('./recover.js');
  const kind = formatFor(path, format as ExportFormat | undefined);
  const lines = tooShortForCodes(path, kind, expected);
  if (lines === undefined) return undefined;
  const holds = lines === 0 ? 'is empty' : `holds ${counted(lines, 'line')}`;
  return new UsageError(
    `${resolve(path)} exists and ${holds}, ${expected === undefined ? 'not the codes' : `too few for the ${grouped(expected)} codes`} of order ${orderId} (${kind}): nothing was fetched or written`,
    { code: 'out_exists', hint: 'write them to another --out file, or pass --force to replace it' },
  );
}

function heldRefusal(o: CodesDelivery): UsageError | undefined {
  const held = o.heldBy?.(o.out.path);
  if (held === undefined) return undefined;
  // This order's own file, changed since it was written there (codes marked sold by hand): "exists, pass --force" wrote
  // the codes back without the marks (a third review). Said as its own, with what --force would lose.
  if (held.record.orderId === o.orderId)
    return held.changed
      ? new UsageError(`${holdsCodesOf(o.out.path, held.record, true, held.copy)}; nothing was written`, {
          code: 'out_exists',
          hint: `--force writes them there again as the API has them, losing what changed in the file; another --out file keeps both`,
        })
      : undefined;
  return new UsageError(`${holdsCodesOf(o.out.path, held.record, held.changed, held.copy)}; nothing was written`, {
    code: 'out_exists',
    hint: `write the codes of ${o.orderId} to another --out file; --force would write over that order's codes`,
  });
}

/** A key journal.begin made (randomUUID), for an intent an older version wrote without `keyGiven`. */
const GENERATED_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * For the verbs that charge nothing (codes get, order watch): the order's codes (or the order itself) reached
 * the user through `print`, which is the delivery of every interrupted intent of that order on that server.
 * An interrupted `order place` finished this way is said: its hint had said to run the same command again, which
 * now places a second order (a review peeked at the codes, ran it again, and was charged twice). A plan's row is
 * not: the same plan again reads the row's record and orders nothing.
 */
export async function deliverFetched(
  io: Io,
  journal: Journal,
  print: () => void | Promise<void>,
  delivery: {
    orderId: string;
    baseUrl: string;
    codes: boolean;
    ending?: 'failed';
    out?: string;
    by: string;
    /** The record the order was found by (orders/ref.ts), whose codes these are: noted there (Journal.noteFetched). */
    record?: OrderRecord | undefined;
  },
): Promise<void> {
  await deliver(io, journal, print, delivery);
  const settled = await settle(journal, delivery);
  if (delivery.ending === 'failed') return;
  // The record as it is now: the run that placed the order may have delivered it while this one waited.
  const found = delivery.record;
  const record =
    found?.keyId !== undefined
      ? (journal.history.get(found.key, scopeOf({ ...found, keyId: found.keyId })) ?? found)
      : found;
  const ours = record?.orderId === delivery.orderId && record.baseUrl === delivery.baseUrl;
  if (delivery.codes) {
    // Only while this order wrote the file last (History.writtenOver): one another order's codes were written over
    // since (`--force`), or a copy of another order's went into, holds those (a third review: told "both hold the
    // same codes", a person kept that file and handed out the other order's codes twice).
    const elsewhere = (path: string | undefined, since?: string): path is string =>
      path !== undefined &&
      path !== '-' &&
      path !== delivery.out &&
      existsSync(path) &&
      (record === undefined || journal.history.writtenOver(path, since, record.key) === undefined);
    // Written before by the run that placed it (its record names the file, still there), or being written right now
    // by a live run of it (another terminal's order place --out, waiting for the order): two files of the same codes
    // were made without a word (an adversarial review).
    // Every other file this machine wrote them to, each still there (a person's day met six copies, one named).
    if (ours && record.outcome === 'delivered') {
      const others = (record.copies ?? []).filter((copy) => elsewhere(copy, record.copiedAt?.[copy]));
      const when = `(written there at ${writtenAt(record)})`;
      const first = elsewhere(record.out, writtenAt(record)) ? record.out : undefined;
      // The first file alone: `in X too (written there at T)`; with others: `in X (written there at T); Y; Z too`.
      const where =
        others.length === 0
          ? `${first} too ${when}`
          : `${firstOf([...(first ? [`${first} ${when}`] : []), ...others], 5)} too`;
      const files = (first ? 1 : 0) + others.length;
      // Printed (no --out, or `-`), this run's codes are no file: "all 3 files" counted the terminal as one (a
      // person's day).
      const printed = delivery.out === undefined || delivery.out === '-';
      const same = printed
        ? `${files === 1 ? 'that file holds' : `those ${files} files hold`} the same codes as printed here`
        : files === 1
          ? 'both hold the same codes'
          : `all ${files + 1} files hold the same codes`;
      if (files > 0)
        io.caution(`the codes of order ${delivery.orderId} are in ${where}: ${same}: hand out one of them`);
    }
    const { isAlive } = await import('../journal/owner.js');
    const live = journal
      .read()
      .intents.find(
        (i) =>
          i.orderId === delivery.orderId &&
          i.baseUrl === delivery.baseUrl &&
          i.out !== undefined &&
          i.out.path !== '-' &&
          i.out.path !== delivery.out &&
          isAlive(i.owner),
      );
    if (live)
      io.caution(
        `another giftcodes run (pid ${live.owner.pid}) is writing the codes of order ${delivery.orderId} to ${live.out!.path}: both files will hold the same codes: hand out one of them`,
      );
    if (ours) await journal.noteFetched(record, { out: delivery.out, by: delivery.by });
  }
  // An interrupted order this run finished, printed through a --query that holds no id of it (`order watch KEY --query
  // status`): said with its id, as order place says its own (lifecycle.ts deliver; a third review, stop 78).
  if (settled.length > 0) sayUnprinted(io, [delivery.orderId], 'finished');
  for (const intent of settled.filter((i) => !i.key.startsWith('plan-'))) {
    // A key the user chose names one order: that command again is refused. Told by the intent (a key chosen with
    // uuidgen looks like a made one: a review), else, for an older intent, by the key's shape.
    const again = !(intent.keyGiven ?? !GENERATED_KEY.test(intent.key))
      ? 'so that order place run again places a second order'
      : 'so that order place run again with its --idempotency-key is refused (the key named one order), and without it places a second order';
    io.say(
      `this finished the interrupted order place of ${unitsOf(intent.quantity, intent.productId)} (key ${intent.key}, started ${intent.createdAt}): its ${delivery.codes ? 'codes' : 'order'} reached you here, ${again}`,
    );
    // A codes file of its took its place before it was interrupted (order pending: "codes in file"), and is still
    // there: a second file of the same codes was written without a word of the first (a review). Written by the order
    // place, or by a codes get or order watch finishing it (a third review read "that order place wrote them there" of
    // a file a codes get had written). Marked renamed, or
    // not yet (killed between the rename and its mark, codes.committed) but holding the identity recorded for it.
    const first = delivery.codes
      ? intent.files?.find(
          (f) =>
            f.orderId === delivery.orderId &&
            f.path !== delivery.out &&
            existsSync(f.path) &&
            (f.renamed === true || deliveredFile(intent, f.path) !== undefined),
        )
      : undefined;
    if (first)
      io.caution(
        `the codes of order ${delivery.orderId} are in ${first.path} too, written there by an earlier run that was interrupted before its end was recorded (order place, or codes get or order watch finishing it). Both files hold the same codes: hand out one of them`,
      );
  }
}
