// How an order reads to a person; --json prints the order exactly as the server sent it.
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { exportResult } from '../output/exporter.js';
import type { Io } from '../output/io.js';
import { display } from '../output/table.js';
import { counted, grouped } from '../output/words.js';
import { namesAgeFile } from '../export/format.js';

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
  return labelled(rows);
}

/** Lines of `label  value`, the labels in one column: how an order is described in text. */
export function labelled(rows: readonly (readonly [string, string])[]): string {
  return rows.map(([label, value]) => `${label.padEnd(12)} ${value}`).join('\n');
}

export async function printOrder(io: Io, order: Order, local: readonly [string, string][] = []): Promise<void> {
  await exportResult(io, order, { text: (data) => describeOrder(io, data, local), pager: false });
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
  const sealed = namesAgeFile(w.path)
    ? `, age-encrypted${w.recipients ? ` for ${counted(w.recipients, 'recipient')}` : ''}`
    : '';
  return `${io.ce.green('✓')} wrote ${counted(w.count, 'code')}${w.orderId ? ` of ${w.orderId}` : ''} to ${w.path} (${w.format}${sealed}, 0600)`;
}
