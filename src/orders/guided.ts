// `giftcodes order place` alone at a terminal: a guided order. The catalog is searched by typing (id, brand,
// name, currency, price), a quantity is chosen, the unit price and the total are shown, and the order is
// confirmed (default No for a live one) before the usual exactly-once path places it.
import type { ApiClient } from '../api/client.js';
import type { Product } from '../api/schemas.js';
import type { Connection } from '../config/resolve.js';
import { InterruptedError } from '../errors.js';
import { formatMoney, majorUnits } from '../money.js';
import type { Io } from '../output/io.js';
import { display } from '../output/table.js';
import { MAX_QUANTITY } from './limits.js';

type Money = { amount: number; currency: string };

function priceOf(product: Product): Money | undefined {
  const price = (product.price ?? product.face_value ?? product.amount) as Partial<Money> | undefined;
  return price && typeof price.amount === 'number' && typeof price.currency === 'string'
    ? { amount: price.amount, currency: price.currency }
    : undefined;
}

/** What a typed search is matched against: id, brand, name, currency and price as a person writes them. */
function searchText(product: Product): string {
  const price = priceOf(product);
  const money = price
    ? `${majorUnits(price.amount, price.currency)} ${price.currency} ${formatMoney(price.amount, price.currency)}`
    : '';
  return `${product.id} ${display(product.brand)} ${display(product.name ?? product.title)} ${money}`.toLowerCase();
}

/** The product and quantity a person chose and confirmed; InterruptedError when they said no. */
export async function guidedOrder(
  io: Io,
  api: ApiClient,
  connection: Connection,
  products: readonly Product[],
): Promise<{ product: string; quantity: number }> {
  const live = connection.environment === 'live';
  const product = await io.prompt(({ search }, context) =>
    search<string>(
      {
        message: 'Product (type to search by id, brand, currency or price)',
        pageSize: 10,
        source: (term) => {
          const words = (term ?? '').toLowerCase().split(/\s+/).filter(Boolean);
          return products
            .filter((p) => words.every((w) => searchText(p).includes(w)))
            .slice(0, 200)
            .map((p) => {
              const price = priceOf(p);
              return {
                value: p.id,
                name: `${p.id}  ${display(p.brand)}${price ? `  ${formatMoney(price.amount, price.currency)}` : ''}`,
              };
            });
        },
      },
      context,
    ),
  );
  const quantity = Number(
    await io.prompt(({ input }, context) =>
      input(
        {
          message: `Quantity of ${product}`,
          validate: (value) =>
            /^\d+$/.test(value.trim()) && Number(value) >= 1 && Number(value) <= MAX_QUANTITY
              ? true
              : `a whole number from 1 to ${MAX_QUANTITY.toLocaleString('en-US')}`,
        },
        context,
      ),
    ),
  );
  const chosen = products.find((p) => p.id === product);
  const price = chosen ? priceOf(chosen) : undefined;
  const cost = price
    ? ` at ${formatMoney(price.amount, price.currency)} each, ${formatMoney(price.amount * quantity, price.currency)} in all`
    : '';
  const yes = await io.prompt(({ confirm }, context) =>
    confirm(
      {
        message: `Place ${live ? 'a LIVE' : 'a test'} order for ${quantity} × ${product}${cost}?${live ? ` It is charged to the wallet of profile "${connection.profile}".` : ''}`,
        default: !live,
      },
      context,
    ),
  );
  if (!yes) throw new InterruptedError('cancelled: nothing was sent');
  return { product, quantity };
}
