import type { Command } from 'commander';
import { exportResult } from '../../output/exporter.js';
import { display, renderTable } from '../../output/table.js';
import type { Product } from '../../api/schemas.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';

export function register(parent: Command, app: App): void {
  const help = { description: 'list the products (each id is a purchasable denomination)', examples: ['giftcodes catalog list', "giftcodes catalog list --json | jq -r '.[].id'", 'giftcodes catalog list --env live'] };
  addVerb(parent, app, 'list', help, ({ deps }) => run(deps));
}

export async function run(deps: Pick<Deps, 'io' | 'api' | 'configDir' | 'connection'>): Promise<void> {
  const [api, connection] = await Promise.all([deps.api(), deps.connection()]);
  const spinner = await deps.io.spinner('reading the catalog');
  let products: Product[];
  try {
    products = await api.listProducts();
  } finally {
    spinner.stop();
  }
  // Completions offer product ids from this cache: TAB never calls the network.
  const { saveCatalogCache } = await import('../../output/catalog-cache.js');
  const prices: Record<string, { amount: number; currency: string }> = {};
  for (const product of products) {
    const price = unitPrice(product);
    if (price) prices[product.id] = price;
  }
  saveCatalogCache(deps.configDir, { profile: connection.profile, baseUrl: connection.baseUrl }, products.map((product) => product.id), prices);
  const { io } = deps;
  await exportResult(io, products, {
    empty: { when: (rows) => rows.length === 0, line: 'the catalog is empty', notice: true },
    text: (rows) =>
      renderTable(io, rows, [
        { header: 'id', value: (p) => p.id, whole: true },
        { header: 'name', value: (p) => display(p.name ?? p.title ?? p.description) },
        { header: 'brand', value: (p) => display(p.brand) },
        { header: 'price', value: (p) => display(p.price ?? p.face_value ?? p.amount) },
        { header: 'available', value: (p) => display(p.available ?? p.in_stock ?? p.supply) },
      ]),
    notes: (rows) => {
      const known = new Set(['id', 'name', 'brand', 'price', 'available', 'object']);
      const extra = new Set(rows.flatMap((p) => Object.keys(p).filter((k) => !known.has(k))));
      return extra.size > 0 ? [io.c.dim(`${rows.length} products; more fields with --json (${[...extra].slice(0, 6).join(', ')})`)] : [];
    },
  });
}

/** A product's price in minor units: `{amount, currency}`, or a number beside a `currency` field; else unknown. */
function unitPrice(product: Product): { amount: number; currency: string } | undefined {
  const price: unknown = product.price ?? product.face_value ?? product.amount;
  if (typeof price === 'number' && Number.isSafeInteger(price) && typeof product.currency === 'string') return { amount: price, currency: product.currency };
  if (!price || typeof price !== 'object') return undefined;
  const { amount, currency } = price as { amount?: unknown; currency?: unknown };
  return typeof amount === 'number' && Number.isSafeInteger(amount) && typeof currency === 'string' ? { amount, currency } : undefined;
}
