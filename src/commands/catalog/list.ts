import type { Command } from 'commander';
import type { Factory } from '../../factory.js';
import { exportResult } from '../../output/exporter.js';
import { display, renderTable } from '../../output/table.js';
import type { Product } from '../../api/schemas.js';
import { examples, type App } from '../app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('list')
    .description('list the products (each id is a purchasable denomination)')
    .action(async (_flags: object, cmd: Command) => run(app.factory(cmd)));
  examples(command, ['giftcodes catalog list', 'giftcodes catalog list --json | jq -r \'.[].id\'', 'giftcodes catalog list --env live']);
}

export async function run(f: Factory): Promise<void> {
  const api = await f.api();
  const spinner = await f.io.spinner('reading the catalog');
  let products: Product[];
  try {
    products = await api.listProducts();
  } finally {
    spinner.stop();
  }
  // Completions offer product ids from this cache: TAB never calls the network.
  const { saveCatalogCache } = await import('../../output/catalog-cache.js');
  saveCatalogCache(f.configDir, products.map((product) => product.id));
  if (products.length === 0 && !f.io.json) {
    f.io.notice('the catalog is empty');
    return;
  }
  await exportResult(f.io, products, {
    text: (rows) =>
      renderTable(f.io, rows, [
        { header: 'id', value: (p) => p.id, whole: true },
        { header: 'name', value: (p) => display(p.name ?? p.title ?? p.description) },
        { header: 'brand', value: (p) => display(p.brand) },
        { header: 'price', value: (p) => display(p.price ?? p.face_value ?? p.amount) },
        { header: 'available', value: (p) => display(p.available ?? p.in_stock ?? p.supply) },
      ]),
  });
  if (f.io.json) return;
  const known = new Set(['id', 'name', 'brand', 'price', 'available', 'object']);
  const extra = new Set(products.flatMap((p) => Object.keys(p).filter((k) => !known.has(k))));
  if (extra.size > 0) f.io.notice(f.io.c.dim(`${products.length} products; more fields with --json (${[...extra].slice(0, 6).join(', ')})`));
}
