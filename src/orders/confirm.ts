// The question a live order asks: product, quantity, and the price when the catalog gives one.
import type { ApiClient } from '../api/client.js';
import { display } from '../output/table.js';
import { formatMoney } from '../money.js';

/** Reads the catalog once for the price; a catalog that cannot be read leaves the price out (never blocks the order). */
export async function liveOrderQuestion(
  api: ApiClient,
  productId: string,
  quantity: number,
  profile: string,
): Promise<string> {
  let price = '';
  try {
    const product = (await api.listProducts()).find((p) => p.id === productId);
    const unit = product ? (product.price ?? product.face_value ?? product.amount) : undefined;
    if (unit !== undefined && unit !== null) {
      const money = unit as { amount?: unknown; currency?: unknown };
      const total =
        typeof money.amount === 'number' && typeof money.currency === 'string'
          ? `, ${formatMoney(money.amount * quantity, money.currency)} in all`
          : '';
      price = ` at ${display(unit)} each${total}`;
    }
  } catch {
    // The price is a courtesy: the confirmation still names product and quantity.
  }
  return `Place a LIVE order for ${quantity} × ${productId}${price}? It is charged to the wallet of profile "${profile}".`;
}
