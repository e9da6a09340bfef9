// A product's unit price, as the catalog, the guided order and a plan's estimate read it: the same rule as every
// other amount the API gives (src/money.ts), whichever field and shape the service chose. And a plan's rows
// checked against the catalog before any is sent.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Product } from '../../src/api/schemas.js';
import { checkRowsKnown, unitPriceOf } from '../../src/orders/products.js';
import { refusePlan } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';
import { saveCatalogCache } from '../../src/output/catalog-cache.js';

const product = (fields: Record<string, unknown>): Product => ({ id: 'p', ...fields }) as Product;

describe('unitPriceOf', () => {
  it('reads price, face_value or amount, as an integer with the currency beside it or as a money object', () => {
    expect(unitPriceOf(product({ price: 2500, currency: 'USD' }))).toEqual({ amount: 2500, currency: 'USD' });
    expect(unitPriceOf(product({ face_value: { amount: 1000, currency: 'EUR' } }))).toEqual({
      amount: 1000,
      currency: 'EUR',
    });
    expect(unitPriceOf(product({ amount: 500, currency: 'JPY' }))).toEqual({ amount: 500, currency: 'JPY' });
    expect(unitPriceOf(product({ price: { amount: 1, currency: 'GBP' }, face_value: 9, currency: 'USD' }))).toEqual({
      amount: 1,
      currency: 'GBP',
    });
  });

  it('is no price where the amount is not an integer of minor units, or the currency is not a three-letter code', () => {
    expect(unitPriceOf(undefined)).toBeUndefined();
    expect(unitPriceOf(product({ price: 25.5, currency: 'USD' }))).toBeUndefined();
    expect(unitPriceOf(product({ price: '2500', currency: 'USD' }))).toBeUndefined();
    expect(unitPriceOf(product({ price: 2500 }))).toBeUndefined();
    expect(unitPriceOf(product({ price: 2500, currency: 'US dollars' }))).toBeUndefined();
    expect(unitPriceOf(product({ price: { amount: 2500, currency: '' } }))).toBeUndefined();
    expect(unitPriceOf(product({ price: { amount: 2500, currency: 'USD\u001b[2J' } }))).toBeUndefined();
  });
});

describe("a plan's rows checked before sending, with no catalog cache", () => {
  const target = { profile: 'default', baseUrl: 'https://api.example' };
  const api = (listProducts: () => Promise<Product[]>) => () =>
    Promise.resolve({ listProducts } as unknown as ApiClient);

  it('reads the catalog: the rows it lacks come back for the refusal, which names the line and the nearest id', async () => {
    const catalog = () => Promise.resolve([{ id: 'amazon-us-25' }, { id: 'steam-us-20' }] as Product[]);
    const rows = [
      { row: 2, productId: 'amazon-us-25' },
      { row: 3, productId: 'stem-us-20' },
    ];
    const checked = await checkRowsKnown({ configDir: tempDir(), target, api: api(catalog) }, rows);
    expect(checked).toMatchObject({ unknown: [rows[1]], ids: ['amazon-us-25', 'steam-us-20'] });
    expect(() => refusePlan('plan.csv', [], { rows: checked.unknown, ids: checked.ids })).toThrow(
      expect.objectContaining({
        exitCode: 2,
        code: 'unknown_product',
        message: 'line 3: no product "stem-us-20" in the catalog (nothing was sent); did you mean steam-us-20?',
      }) as Error,
    );
    // What it read is handed back: the live plan's question prices the rows from it.
    const read = await checkRowsKnown({ configDir: tempDir(), target, api: api(catalog) }, rows.slice(0, 1));
    expect(read.products?.map((p) => p.id)).toEqual(['amazon-us-25', 'steam-us-20']);
  });

  it('a catalog that cannot be read never blocks the plan', async () => {
    const down = () => Promise.reject(new Error('503'));
    await expect(
      checkRowsKnown({ configDir: tempDir(), target, api: api(down) }, [{ row: 2, productId: 'anything' }]),
    ).resolves.toEqual({ unknown: [], ids: [] });
  });
});

describe("a plan's rows checked before sending, with the catalog list's cache", () => {
  const target = { profile: 'default', baseUrl: 'https://api.example' };
  it('asks the API only about the ids the cache lacks, and hands back the unknown ones with its ids', async () => {
    const configDir = tempDir();
    saveCatalogCache(configDir, target, ['amazon-us-25']);
    let reads = 0;
    const api = () =>
      Promise.resolve({
        listProducts: () => (reads++, Promise.resolve([{ id: 'amazon-us-25' }, { id: 'steam-us-20' }])),
      } as unknown as ApiClient);
    await expect(checkRowsKnown({ configDir, target, api }, [{ row: 1, productId: 'amazon-us-25' }])).resolves.toEqual({
      unknown: [],
      ids: ['amazon-us-25'],
    });
    expect(reads).toBe(0);
    const rows = [
      { row: 1, productId: 'amazon-us-25' },
      { row: 2, productId: 'steam-us-20' },
      { row: 3, productId: 'stem-us-20' },
    ];
    await expect(checkRowsKnown({ configDir, target, api }, rows)).resolves.toMatchObject({
      unknown: [rows[2]],
      ids: ['amazon-us-25', 'steam-us-20'],
    });
    expect(reads).toBe(1);
  });
});
