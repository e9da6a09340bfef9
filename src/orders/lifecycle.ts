// The order lifecycle in one table: every step an intent may take, where it is written, the failpoint fired
// once it is durable, and how the intent ends. The machine (machine.ts) moves only along these edges, and
// every path that gets an order to the user goes through the two functions below it: deliver (the outcome
// reached the user: a durable fact), then settle (the intent leaves the journal; the one place it does).
//
//   prepared ──► sending ──► accepted ──► delivered ──► resolved
//      ▲ disarm ────┘           │   ▲          (the record)  (the intent ended)
//      │            │           │   │
//      └────────────┴──► refused│   └ status, codes file identity
//                               └──► failed ──► resolved
//   abandoned: from any phase, by `order abandon`
//   A plan's new row, sent as soon as it is ready, is written `sending` at once (Journal.begin's `armed`): the
//   one durable line `prepared` and then `sending` were, with both steps' failpoints fired once it is on disk.
import { existsSync } from 'node:fs';
import type { Failpoint } from '../failpoints.js';
import { failpoint } from '../failpoints.js';
import { asLocalError, CliError, isCliError, LocalError } from '../errors.js';
import { recordOf, type OrderRecord } from '../journal/history.js';
import type { Intent, Phase } from '../journal/intent.js';
import type { Ending, Journal } from '../journal/journal.js';
import type { Io } from '../output/io.js';
import { pinnedHint } from '../output/pinned-hint.js';

/** A step of the lifecycle: a phase written in the intent's state (journal/log.ts), or one of its endings. */
export type Step = Phase | 'failed' | 'resolved' | 'refused' | 'abandoned';

export interface StepRule {
  /** The steps it may move to (itself: a new status or codes file recorded in the same phase). */
  readonly to: readonly Step[];
  /** What is made durable: the intent's state, the order record (history/), or the intent's end (a line of the journal's log each). */
  readonly writes: 'intent' | 'record' | 'removal';
  /** Fired once the write is durable; a test may kill the process there (failpoints.ts). */
  readonly failpoint?: Failpoint;
  /** How the intent ends, for an ending: the outcome its record keeps. */
  readonly ends?: Ending;
}

export const LIFECYCLE: Readonly<Record<Step, StepRule>> = {
  // On disk before the first byte of the POST; written by Journal.begin, which fires the failpoint (a plan's new row
  // begins at `sending`, and fires this one and sending's).
  prepared: { to: ['sending', 'refused', 'abandoned'], writes: 'intent', failpoint: 'intent.written' },
  // The POST may go now; whether it reached the server is unknown until it is answered. Back to prepared only
  // in the process that armed it and certainly sent nothing (a plan's readied row when the plan is interrupted:
  // OrderMachine.disarm; a first request stopped before a byte of it left: OrderMachine.send), so that what is
  // left says "never sent", not "may have been charged".
  sending: { to: ['accepted', 'refused', 'abandoned', 'prepared'], writes: 'intent', failpoint: 'sending.written' },
  // The server's order id and status; then its status as it changes, and each codes file's identity before its rename.
  accepted: { to: ['accepted', 'delivered', 'failed', 'abandoned'], writes: 'intent', failpoint: 'order.accepted' },
  // The outcome reached the user (stdout flushed, or the codes file renamed into place and then stdout flushed).
  delivered: { to: ['resolved'], writes: 'record', failpoint: 'delivered', ends: 'delivered' },
  // The order ended in a failure state and that, too, reached the user (--json: the failed order on stdout).
  failed: { to: ['resolved'], writes: 'record', failpoint: 'delivered', ends: 'failed' },
  // The intent left the journal; its record stays for `order list`.
  resolved: { to: [], writes: 'removal', failpoint: 'resolved' },
  // Certainly nothing was charged: the intent ends at once, with its error.
  refused: { to: [], writes: 'removal', ends: 'refused' },
  // A person dropped it (`order abandon`): it may exist on the server.
  abandoned: { to: [], writes: 'removal', ends: 'abandoned' },
};

