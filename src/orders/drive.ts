// Drives one journal intent to its outcome: place (or re-place with the same key and body), wait, write
// the codes, print, and only then resolve the intent. Every failure says whether the order may exist.
import type { ApiClient } from '../api/client.js';
import { orderOutcome, orderQuantity } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { CliError, ExitCode } from '../errors.js';
import type { Factory } from '../factory.js';
import type { Intent, OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { describeOrder } from './present.js';
import { OrderEndedError, waitForOrder } from './wait.js';

export interface DriveOptions {
  wait: boolean;
  out?: OutSpec | undefined;
  intervalS: number;
  timeoutS?: number | undefined;
}

export interface Driven {
  order: Order;
  written?: { path: string; count: number; format: string } | undefined;
}

/**
 * Answers after which the server certainly holds no order for this key: it validated the request and
 * refused it (an idempotent API replays that same refusal for the key). A 401/403 (a key revoked after an
 * earlier attempt went through), a 404 or a 409 prove nothing: the intent is kept.
 */
function isDefinitiveRefusal(error: unknown): boolean {
  return error instanceof CliError && error.exitCode === ExitCode.api && [400, 402, 422].includes(error.status ?? 0);
}

export async function driveIntent(f: Factory, api: ApiClient, journal: Journal, start: Intent, options: DriveOptions): Promise<Driven> {
  let intent = start;
  let order: Order;
  try {
    if (intent.phase === 'placed' && intent.orderId) {
      order = await api.getOrder(intent.orderId);
    } else {
      order = (await api.createOrder(intent.body, intent.key)).order;
      intent = journal.save({ ...intent, phase: 'placed', orderId: order.id, status: order.status });
    }
  } catch (error) {
    if (intent.phase === 'sending' && isDefinitiveRefusal(error)) {
      journal.resolve(intent);
      throw error;
    }
    throw keptForResume(error, intent);
  }
  // An order can fail at once (rejected on placement): that is its outcome, with or without --wait.
  if (orderOutcome(order.status) === 'failed') {
    journal.resolve(intent);
    throw new OrderEndedError(order);
  }

  let written: Driven['written'];
  if (options.wait || options.out) {
    try {
      order = await waitForOrder({ api, orderId: order.id, io: f.io, signal: f.signal, intervalS: options.intervalS, timeoutS: options.timeoutS });
    } catch (error) {
      if (!(error instanceof OrderEndedError)) throw keptForResume(error, intent);
      // A failed order is an outcome: resolved here, shown by the caller (showFailedOrder).
      journal.resolve(intent);
      throw error;
    }
    if (options.out) {
      const { exportCodes } = await import('../export/write.js');
      try {
        written = await exportCodes({
          api,
          orderId: order.id,
          expected: orderQuantity(order),
          out: options.out.path,
          format: options.out.format,
          force: options.out.force,
          csvRaw: options.out.csvRaw,
          io: f.io,
          signal: f.signal,
          // Recorded before the rename: a run killed right after it is known to have delivered its file.
          beforeCommit: (temp) => {
            intent = journal.save({ ...intent, delivering: { temp } });
          },
        });
      } catch (error) {
        throw keptForResume(error, intent);
      }
    }
  }
  return { order, written };
}

/** The outcome reached the user: print it, then resolve the intent (in that order: a crash between them only repeats the print). */
export function deliver(f: Factory, journal: Journal, intent: Intent, driven: Driven): void {
  printOutcome(f, driven);
  journal.resolve(intent);
}

/** The order on stdout, unless the codes went there (`--out -`): stdout then holds only the codes. */
export function printOutcome(f: Factory, { order, written }: Driven): void {
  if (written?.path === '-') {
    f.io.notice(`order ${order.id} ${order.status}: wrote ${written.count} codes to stdout`);
    return;
  }
  if (f.io.json) {
    f.io.outJson(order);
    return;
  }
  f.io.out(describeOrder(f.io, order));
  if (written) f.io.out(`${f.io.c.green('✓')} wrote ${written.count} codes to ${written.path} (${written.format})`);
  else if (orderOutcome(order.status) === 'in_progress') f.io.notice(f.io.c.dim(`follow it with: giftcodes order watch ${order.id}`));
}

/** The intent stays in the journal; the message says the order may exist and how to finish it. */
function keptForResume(error: unknown, intent: Intent): unknown {
  if (!(error instanceof CliError)) return error;
  const placed = intent.orderId ? `order ${intent.orderId} was placed` : 'the order may or may not have been placed';
  return new CliError(error.exitCode, `${error.message}; ${placed}`, {
    code: error.code,
    status: error.status,
    hint: `nothing is lost or charged twice: run the same command again, or: giftcodes order resume ${intent.key}`,
  });
}

/** An earlier run that wrote its codes file but died before resolving its intent is done: say so, once. */
export async function settleDelivered(f: Factory): Promise<void> {
  const journal = await f.journal();
  for (const intent of await journal.settleDelivered()) {
    f.io.say(`the interrupted order ${intent.orderId ?? intent.key} had already written its codes to ${intent.out?.path ?? 'its file'}; it is complete`);
  }
}

/** With --json, a failed order is still the answer: the order goes to stdout before the exit-6 error. */
export function showFailedOrder(f: Factory, error: unknown): never {
  if (error instanceof OrderEndedError && f.io.json) f.io.outJson(error.order);
  throw error;
}

/**
 * An order's codes reached the user outside `order place` (order watch --out, codes get): any interrupted
 * intent of that order is done, or a later `order place` would resume it and deliver the same codes again.
 */
export async function settleOrder(f: Factory, orderId: string, wroteCodes: boolean): Promise<void> {
  const [journal, { isAlive }] = await Promise.all([f.journal(), import('../journal/owner.js')]);
  for (const intent of journal.read().intents) {
    if (intent.orderId === orderId && !isAlive(intent.owner) && (!intent.out || wroteCodes)) journal.resolve(intent);
  }
}
