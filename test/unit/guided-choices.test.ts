// The guided order's product list (src/orders/guided.ts): what a person scans down, and what stays on screen once
// they chose.
import { describe, expect, it } from 'vitest';
import type { Product } from '../../src/api/schemas.js';
import { productChoices, typedQuantity } from '../../src/orders/guided.js';

const products = [
  { id: 'amazon-us-10', brand: 'Amazon', price: { amount: 1000, currency: 'USD' } },
  { id: 'google-play-us-25', brand: 'Google Play', price: { amount: 2500, currency: 'USD' } },
  { id: 'amazon-us-100', brand: 'Amazon', price: { amount: 10000, currency: 'USD' }, available: false },
  { id: 'steam-eu-20', brand: 'Steam', price: { amount: 2000, currency: 'EUR' }, in_stock: false },
  { id: 'mystery', brand: 'Mystery' },
] as unknown as Product[];

describe('the guided order product list', () => {
  const choices = productChoices(products);

  it('puts brand and price in columns, prices right-aligned, whatever the id and brand lengths', () => {
    const brandAt = choices.map((c) => c.name.indexOf(String(products[choices.indexOf(c)]!.brand)));
    expect(new Set(brandAt).size).toBe(1);
    const priced = choices.filter((c) => /USD|EUR/.test(c.name));
    expect(new Set(priced.map((c) => c.name.length)).size).toBe(1);
    expect(choices[0]!.name).toMatch(/^amazon-us-10 +Amazon +10\.00 USD$/);
    expect(choices[2]!.name).toMatch(/Amazon +100\.00 USD$/);
  });

  it('shows the id alone as the answer once chosen', () => {
    expect(choices.map((c) => c.short)).toEqual(products.map((p) => p.id));
    expect(choices.map((c) => c.value)).toEqual(products.map((p) => p.id));
  });

  it('lists a product the catalog says is unavailable, but it cannot be chosen; an unknown availability can', () => {
    expect(choices.map((c) => c.disabled)).toEqual([undefined, undefined, '(unavailable)', '(unavailable)', undefined]);
  });
});

describe('typedQuantity', () => {
  it('digits, or digits grouped in threes as the prompt writes its limit (1,000)', () => {
    expect(typedQuantity('5')).toBe(5);
    expect(typedQuantity(' 1000 ')).toBe(1000);
    expect(typedQuantity('1,000')).toBe(1000);
    expect(typedQuantity('1,000,000')).toBe(1_000_000);
  });

  it('anything else is asked again: a decimal comma, other separators, units, out of range', () => {
    for (const value of ['1,5', '1,0000', ',100', '1.000', '10k', '', '0', '-3', '1,000,001', '2 000'])
      expect(typedQuantity(value), value).toBeUndefined();
  });
});