/**
 * The step an intent is at. Phase `delivered` was written by versions before the record became the
 * fact: such an intent has reached the user (Journal.reached) and moves on as an `accepted` one would.
 */
export function stepOf(intent: Intent): Step {
  return intent.phase === 'delivered' ? 'accepted' : intent.phase;
}

/** Whether the table allows the move; the machine refuses any other as a bug (exit 1). */
export function mayMove(from: Step, to: Step): boolean {
  return LIFECYCLE[from].to.includes(to);
}

export function checkMove(from: Step, to: Step): void {
  if (!mayMove(from, to)) throw new Error(`order lifecycle: no move from ${from} to ${to}`);
}

/** An outcome ready for the user: its intent, and whether the order completed (or is under way) or failed. */
export interface Outcome {
  intent: Intent;
  ending: 'delivered' | 'failed';
  /**
   * The command that delivered it in its own run's place (`order resume`): the record names it, so that the
   * same `order place` run again is told it places a second order (OrderRecord.finishedBy).
   */
  finishedBy?: string | undefined;
  /** Where its codes went: a file (not `-`) is where the outcome reached the user, whatever stdout shows. */
  written?: { path: string } | undefined;
}

/**
 * What reached the user: the outcomes of this run's own intents, or an order's codes (or the order itself)
 * fetched by a verb that charges nothing (order watch, codes get), which is the delivery of any interrupted
 * intent of that order on that server.
 */
export type Delivery =
  | readonly Outcome[]
  | {
      orderId: string;
      baseUrl: string;
      codes: boolean;
      ending?: Outcome['ending'];
      /** Where the codes went this time (a file's absolute path, or '-'): the records of the intents it ends name it. */
      out?: string;
      /** The command that fetched it (codes get, order watch): the records of the intents it ends name it. */
      by?: string;
    };

/**
 * The one way an outcome reaches the user: `print` writes it, stdout is flushed (a full disk, a closed pipe
 * or a closed descriptor is exit 8 and every intent stays pending), and only then is each outcome's record
 * made durable: the fact that it reached the user, which every later run reads (Journal.reached). Many
 * outcomes (a plan's rows, resume --all --json) share one print, one flush and the records' fsyncs.
 */
