import type { Command } from 'commander';
import { printOrder } from '../../orders/present.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { nonEmpty } from '../parse.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'read an order: its status and every field the API sends',
    examples: [
      'giftcodes order show ord_8f2k1',
      'giftcodes order show ord_8f',
      'giftcodes order show 3f9a2c1e --json | jq -r .status',
    ],
  };
  addVerb(parent, app, 'show', help, ({ deps }, ref) => run({ ref }, deps)).argument(
    '<ref>',
    'order id, idempotency key, or a unique prefix of either (from the local record)',
    nonEmpty('order reference'),
  );
}

/**
 * The ref is resolved against the local record (orders/ref.ts) and read where the order was placed; a ref
 * unknown here is asked of the current connection as an order id. The status read becomes the record's.
 */
export async function run(
  options: { ref: string },
  deps: Pick<Deps, 'io' | 'journal' | 'api' | 'clientFor' | 'connectionTo' | 'currentTarget' | 'now'>,
): Promise<void> {
  const { orderRef, noteStatus } = await import('../../orders/ref.js');
  const ref = await orderRef(deps, options.ref);
  const order = await ref.api.getOrder(ref.orderId);
  noteStatus(await deps.journal(), ref, order.status, deps.now());
  await printOrder(deps.io, order);
}
