// Drives one journal intent through the order machine to its outcome: place (or re-place with the same key
// and body, or read the accepted order again), wait, write the codes; then print, flush stdout, and only
// then resolve (deliver). Every failure says whether the order may exist.
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import type { OutLock } from '../export/out-lock.js';
import type { Intent, OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import type { Io } from '../output/io.js';
import { deliveredFile, OrderMachine, type MachineDeps, type Written } from './machine.js';
import { describeOrder } from './present.js';
import { OrderEndedError } from './wait.js';

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

export interface Driven {
  order: Order;
  written?: Written | undefined;
}

/** Takes the intent (or a machine already armed) from whatever phase it is in to the point where its outcome is ready for the sink. */
export async function driveIntent(deps: MachineDeps, from: Intent | OrderMachine, options: DriveOptions): Promise<{ machine: OrderMachine; driven: Driven }> {
  const machine = from instanceof OrderMachine ? from : new OrderMachine(deps, from);
  const start = machine.intent;
  let order = start.orderId && start.phase !== 'prepared' && start.phase !== 'sending' ? await machine.refresh() : await machine.send(options.answered);
  let written: Written | undefined;
  if (options.wait || options.out) {
    const earlier = options.out ? machine.earlierFile(options.out.path) : undefined;
    // A completed order whose file is already delivered needs no wait: it is read once above.
    if (!earlier || orderOutcome(order.status) !== 'completed') order = await machine.complete({ intervalS: options.intervalS, timeoutS: options.timeoutS });
    if (options.out) written = await machine.writeCodes(options.out, options.outLock);
  }
  return { machine, driven: { order, written } };
}

/**
 * The one way an outcome reaches the user: print, flush stdout (a full disk or closed pipe is exit 8 and
 * the intent stays pending), then delivered, then resolved.
 */
export async function deliver(io: Io, machine: OrderMachine, driven: Driven): Promise<void> {
  printOutcome(io, driven);
  await io.flushOut();
  await machine.delivered();
  await machine.resolve();
}

/** The order on stdout, unless the codes went there (`--out -`): stdout then holds only the codes. */
export function printOutcome(io: Io, { order, written }: Driven): void {
  if (written?.path === '-') {
    io.notice(`order ${order.id} ${order.status}: wrote ${written.count} codes to stdout`);
    return;
  }
  if (io.json) {
    // --out F --json: the order as the server sent it, and where its codes went (`written`: path, count, format).
    io.outJson(written ? { ...order, written: { path: written.path, count: written.count, format: written.format } } : order);
    return;
  }
  io.out(describeOrder(io, order));
  if (written) io.out(`${io.c.green('✓')} ${written.earlier ? 'the codes were already written' : `wrote ${written.count} codes`} to ${written.path} (${written.format})`);
  else if (orderOutcome(order.status) === 'in_progress') io.notice(io.c.dim(`follow it with: giftcodes order watch ${order.id}`));
}

/** Interrupted intents that had reached the user (phase delivered, or their own file on disk) end now, said once. */
export async function settleDelivered(io: Io, journal: Journal): Promise<void> {
  const recorded = (intent: Intent): boolean => {
    if (intent.orderId === undefined) return false;
    const record = journal.history.get(intent.key);
    // The record of this very intent (its createdAt is kept through every claim), never an older one of the
    // same key and order: a key reused for the same order (the server replays it) to another --out file has
    // the first run's record, and its own delivery has not happened.
    return record?.outcome === 'delivered' && record.orderId === intent.orderId && record.baseUrl === intent.baseUrl && record.createdAt === intent.createdAt;
  };
  const settled = await journal.settle((intent) => intent.phase === 'delivered' || recorded(intent) || (intent.out !== undefined && intent.out.path !== '-' && deliveredFile(intent, intent.out.path) !== undefined));
  for (const intent of settled) io.say(`the interrupted order ${intent.orderId ?? intent.key} had already reached you${intent.out ? ` (codes in ${intent.out.path})` : ''}; it is complete`);
}

/** With --json, a failed order is still the answer: the order goes to stdout before the exit-6 error. */
export function showFailedOrder(io: Io, error: unknown): never {
  if (error instanceof OrderEndedError && io.json) io.outJson(error.order);
  throw error;
}

/**
 * An order's codes reached the user outside `order place` (order watch --out, codes get): any interrupted
 * intent of that order is done, or a later `order place` would resume it and deliver the same codes again.
 */
export async function settleOrder(journal: Journal, orderId: string, wroteCodes: boolean, baseUrl: string): Promise<void> {
  // Order ids are one server's names: the same id on another server (test and live, two services) is another order.
  await journal.settle((intent) => intent.orderId === orderId && intent.baseUrl === baseUrl && (!intent.out || wroteCodes));
}