export async function deliver(
  io: Io,
  journal: Journal,
  print: () => void | Promise<void>,
  delivery: Delivery,
  now: number = Date.now(),
): Promise<void> {
  await Promise.resolve()
    .then(print)
    .catch((error: unknown) => {
      throw queryFailedAfter(error, delivery, io.queriedList);
    });
  // Codes written to files reached the user there: a stdout nobody reads (a cron job's Python DEVNULL, which the docs
  // answer with --out) is then no failure. A review's nightly job exited 8 every night, and stopped ordering.
  // A failed order has no codes: its failure reaches the user on stderr (exit 6), so it needs no stdout either (a
  // review's DEVNULL job met one failed order and exited 8 every night after, resuming it).
  const filed =
    'orderId' in delivery
      ? delivery.ending === 'failed' || (delivery.codes && delivery.out !== undefined && delivery.out !== '-')
      : delivery.length > 0 &&
        delivery.every((o) => o.ending === 'failed' || (o.written !== undefined && o.written.path !== '-'));
  await io.flushOut({ delivery: true }).catch((error: unknown) => {
    if (!filed || !io.forgiveUnreadStdout()) throw placedButUnread(error, delivery);
  });
  if ('orderId' in delivery) {
    await failpoint(LIFECYCLE.delivered.failpoint!);
    return;
  }
  if (delivery.length === 0) return;
  // A --query that printed null in place of this run's own order (a field the order does not have: `orderId` for
  // `id`): nothing of it reached the script, which would place the order again. It stays pending; the same command
  // with a query that names a field resumes it (a review's script read null, and its corrected re-run was a second
  // charge). The same for many outcomes printed as a list (a plan's rows, resume --all), from which one field's name
  // selects nothing: their rows are sent again by the same command under their keys. Not where every outcome's codes
  // went to a file (they reached the user there), nor for a field whose value is null (a nightly
  // `--query failure_reason`).
  // Exit 8, as any output that did not reach the user (exit 2 says nothing was sent; this order was).
  // The orders are named: a script's stdout held none of their ids, and the log is where a person finds which.
  if (io.queryAbsent !== undefined && !filed)
    throw new LocalError(
      `${io.queryAbsent}: the ${ordersNamed(delivery)} it was given ${delivery.length === 1 ? 'is' : 'are'} not taken as having reached you`,
      {
        code: 'query_selected_nothing',
        hint: `nothing is lost or charged twice: run the same command again with a --query that names a field it has (e.g. ${io.queriedList ? '[].order.id' : 'id'}); it picks up the same ${delivery.length === 1 ? 'order' : 'orders'}`,
      },
    );
  // A --query that printed none of the ids of the orders this run placed or finished (`status`, `length(@)`, `*.foo`):
  // what it printed is the script's answer, but the charge is said, with the ids, so that no order's id reaches no one
  // (a second review, stop 78: nine charges printed as "pending", 11, [] or null, and `order pending` then said every
  // order had reached the user).
  // Not where every outcome's codes went to a file: the file holds the order's id in each line.
  if (!filed)
    sayUnprinted(
      io,
      delivery.flatMap((o) => (o.intent.orderId === undefined ? [] : [o.intent.orderId])),
      'placed or finished',
    );
  for (const { intent, ending } of delivery) checkMove(stepOf(intent), ending);
  await journal
    .recordDelivery(
      delivery.map(({ intent, ending, finishedBy }) => ({
        ...endedRecord(intent, LIFECYCLE[ending].ends!, now),
        ...(finishedBy ? { finishedBy } : {}),
      })),
      now,
    )
    .catch((error: unknown) => {
      throw notRecorded(error, delivery);
    });
  await failpoint(LIFECYCLE.delivered.failpoint!);
}

/**
 * A --query that failed when applied to this run's own outcomes (`abs(id)`: a type error, which compiling it could not
 * see): `bad_query`, exit 2, read as "nothing was sent" after the order was placed (a review). Said as what it is: the
 * orders, which stay pending, and exit 8, as for a query that selected nothing. Another error is passed on.
 */
function queryFailedAfter(error: unknown, delivery: Delivery, list: boolean): unknown {
  if (!isCliError(error) || error.code !== 'bad_query' || 'orderId' in delivery || delivery.length === 0) return error;
  const one = delivery.length === 1;
  return new LocalError(
    `${error.message.replace(/\.$/, '')}: the ${ordersNamed(delivery)} it was given ${one ? 'is' : 'are'} not taken as having reached you`,
    {
      code: 'query_failed',
      hint: `nothing is lost or charged twice: run the same command again with a --query that works on its --json document (e.g. ${list ? '[].order.id' : 'id'}); it picks up the same ${one ? 'order' : 'orders'}`,
    },
  );
}

/**
 * A stdout that failed after this run placed orders: said with the orders, which stay pending for the same command
 * (exit 8 as before). The error and its hint alone, what a cron recipe's `tail -n 2` mails, did not say an order was
 * charged, and `--json`'s error had no orderId (a review, stop 78).
 */
function placedButUnread(error: unknown, delivery: Delivery): unknown {
  if (!isCliError(error) || error.code !== 'output_failed' || 'orderId' in delivery) return error;
  const placed = delivery.filter((o) => o.intent.orderId !== undefined);
  if (placed.length === 0) return error;
  const one = placed.length === 1;
  return new LocalError(
    `${error.message}: the ${ordersNamed(placed)} ${one ? 'was' : 'were'} placed, and ${one ? 'is' : 'are'} not taken as having reached you`,
    {
      code: 'output_failed',
      hint: `${error.hint ?? 'send stdout somewhere that can take it'}; it picks up the same ${one ? 'order' : 'orders'}, never a second charge`,
      cause: error,
      ...(one ? { orderId: placed[0]!.intent.orderId } : {}),
    },
  );
}

