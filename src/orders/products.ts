// Typos are caught before money moves: a product id that is not in the catalog is refused (exit 2) with the
// nearest ids, before anything is sent. The catalog cache of the last `catalog list` (output/catalog-cache.ts)
// says whether an id is known without a request; an id it lacks is looked up in the catalog itself, since
// the cache may be older than the product.
import type { ApiClient } from '../api/client.js';
import type { Product } from '../api/schemas.js';
import { UsageError } from '../errors.js';
import { moneyOf, spokenMoney, type Money } from '../money.js';
import { nearestIds } from '../near.js';
import { readCatalogCache, type CacheTarget } from '../output/catalog-cache.js';
import { counted, linesOf } from '../output/words.js';
import { groupBy } from '../group.js';

/** `no product "amazn-us-25" in the catalog (nothing was sent); did you mean amazon-us-25?` (exit 2). */
function unknownProduct(id: string, ids: readonly string[], where = ''): UsageError {
  return new UsageError(`${where}${noSuchProduct(id, ids, 'nothing was sent')}`, {
    code: 'unknown_product',
    hint: UNKNOWN_PRODUCT_HINT,
  });
}

export const UNKNOWN_PRODUCT_HINT = 'list the products with: giftcodes catalog list';

/** `no product "amazn-us-25" in the catalog (aside); did you mean amazon-us-25?`: the words of one unknown id. */
export function noSuchProduct(id: string, ids: readonly string[], aside?: string): string {
  return `no product "${id}" in the catalog${aside ? ` (${aside})` : ''}${nearWords(id, ids)}`;
}

/** At most this many ids that hold the typed text are named; more are counted, with the search that lists them. */
const HOLDING_NAMED = 4;

/**
 * The ids nearest a typo; failing those, the ids that hold the text typed (a brand, `--product amazon`: a person's
 * day met no word of the four Amazon products, too far from "amazon" for a typo).
 */
function nearWords(id: string, ids: readonly string[]): string {
  const near = nearestIds(id, ids);
  if (near.length > 0) return `; did you mean ${near.join(' or ')}?`;
  const text = id.trim().toLowerCase();
  if (text.length < 3) return '';
  const holding = ids.filter((candidate) => candidate.toLowerCase().includes(text));
  if (holding.length === 0) return '';
  if (holding.length > HOLDING_NAMED)
    return `; ${holding.length} products have "${id}" in their id: giftcodes catalog list --filter ${id}`;
  return `; did you mean ${holding.slice(0, -1).join(', ')}${holding.length > 1 ? ' or ' : ''}${holding.at(-1)}?`;
}

/**
 * Refuses a product id the catalog does not have, before anything is sent. Only where the catalog is at hand:
 * with no cache, the order goes as before (the API refuses an unknown product, charging nothing); a catalog
 * that cannot be read now never blocks an order.
 */
export async function checkProductKnown(
  o: { configDir: string; target: CacheTarget; api: () => Promise<ApiClient>; catalog?: readonly Product[] },
  id: string,
): Promise<void> {
  // The catalog just read (a guided order's) is the one asked, rather than the cache and the API.
  if (o.catalog) {
    const ids = o.catalog.map((p) => p.id);
    if (!ids.includes(id)) throw unknownProduct(id, ids);
    return;
  }
  const cached = readCatalogCache(o.configDir, o.target);
  if (cached.length === 0 || cached.includes(id)) return;
  let products: Product[];
  try {
    products = await (await o.api()).listProducts();
  } catch {
    return;
  }
  const ids = products.map((p) => p.id);
  // The cache is left as `catalog list` saved it (with its prices): this read only answers the one question.
  if (!ids.includes(id)) throw unknownProduct(id, ids);
}

/**
 * Plan rows whose product the catalog lacks: the first named with its nearest ids, then the other lines of that
 * product, then each other unknown product with its lines (exit 2). Lines are said as runs (`lines 4–1002`), at
 * most five runs (words.ts linesOf) a product and UNKNOWN_NAMED products, the rest counted: a 1,000-row plan with one typo in
 * its product column once got every line, a thousand, in one error line.
 */
export function unknownRows(bad: readonly { row: number; productId: string }[], ids: readonly string[]): UsageError {
  const byProduct = groupBy(bad, (r) => r.productId);
  const [head, ...others] = [...byProduct].map(([id, rows]): [string, number[]] => [id, rows.map((r) => r.row)]);
  const [firstId, firstLines] = head!;
  const first = unknownProduct(firstId, ids, `line ${firstLines[0]}: `);
  const same = firstLines.length > 1 ? `; the same on ${linesOf(firstLines.slice(1))}` : '';
  const named = others.slice(0, UNKNOWN_NAMED).map(([id, lines]) => `${linesOf(lines)}: "${id}"`);
  const unnamed = others.slice(UNKNOWN_NAMED).reduce((sum, [, lines]) => sum + lines.length, 0);
  const more =
    named.length === 0
      ? ''
      : `; also unknown: ${named.join(', ')}${unnamed > 0 ? ` and ${counted(unnamed, 'row')} of ${counted(others.length - UNKNOWN_NAMED, 'other product')}` : ''}`;
  return new UsageError(`${first.message}${same}${more}`, {
    code: 'unknown_product',
    ...(first.hint ? { hint: first.hint } : {}),
  });
}

/** At most this many other unknown products are named in a plan's refusal; the rest are counted. */
const UNKNOWN_NAMED = 10;
/**
 * A plan's rows checked before any row is sent: a typo in one row is found while nothing is charged, rather
 * than by the API after the other rows were ordered. Unlike one order (checkProductKnown), with no cache
 * the catalog is read: one order refused by the API costs nothing, but a plan's other rows would be charged
 * first. A catalog that cannot be read never blocks the plan (the API still refuses an unknown product).
 * The rows the catalog lacks are returned, with its ids, for the caller to refuse beside the plan's other problems.
 */
export async function checkRowsKnown<Row extends { row: number; productId: string }>(
  o: { configDir: string; target: CacheTarget; api: () => Promise<ApiClient> },
  rows: readonly Row[],
): Promise<{ products?: readonly Product[]; unknown: Row[]; ids: readonly string[] }> {
  const cached = readCatalogCache(o.configDir, o.target);
  const suspect = cached.length === 0 ? rows : rows.filter((r) => !cached.includes(r.productId));
  if (suspect.length === 0) return { unknown: [], ids: cached };
  let products: Product[];
  try {
    products = await (await o.api()).listProducts();
  } catch {
    return { unknown: [], ids: cached };
  }
  const ids = products.map((p) => p.id);
  return { products, unknown: suspect.filter((r) => !ids.includes(r.productId)), ids };
}

/** The total per currency: `250.00 USD + 40.00 EUR`; undefined when no row has a price. */
export function totalOf(rows: readonly { price?: Money | undefined; quantity: number }[]): string | undefined {
  const sums = new Map<string, number>();
  for (const r of rows)
    if (r.price) sums.set(r.price.currency, (sums.get(r.price.currency) ?? 0) + r.price.amount * r.quantity);
  return sums.size === 0 ? undefined : [...sums].map(([currency, minor]) => spokenMoney(minor, currency)).join(' + ');
}

/** A product's price in minor units: `{amount, currency}`, or a number beside a `currency` field; else unknown. */
export function unitPriceOf(product: Product | undefined): Money | undefined {
  if (!product) return undefined;
  const price: unknown = product.price ?? product.face_value ?? product.amount;
  // A bare number is in the product's currency; an object carries its own.
  return moneyOf(typeof price === 'number' ? { amount: price, currency: product.currency } : price);
}
