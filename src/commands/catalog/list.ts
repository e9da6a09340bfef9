import { Option, type Command } from 'commander';
import { exportResult } from '../../output/exporter.js';
import { display, renderTable } from '../../output/table.js';
import type { ApiClient } from '../../api/client.js';
import type { Product } from '../../api/schemas.js';
import type { Io } from '../../output/io.js';
import type { Progress } from '../../output/progress.js';
import { nearestIds } from '../../near.js';
import { unitPriceOf } from '../../orders/products.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { integer, nonEmpty } from '../parse.js';

export interface CatalogListOptions {
  /** Only products whose id or name contains this, in any case. */
  filter?: string;
  /** At most this many products: the reading stops at the page that holds the last. */
  limit?: number;
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('list')
    .description('list the products (each id is a purchasable denomination)')
    .addOption(
      new Option('--filter <text>', 'only products whose id or name contains this (any case)').argParser(
        nonEmpty('--filter'),
      ),
    )
    .addOption(new Option('--limit <n>', 'at most n products').argParser(integer(1, 1_000_000)))
    .action(async (flags: CatalogListOptions, cmd: Command) => run(flags, app.context(cmd).deps));
  examples(command, [
    'giftcodes catalog list',
    'giftcodes catalog list --filter steam',
    "giftcodes catalog list --json | jq -r '.[].id'",
    'giftcodes catalog list --env live --limit 20',
  ]);
}

/**
 * A --filter that matched nothing, with the words of the catalog's ids and names nearest it: `--filter amazn` said
 * only "no product's id or name contains", where `order place --product` says "did you mean" (a person's day).
 */
function nearFilter(filter: string, products: readonly Product[]): string {
  const words = new Set<string>();
  for (const product of products)
    for (const text of [product.id, product.name, product.title])
      if (typeof text === 'string')
        for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length > 2) words.add(word);
  const near = nearestIds(filter, [...words]);
  return near.length === 0 ? '' : `; did you mean ${near.map((w) => `--filter ${w}`).join(' or ')}?`;
}

/** Whether a product's id or name (or title, as some services call it) contains `text`, in any case. */
export function productMatches(product: Product, text: string): boolean {
  const wanted = text.toLowerCase();
  return [product.id, product.name, product.title].some(
    (field) => typeof field === 'string' && field.toLowerCase().includes(wanted),
  );
}

/**
 * The whole catalog: a spinner until the first page, then products read of the total the service states
 * (or the count and rate, where it states none) for a catalog of many pages.
 */
export async function readCatalog(
  io: Io,
  api: ApiClient,
  enough?: (products: readonly Product[]) => boolean,
): Promise<Product[]> {
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
    }, enough);
  } finally {
    spinner.stop();
    progress?.stop();
  }
}

export async function run(
  options: CatalogListOptions,
  deps: Pick<Deps, 'io' | 'api' | 'configDir' | 'connection'>,
): Promise<void> {
  const [api, connection] = await Promise.all([deps.api(), deps.connection()]);
  const { filter, limit } = options;
  const matches = (product: Product) => filter === undefined || productMatches(product, filter);
  const read = await readCatalog(
    deps.io,
    api,
    limit === undefined ? undefined : (products) => products.filter(matches).length >= limit,
  );
  // Completions offer product ids from this cache: TAB never calls the network. A reading that --limit ended early
  // holds part of the catalog, which would take the other ids from TAB: kept only when the catalog was read whole.
  const matched = filter === undefined ? read : read.filter(matches);
  const whole = limit === undefined || matched.length < limit;
  if (whole) {
    const { saveCatalogCache } = await import('../../output/catalog-cache.js');
    const prices: Record<string, { amount: number; currency: string }> = {};
    for (const product of read) {
      const price = unitPriceOf(product);
      if (price) prices[product.id] = price;
    }
    saveCatalogCache(
      deps.configDir,
      { profile: connection.profile, baseUrl: connection.baseUrl },
      read.map((product) => product.id),
      prices,
    );
  }
  const products = matched.slice(0, limit);
  const { io } = deps;
  await exportResult(io, products, {
    empty: {
      when: (rows) => rows.length === 0,
      line:
        filter === undefined
          ? 'the catalog is empty'
          : `no product's id or name contains "${filter}" (the catalog holds ${read.length} products)${nearFilter(filter, read)}`,
      notice: true,
    },
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
        ? [io.ce.dim(`${rows.length} products; more fields with --json (${[...extra].slice(0, 6).join(', ')})`)]
        : [];
    },
  });
}
