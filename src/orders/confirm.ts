// The question a live order asks: product, quantity, and the price when the catalog gives one.
import type { ApiClient } from '../api/client.js';
import type { Connection } from '../config/resolve.js';
import { display } from '../output/table.js';
import { spokenMoney } from '../money.js';
import { unitsOf } from '../output/words.js';

/** Reads the catalog once for the price; a catalog that cannot be read leaves the price out (never blocks the order). */
export async function liveOrderQuestion(
  api: ApiClient,
  productId: string,
  quantity: number,
  connection: Pick<Connection, 'profile' | 'keySource'>,
  out?: string,
): Promise<string> {
  let price = '';
  try {
    const product = (await api.listProducts()).find((p) => p.id === productId);
    const unit = product ? (product.price ?? product.face_value ?? product.amount) : undefined;
    if (unit !== undefined && unit !== null) {
      const money = unit as { amount?: unknown; currency?: unknown };
      const total =
        typeof money.amount === 'number' && typeof money.currency === 'string'
          ? `, ${spokenMoney(money.amount * quantity, money.currency)} in all`
          : '';
      price = ` at ${display(unit)} each${total}`;
    }
  } catch {
    // The price is a courtesy: the confirmation still names product and quantity.
  }
  // The codes file too, as the guided order's question names it: the answer is about where the codes go as much.
  const file = out === undefined ? '' : `, and write its codes to ${out === '-' ? 'standard output' : out}`;
  return `Place a LIVE order for ${unitsOf(quantity, productId)}${price}${file}? It is charged to ${wallet(connection)}.`;
}

/**
 * Whose money a live order spends, as the question says it: the wallet of the key it is sent with. A key given
 * by --api-key or GIFTCODES_API_KEY overrides the profile's, and may be another reseller's: the question named
 * the profile's wallet for it.
 */
export function wallet(connection: Pick<Connection, 'profile' | 'keySource'>): string {
  if (connection.keySource === 'flag') return 'the wallet of the key given with --api-key';
  if (connection.keySource === 'environment') return 'the wallet of the key in GIFTCODES_API_KEY';
  return `the wallet of profile "${connection.profile}"`;
}