/**
 * The ids of orders a run placed or finished that its --query printed none of, said on stderr in every mode: a charge
 * is never printed only as "pending", [] or null (reviews, stop 78). Nothing without a --query.
 */
export function sayUnprinted(io: Io, orderIds: readonly string[], done: string): void {
  if (io.queried === undefined) return;
  const unnamed = orderIds.filter((id) => !io.queried!.includes(id));
  if (unnamed.length === 0) return;
  const one = unnamed.length === 1;
  io.caution(
    `--query printed no id of the ${one ? 'order' : 'orders'} ${unnamed.join(', ')} this run ${done} (${one ? 'it is' : 'they are'} in giftcodes order list)`,
  );
}

/** `order ord_…`, or `orders ord_…, ord_…` (an order not yet given an id by its key). */
function ordersNamed(delivery: readonly Outcome[]): string {
  const ids = delivery.map((o) => o.intent.orderId ?? `key ${o.intent.key}`);
  return `${ids.length === 1 ? 'order' : 'orders'} ${ids.join(', ')}`;
}

/**
 * The outcomes reached the user (printed, their codes files in place) but the journal could not record it: said with
 * what is where, and that the same command then writes and charges nothing. A review met "cannot write the order
 * journal lock" and the hint "use a path you can write to", which read as another config directory: a new order.
 */
function notRecorded(error: unknown, delivery: readonly Outcome[]): CliError {
  const cause = asLocalError(error, 'journal_unwritable');
  const files = delivery.flatMap((o) => (o.written && o.written.path !== '-' ? [o.written.path] : []));
  const ids = delivery.map((o) => o.intent.orderId ?? o.intent.key);
  const what =
    delivery.length === 1
      ? `order ${ids[0]!} reached you (${files.length === 1 ? `its codes are in ${files[0]!}` : 'printed above'})`
      : `${delivery.length} orders reached you (printed above${files.length > 0 ? `; codes in ${files.join(', ')}` : ''})`;
  return new CliError(cause.exitCode, `${cause.message}; ${what}, but the journal could not record it`, {
    code: cause.code,
    hint: `${files.length > 0 ? `keep ${files.length === 1 ? 'that file' : 'those files'}; ` : ''}once this config directory's journal can be written again (its permissions, its disk: never another directory, which would place a new order), run the same command again: it finds ${delivery.length === 1 ? 'that order' : 'them'}, and writes and charges nothing`,
  });
}

/**
 * delivered → resolved: the delivered intents leave the journal, the one place an intent that was charged
 * ends (their records were written by deliver). For an order fetched by watch or codes get: every
 * interrupted intent of it, unless its codes file was not what reached the user.
 */
export async function settle(journal: Journal, delivery: Delivery, now: number = Date.now()): Promise<Intent[]> {
  if ('orderId' in delivery) {
    // Order ids are one server's names: the same id on another server (test and live, two services) is another order.
    const { orderId, baseUrl, codes, ending = 'delivered', out, by } = delivery;
    const settled = await journal.settleWhere(
      (intent) =>
        intent.orderId === orderId && intent.baseUrl === baseUrl && (!intent.out || codes || ending === 'failed')
          ? LIFECYCLE[ending].ends
          : undefined,
      now,
      { out: codes ? out : undefined, finishedBy: by },
    );
    await failpoint(LIFECYCLE.resolved.failpoint!);
    return settled;
  }
  if (delivery.length === 0) return [];
  const endings = new Map(delivery.map((o) => [o.intent.key, LIFECYCLE[o.ending].ends!]));
  const ended = delivery.map((o) => o.intent);
  await journal.end(ended, (intent) => endings.get(intent.key)!, { recorded: true, now });
  await failpoint(LIFECYCLE.resolved.failpoint!);
  return ended;
}

