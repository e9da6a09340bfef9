// How an order reads to a person; --json prints the order exactly as the server sent it.
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { exportResult } from '../output/exporter.js';
import type { Io } from '../output/io.js';
import { display } from '../output/table.js';
import { counted, grouped } from '../output/words.js';
import { namesAgeFile } from '../export/format.js';
import { pinnedHint } from '../output/pinned-hint.js';
import { wrapWords } from '../output/wrap.js';

export function statusText(io: Io, status: string): string {
  const outcome = orderOutcome(status);
  if (outcome === 'completed') return io.c.green(status);
  if (outcome === 'failed') return io.c.red(status);
  return io.c.yellow(status);
}

/** `local`: rows from this machine's record of the order (order show), after the API's. */
export function describeOrder(io: Io, order: Order, local: readonly [string, string][] = []): string {
  const rows: [string, string][] = [
    ['order', display(order.id)],
    ['status', statusText(io, display(order.status))],
  ];
  const known: [string, unknown][] = [
    ['product', order.product_id ?? order.productId ?? order.product],
    // Grouped as the amount is (display): 200,000 and 2,000,000 codes differ by more than one digit to the eye.
    ['quantity', Number.isSafeInteger(order.quantity) ? grouped(order.quantity as number) : order.quantity],
    ['amount', order.amount ?? order.total],
    ['environment', order.environment],
    ['created', order.created_at ?? order.createdAt ?? order.created],
    ['reason', order.failure_reason ?? order.failureReason],
  ];
  for (const [label, value] of known)
    if (value !== undefined && value !== null && value !== '') rows.push([label, display(value)]);
  rows.push(...local);
  return labelled(rows, io.terminalWidth);
}

/**
 * Lines of `label  value`, the labels in one column: how an order is described in text. At a terminal `width` wide
 * a long value (`here  completed on the server; its codes were not written here yet (/tmp/…`) is broken at its
 * spaces, its lines under its first word, where the terminal cut it mid-word under the labels (a support desk's
 * day); a pipe's lines (no width) stay whole.
 */
export function labelled(rows: readonly (readonly [string, string])[], width?: number): string {
  return rows
    .map(([label, value]) => `${label.padEnd(12)} ${width === undefined ? value : wrapWords(value, width, 13, 13)}`)
    .join('\n');
}

export async function printOrder(
  io: Io,
  order: Order,
  local: readonly [string, string][] = [],
  codesNext?: string | null,
): Promise<void> {
  await exportResult(io, order, {
    text: (data) => describeOrder(io, data, local),
    notes: () => (codesNext === undefined ? [] : nextStep(io, order, codesNext ?? undefined)),
    pager: false,
  });
}

/**
 * After an order shown without its codes, the next step: follow one in progress, or get the codes of one completed
 * (`codesNext` says where they are to go instead). Pinned to the run's config directory, as every hint is: pasted
 * from a cron log, it must look there. A guided order, `order watch` and `order show` ended with no word of it.
 */
export function nextStep(io: Io, order: Order, codesNext?: string): string[] {
  const next =
    orderOutcome(order.status) === 'in_progress'
      ? `follow it with: giftcodes order watch ${order.id}`
      : orderOutcome(order.status) === 'completed'
        ? (codesNext ?? `its codes: giftcodes codes get ${order.id} --out ${codesFileFor(order.id)}`)
        : undefined;
  return next === undefined ? [] : [io.ce.dim(pinnedHint(next, { configDir: io.env.GIFTCODES_CONFIG_DIR }))];
}

/**
 * A codes file name for an order's hint, its own: `codes.csv` was the quickstart's file of another order's codes, and
 * a person who pasted the hint met "exists; pass --force", and wrote over them (a person's-day review). An id with a
 * character a file name should not hold gets `codes.csv`.
 */
export function codesFileFor(orderId: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{0,100}$/.test(orderId) ? `${orderId}.csv` : 'codes.csv';
}

/**
 * The line that says where codes were written, in the words of every command that writes them (`order place --out`,
 * `order watch --out`, `codes get --out`): an encrypted file is said as such (`order place` said "(csv)" of a
 * codes.csv.age that codes get called age-encrypted, a person's day), with its recipients where the run knows them.
 */
export function wroteCodes(
  io: Io,
  w: { count: number; path: string; format: string; orderId?: string | undefined; recipients?: number | undefined },
): string {
  return `${io.ce.green('✓')} wrote ${counted(w.count, 'code')}${w.orderId ? ` of ${w.orderId}` : ''} to ${w.path} (${fileKind(w)}, 0600)`;
}

/**
 * A codes file's kind, in every line that names one (✓ lines, a log's `done:` line): `csv`, or `csv, age-encrypted
 * for 2 recipients`. A log's last line said "(csv)" of the codes.csv.age its ✓ line had called encrypted.
 */
export function fileKind(w: { path: string; format: string; recipients?: number | undefined }): string {
  const sealed = namesAgeFile(w.path)
    ? `, age-encrypted${w.recipients ? ` for ${counted(w.recipients, 'recipient')}` : ''}`
    : '';
  return `${w.format}${sealed}`;
}
