import type { Command } from 'commander';
import { exportResult } from '../../output/exporter.js';
import { display, renderTable } from '../../output/table.js';
import type { ApiClient } from '../../api/client.js';
import type { Product } from '../../api/schemas.js';
import type { Io } from '../../output/io.js';
import type { Progress } from '../../output/progress.js';
import { unitPriceOf } from '../../orders/products.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'list the products (each id is a purchasable denomination)',
    examples: [
      'giftcodes catalog list',
      "giftcodes catalog list --json | jq -r '.[].id'",
      'giftcodes catalog list --env live',
    ],
  };
  addVerb(parent, app, 'list', help, ({ deps }) => run(deps));
}

/**
 * The whole catalog: a spinner until the first page, then products read of the total the service states
 * (or the count and rate, where it states none) for a catalog of many pages.
 */
export async function readCatalog(io: Io, api: ApiClient): Promise<Product[]> {
  const [spinner, { startProgress }] = await Promise.all([
    io.spinner('reading the catalog'),
    import('../../output/progress.js'),
  ]);
  let progress: Progress | undefined;
  try {
    return await api.listProducts((read, total) => {
      if (!progress) {
        spinner.stop();
        progress = startProgress(io, { label: 'reading the catalog', unit: 'products', total });
      }
      progress.update(read, total);
    });
  } finally {
    spinner.stop();
    progress?.stop();
  }
}

export async function run(deps: Pick<Deps, 'io' | 'api' | 'configDir' | 'connection'>): Promise<void> {
  const [api, connection] = await Promise.all([deps.api(), deps.connection()]);
  const products = await readCatalog(deps.io, api);
  // Completions offer product ids from this cache: TAB never calls the network.
  const { saveCatalogCache } = await import('../../output/catalog-cache.js');
  const prices: Record<string, { amount: number; currency: string }> = {};
  for (const product of products) {
    const price = unitPriceOf(product);
    if (price) prices[product.id] = price;
  }
  saveCatalogCache(
    deps.configDir,
    { profile: connection.profile, baseUrl: connection.baseUrl },
    products.map((product) => product.id),
    prices,
  );
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
      return extra.size > 0
        ? [io.c.dim(`${rows.length} products; more fields with --json (${[...extra].slice(0, 6).join(', ')})`)]
        : [];
    },
  });
}
