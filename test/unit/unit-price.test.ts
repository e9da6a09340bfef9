// A product's unit price, as the catalog, the guided order and a plan's estimate read it: the same rule as every
// other amount the API gives (src/money.ts), whichever field and shape the service chose.
import { describe, expect, it } from 'vitest';
import type { Product } from '../../src/api/schemas.js';
import { unitPriceOf } from '../../src/orders/products.js';

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
