// How an order reads to a person; --json prints the order exactly as the server sent it.
import { orderOutcome } from '../api/outcome.js';
import type { Order } from '../api/schemas.js';
import { exportResult } from '../output/exporter.js';
import type { Io } from '../output/io.js';
import { display } from '../output/table.js';
import { grouped } from '../output/words.js';

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
