// Waits for an order to end: polls GET /v1/orders/{id} (the client honours Retry-After and retries),
// a spinner on a terminal, one line per status change elsewhere. Shared by codes get, order place and watch.
import type { ApiClient } from '../api/client.js';
import { orderOutcome, orderQuantity } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { sleep } from '../api/retry.js';
import { InterruptedError, OrderFailedError, WaitTimeoutError } from '../errors.js';
import type { Io } from '../output/io.js';
import { duration, LOG_EVERY_MS } from '../output/progress.js';
import { placeCommand } from '../output/pinned-hint.js';
import { display } from '../output/table.js';

export const DEFAULT_INTERVAL_S = 2;

export interface WaitOptions {
  api: ApiClient;
  orderId: string;
  io: Io;
  signal: AbortSignal;
  /** Seconds between polls (default 2). */
  intervalS?: number;
  /** Give up after this many seconds (exit 7); no limit when absent. */
  timeoutS?: number;
  /** Each time the status changes, the first poll included. */
  onStatus?: (order: Order) => void;
  /** What the order is for, in a log's status line (a plan's row: `row 3: 1,500 × steam-us-20`). */
  label?: string | undefined;
  /**
   * How to wait again, for the hint of an interrupted or timed-out wait: `order watch <id>` unless the command
   * does more after the wait (a codes file to write), when only the same command again takes the user there.
   */
  again?: string | undefined;
}

/** `again` for a command that writes the codes after its wait: to `out`, or stdout (`-`). */
export function againThenCodes(out: string): string {
  return `run the same command again: it waits, then ${out === '-' ? 'prints the codes' : `writes the codes to ${out}`}`;
}

/** The hint of a wait that ended before the order did. */
function waitAgain(o: WaitOptions): string {
  return `the order goes on on the server; ${o.again ?? `wait again with: giftcodes order watch ${o.orderId}`}`;
}

/** An order that ended in a failure state (exit 6); carries the order as the server sent it. */
export class OrderEndedError extends OrderFailedError {
  /**
   * `again`: how to order it anew, as the run that placed it knows it (`to order it anew: giftcodes order place` with
   * its environment and --out), or PLAN_ROW_ANEW for a plan's row.
   */
  constructor(
    readonly order: Order,
    again?: string,
  ) {
    super(`order ${order.id} ended ${order.status}${reasonOf(order)}`, {
      code: 'order_failed',
      orderId: order.id,
      // The order was just printed: "see it with order show" sent a person to read it again (a review). What is left
      // is the provider's, and the same order anew.
      hint: `it has no codes, and no command here gets them: ask the provider about order ${order.id}${again !== undefined ? `; ${again}` : anew(order)}`,
    });
  }

  /** The same failure, with how to order it anew as its record knows it (ref.ts anewOfRecord), when known. */
  orderedAnew(again: string | undefined): OrderEndedError {
    return again === undefined ? this : new OrderEndedError(this.order, again);
  }

  /** The same failure of a plan row's order: its plan orders the row anew, never an order place of its own. */
  ofPlanRow(): OrderEndedError {
    return new OrderEndedError(this.order, PLAN_ROW_ANEW);
  }
}

/**
 * The provider's reason, in the error line itself: a cron job's mail (`tail -n 2` of its log: docs/cron-and-plans.md)
 * holds the error and hint lines, and the reason was only in the order's table above them (a person's day). Text
 * (`fulfilment_failed`), or the API's object said compactly; one line, at most 120 characters.
 */
function reasonOf(order: Order): string {
  const raw = order.failure_reason ?? order.failureReason;
  if (raw === undefined || raw === null || raw === '') return '';
  const text = display(raw).replace(/\s+/g, ' ').trim();
  return text ? ` (${text.length > 120 ? `${text.slice(0, 119)}…` : text})` : '';
}

/**
 * A failed plan row is ordered anew by its plan, under the row's next key (orders/plan.ts sentAgainKey): ordered by
 * itself too, it was ordered twice (a review followed `order resume`'s hint, then the plan's next night).
 */
export const PLAN_ROW_ANEW =
  "its plan, run again with the same file name and --batch, orders that row anew under the row's next key (never order it by itself as well: that would be a second order)";

/**
 * The `order place` that orders a failed order anew, where the order names its product and quantity: in its
 * environment, test too (a live order's hint without --env live placed a test order when pasted, a review; and a
 * test order's without --env test, pasted in a profile whose default is live, placed a live one).
 */
