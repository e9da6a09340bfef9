import type { Command } from 'commander';
import { printOrder } from '../../orders/present.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { nonEmpty } from '../parse.js';

export function register(parent: Command, app: App): void {
  const help = { description: 'read an order: its status and every field the API sends', examples: ['giftcodes order show ord_8f2k1', 'giftcodes order show ord_8f', 'giftcodes order show 3f9a2c1e --json | jq -r .status'] };
  addVerb(parent, app, 'show', help, ({ deps }, ref) => run({ ref }, deps)).argument('<ref>', 'order id, idempotency key, or a unique prefix of either (from the local record)', nonEmpty('order reference'));
}

/**
 * The ref is resolved against the local record (exact id or key first, then a unique prefix; an ambiguous
 * prefix lists the candidates, exit 2). A ref unknown here is asked of the API as an order id.
 */
export async function run(options: { ref: string }, deps: Pick<Deps, 'io' | 'journal' | 'api'>): Promise<void> {
  const [journal, { allRecords, resolveRef }] = await Promise.all([deps.journal(), import('../../orders/history-query.js')]);
  const record = resolveRef(allRecords(journal.history, journal.read().intents), options.ref);
  if (record && record.orderId === undefined) {
    const { ApiError } = await import('../../errors.js');
    throw new ApiError(`the order with key ${record.key} (${record.quantity} × ${record.productId}) never got an order id: it ended ${record.outcome}${record.error ? ` (${record.error.code}: ${record.error.message})` : ''}`, {
      code: 'no_order_id',
      hint: record.outcome === 'pending' ? `finish it with: giftcodes order resume ${record.key}` : 'see it with: giftcodes order list --json',
    });
  }
  const api = await deps.api();
  await printOrder(deps.io, await api.getOrder(record?.orderId ?? options.ref));
}
