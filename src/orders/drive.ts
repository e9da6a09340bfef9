// Drives one journal intent through the order machine to its outcome: place (or re-place with the same key
// and body, or read the accepted order again), wait, write the codes. The outcome, a completed order or a
// failed one, is then delivered and settled (lifecycle.ts) by the verb, with whatever else it prints.
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import type { OutLock } from '../export/out-lock.js';
import type { Intent, OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { exportResult } from '../output/exporter.js';
import type { Io } from '../output/io.js';
import { deliver, settle, type Outcome } from './lifecycle.js';
import { OrderMachine, type MachineDeps, type Written } from './machine.js';
import { describeOrder, fileKind, nextStep, wroteCodes } from './present.js';
import { OrderEndedError } from './wait.js';
import { counted, unitsOf } from '../output/words.js';

export interface DriveOptions {
  wait: boolean;
  out?: OutSpec | undefined;
  intervalS: number;
  timeoutS?: number | undefined;
  /** Told when the order's POST has its answer (see OrderMachine.send). */
  answered?: () => void;
  /** The --out target's lock, when the caller took it before the charge and holds it to the end. */
  outLock?: OutLock | undefined;
}

/** An order's outcome, ready for the user: the order, its codes file, and the failure when it ended in one (exit 6). */
export interface Driven extends Outcome {
  machine: OrderMachine;
  order: Order;
  written?: Written | undefined;
  failure?: OrderEndedError | undefined;
}

/** Takes the intent (or a machine already armed) from whatever phase it is in to the point where its outcome is ready for the sink. */
export async function driveIntent(
  deps: MachineDeps,
  from: Intent | OrderMachine,
  options: DriveOptions,
): Promise<Driven> {
  const machine = from instanceof OrderMachine ? from : new OrderMachine(deps, from);
  const start = machine.intent;
  try {
    const reread = start.orderId !== undefined && start.phase !== 'prepared' && start.phase !== 'sending';
    // A POST can take seconds (a busy provider): on a terminal a spinner says what is under way, so the person neither
    // wonders whether anything happened nor starts the order again in another window.
    const spinner = await deps.io.spinner(
      reread ? `reading order ${start.orderId}` : `placing the order: ${unitsOf(start.quantity, start.productId)}`,
      { elapsed: true },
    );
    let order: Order;
    try {
      order = reread ? await machine.refresh() : await machine.send(options.answered);
    } finally {
      spinner.stop();
    }
    let written: Written | undefined;
    if (options.wait || options.out) {
      const earlier = options.out ? machine.deliveredTo(options.out.path) : undefined;
      // A completed order whose file is already delivered needs no wait: it is read once above.
      if (!earlier || orderOutcome(order.status) !== 'completed')
        order = await machine.complete({ intervalS: options.intervalS, timeoutS: options.timeoutS });
      if (options.out) written = await machine.writeCodes(options.out, options.outLock);
    }
    return { machine, intent: machine.intent, ending: 'delivered', order, written };
  } catch (error) {
    // A failed order is an outcome like any other: the order goes to the user, then its intent ends `failed`.
    if (!(error instanceof OrderEndedError)) throw error;
    return { machine, intent: machine.intent, ending: 'failed', order: error.order, failure: error };
  }
}

/**
 * The order on stdout, unless the codes went there (`--out -`): stdout then holds only the codes. A failed
 * order is printed too (with --json, the order as the server sent it), before its error (exit 6) on stderr.
 */
export async function printOutcome(
  io: Io,
  { order, written }: Pick<Driven, 'order' | 'written'>,
  /** Where a completed order's codes are to go, when not here: the note in place of `codes get`. */
  codesNext?: string,
): Promise<void> {
  if (written?.path === '-') {
    io.notice(`order ${order.id} ${order.status}: wrote ${counted(written.count, 'code')} to stdout`);
    return;
  }
  // --out F --json: the order as the server sent it, and where its codes went (`written`: path, count, format).
  await exportResult(
    io,
    written ? { ...order, written: { path: written.path, count: written.count, format: written.format } } : order,
    {
      // stdout holds the order; where its codes went is said on stderr, as `codes get` says it (stamped in a log).
      text: () => describeOrder(io, order),
      // Without --out, the next step: follow an order in progress, or get the codes of one completed (a guided
      // order, and `order watch` without --out, ended with no word of where the codes are).
      // Pinned to the run's config directory, as every hint is: pasted from a cron log, it must look there.
      notes: () => {
        if (written?.earlier) return [];
        if (written) return [wroteCodes(io, written)];
        return nextStep(io, order, codesNext);
      },
      pager: false,
    },
  );
  // A file that already held these codes, left as it was, is said in every mode (--json too, where notes are silent):
  // the run wrote nothing.
  if (written?.earlier)
    io.say(`${io.ce.green('✓')} the codes were already written to ${written.path} (${fileKind(written)})`);
}

/** One order's outcome to the user, then its intent's end (lifecycle.ts); a failed order is then its error (exit 6). */
export async function finish(io: Io, journal: Journal, driven: Driven): Promise<void> {
  await deliver(io, journal, () => printOutcome(io, driven), [driven]);
  await settle(journal, [driven]);
  if (driven.failure) throw driven.failure;
}