function anew(order: Order): string {
  const quantity = orderQuantity(order);
  const product = order.product_id;
  const environment = order.environment === 'live' || order.environment === 'test' ? order.environment : undefined;
  return typeof product === 'string' && /^[\x21-\x7e]+$/.test(product) && quantity !== undefined
    ? `; to order it anew: ${placeCommand({ environment, productId: product, quantity })} (unless it was a plan's row: its plan, run again, orders that row itself)`
    : '';
}

/** How soon an order still in progress at its first look is looked at again; every --interval after that. */
const FIRST_AGAIN_MS = 500;

/** Resolves with the completed order; throws OrderEndedError (6), WaitTimeoutError (7) or InterruptedError (130). */
export async function waitForOrder(o: WaitOptions): Promise<Order> {
  const intervalMs = Math.max(10, Math.round((o.intervalS ?? DEFAULT_INTERVAL_S) * 1000));
  const deadline = o.timeoutS === undefined ? Infinity : Date.now() + o.timeoutS * 1000;
  const spinner = await o.io.spinner(`waiting for order ${o.orderId}`);
  let last: string | undefined;
  /** When a log was last told of the wait. */
  let loggedAt = 0;
  let atDeadline = false;
  let outcome: 'done' | 'error' = 'error';
  const started = Date.now();
  /** Polls made: the sleep after the first is FIRST_AGAIN_MS at most. */
  let polls = 1;
  try {
    for (;;) {
      const order = await o.api.getOrder(o.orderId).catch((error: unknown) => {
        throw o.signal.aborted ? interrupted(o) : error;
      });
      // On a terminal the wait is counted at every poll, and what Ctrl-C does is said: a long wait showed only
      // "order … is processing" (a walkthrough).
      const waited = (Date.now() - started) / 1000;
      const now =
        waited < 1
          ? `order ${order.id} is ${order.status}`
          : `order ${order.id} is ${order.status}, ${duration(waited)} so far`;
      // The spinner's line is one line: the words on Ctrl-C where the terminal has room for them (2 for the spinner).
      const ctrlC = `${now} (Ctrl-C stops the wait; the order goes on)`;
      spinner.update(waited >= 1 && ctrlC.length + 2 <= o.io.columns ? ctrlC : now);
      const named = `order ${order.id}${o.label ? ` (${o.label})` : ''}`;
      if (order.status !== last) {
        last = order.status;
        o.onStatus?.(order);
        // notice() is silent under --quiet and --json; on a terminal the spinner says it instead.
        if (!o.io.stderrIsTTY) o.io.notice(`${named}: ${order.status}`);
        loggedAt = Date.now();
      } else if (!o.io.stderrIsTTY && Date.now() - loggedAt >= LOG_EVERY_MS) {
        // A log is told the wait goes on at least every 10 s, as an export's is: a minute's silence read as a hang.
        o.io.notice(`${named}: still ${order.status}, ${duration(waited)} so far`);
        loggedAt = Date.now();
      }
      const result = orderOutcome(order.status);
      if (result === 'completed') {
        outcome = 'done';
        spinner.stop(`order ${order.id} completed`);
        return order;
      }
      if (result === 'failed') throw new OrderEndedError(order);
      const left = deadline - Date.now();
      // The poll after a sleep cut to the deadline is the last: its timer may end a millisecond before Date.now
      // reaches the deadline, and a sliver left must not buy another poll.
      if (left <= 0 || atDeadline) {
        throw new WaitTimeoutError(
          `gave up waiting for order ${o.orderId} after ${o.timeoutS}s; it is still ${order.status}`,
          {
            code: 'wait_timeout',
            hint: waitAgain(o),
            orderId: o.orderId,
            placedMessage: `gave up waiting after ${o.timeoutS}s: order ${o.orderId} was placed and is still ${order.status}`,
          },
        );
      }
      // The second look comes sooner: an order that completes in a fraction of a second (most of a plan's rows with a
      // codes file) waited a whole interval, 2 s a row, 8 minutes for 1,000 rows at the default 4 (a person's day).
      const pause = polls === 1 ? Math.min(intervalMs, FIRST_AGAIN_MS) : intervalMs;
      polls++;
      atDeadline = left <= pause;
      await sleep(Math.min(pause, left), o.signal).catch(() => {
        throw interrupted(o);
      });
    }
  } finally {
    if (outcome === 'error') spinner.stop();
  }
}

function interrupted(o: WaitOptions): InterruptedError {
  const reason: unknown = o.signal.reason;
  const message = reason instanceof Error ? reason.message : 'interrupted';
  return new InterruptedError(`${message} while waiting for order ${o.orderId}`, {
    hint: waitAgain(o),
    orderId: o.orderId,
  });
}