/**
 * Settles every interrupted intent whose outcome already reached the user (Journal.reached), each said once;
 * never one `keep` names. order pending keeps those writtenUnrecorded names: a codes file still at its --out as
 * its run wrote it while the run never recorded telling the user (killed after the rename, or its stdout
 * failed), which the same command run again recognises as its own (exit 0, nothing charged). Settled by a
 * command that only lists, it would no longer be tied to that command, and the same command with --force
 * would place and write a second order.
 */
export async function settleReached(
  io: Io,
  journal: Journal,
  o: { keep?: (intent: Intent) => boolean; by?: string } = {},
): Promise<void> {
  // Settled by `by` (order pending, order resume), not by the command that placed it, whose hint said to run it again:
  // that run is now a new order, so the record says who finished it (OrderRecord.finishedBy, which the same order
  // place tells of, and asks about at a terminal), and the line says it. An adversarial review: a run killed after
  // its file was renamed, the file then moved by an upload job, `order pending` (the morning routine) settled it, and
  // the same command as its hint said placed a second order without a word. A plan's row is read by its plan's rules.
  const by = (intent: Intent): string | undefined => (intent.key.startsWith('plan-') ? undefined : o.by);
  sayReached(
    io,
    await journal.settleWhere((intent) => (o.keep?.(intent) ? undefined : journal.reached(intent)), undefined, {
      finishedBy: by,
    }),
    by,
  );
}

/** Whether an intent's codes file is at its --out as its run wrote it, the run never having recorded telling the user. */
export async function writtenUnrecorded(journal: Journal): Promise<(intent: Intent) => boolean> {
  const { deliveredFile } = await import('../journal/codes-file.js');
  return (intent) =>
    intent.out !== undefined &&
    intent.out.path !== '-' &&
    journal.recorded(intent) === undefined &&
    deliveredFile(intent, intent.out.path) !== undefined;
}

/** Where an order's codes are, in a sentence: `in <file>`, or `written to standard output` for `-`. */
export function codesWhere(path: string): string {
  return path === '-' ? 'written to standard output' : `in ${path}`;
}

/**
 * Says each interrupted order whose outcome had already reached the user, where its codes are; settled by another
 * command than its own (`finishedBy` names one), that its own command run again is a new order.
 */
export function sayReached(
  io: Io,
  settled: readonly Intent[],
  finishedBy?: (intent: Intent) => string | undefined,
): void {
  for (const intent of settled)
    io.say(
      `the interrupted order ${intent.orderId ?? intent.key} had already reached you${intent.out ? ` (${codesNow(io, intent.out.path, intent.orderId)})` : ''}; it is complete${finishedBy?.(intent) ? (intent.keyGiven === true ? `, and its command run again is refused (its --idempotency-key ${intent.key} names this order)` : ', and its command run again places a new order') : ''}`,
    );
}

/**
 * Where an order's codes went, as things are now: a file since moved away (an upload job) is said so, with the way to
 * its codes that charges nothing; "codes in x.csv" sent a person looking for a file that was not there.
 */
function codesNow(io: Io, path: string, orderId: string | undefined): string {
  if (path === '-' || orderId === undefined || existsSync(path)) return `codes ${codesWhere(path)}`;
  return `codes written to ${path}, no longer there; ${codesAgain(io, orderId, path)}`;
}

/** The way to an order's codes that charges nothing, written to `path`, pinned to this run's config directory. */
export function codesAgain(io: Io, orderId: string, path: string): string {
  return pinnedHint(`its codes again, charging nothing: giftcodes codes get ${orderId} --out ${path}`, {
    configDir: io.env.GIFTCODES_CONFIG_DIR,
  });
}

/** The record an intent leaves when it ends this way. */
export function endedRecord(
  intent: Intent,
  ending: Ending,
  now: number,
  error?: { code: string; message: string },
): OrderRecord {
  return {
    ...recordOf(intent, ending),
    endedAt: new Date(now).toISOString(),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
}
