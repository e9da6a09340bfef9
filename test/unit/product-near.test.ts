// The words of a product id the catalog lacks (orders/products.ts noSuchProduct): the nearest ids of a typo, else the
// ids that hold what was typed. A person's day: `--product amazon` named none of the four Amazon products.
import { describe, expect, it } from 'vitest';
import { noSuchProduct, unknownRows } from '../../src/orders/products.js';
import { linesOf } from '../../src/output/words.js';

const IDS = ['amazon-us-10', 'amazon-us-25', 'amazon-us-50', 'amazon-us-100', 'steam-us-20', 'steam-us-50'];

describe('noSuchProduct', () => {
  it('a typo: its nearest ids', () => {
    expect(noSuchProduct('stem-us-20', IDS, 'nothing was sent')).toBe(
      'no product "stem-us-20" in the catalog (nothing was sent); did you mean steam-us-20?',
    );
  });

  it('a brand or a part of ids: the ids that hold it, in any case; too many are counted, with the search', () => {
    expect(noSuchProduct('steam', IDS)).toBe(
      'no product "steam" in the catalog; did you mean steam-us-20 or steam-us-50?',
    );
    expect(noSuchProduct('AMAZON', IDS)).toContain(
      'did you mean amazon-us-10, amazon-us-25, amazon-us-50 or amazon-us-100?',
    );
    expect(noSuchProduct('us-10', IDS)).toBe(
      'no product "us-10" in the catalog; did you mean amazon-us-10 or amazon-us-100?',
    );
    expect(noSuchProduct('amazon', IDS)).toBe(
      'no product "amazon" in the catalog; did you mean amazon-us-10, amazon-us-25, amazon-us-50 or amazon-us-100?',
    );
    expect(noSuchProduct('us', [...IDS, 'xx-us-1'], 'nothing was sent')).toBe(
      'no product "us" in the catalog (nothing was sent)',
    );
    expect(noSuchProduct('-us-', IDS)).toBe(
      'no product "-us-" in the catalog; 6 products have "-us-" in their id: giftcodes catalog list --filter -us-',
    );
    expect(noSuchProduct('netflix', IDS)).toBe('no product "netflix" in the catalog');
  });
});

describe("unknownRows: a plan's unknown products, by product, their lines as runs", () => {
  it('a 1,000-row plan with one typo in every row: one product, its other lines as one run (was every line said)', () => {
    const bad = Array.from({ length: 1000 }, (_, i) => ({ row: i + 3, productId: 'amzn-us-50' }));
    const error = unknownRows(bad, IDS);
    expect(error.message).toBe(
      'line 3: no product "amzn-us-50" in the catalog (nothing was sent); did you mean amazon-us-50?; the same on lines 4–1002',
    );
    expect(error.exitCode).toBe(2);
    expect(error.code).toBe('unknown_product');
  });

  it('other products each with their lines; beyond ten products the rest counted', () => {
    expect(
      unknownRows(
        [
          { row: 3, productId: 'stem-us-20' },
          { row: 5, productId: 'google-pay-us-25' },
          { row: 6, productId: 'stem-us-20' },
          { row: 9, productId: 'google-pay-us-25' },
        ],
        IDS,
      ).message,
    ).toBe(
      'line 3: no product "stem-us-20" in the catalog (nothing was sent); did you mean steam-us-20?; the same on line 6; also unknown: lines 5 and 9: "google-pay-us-25"',
    );
    const many = [
      { row: 2, productId: 'x0' },
      ...Array.from({ length: 13 }, (_, i) => ({ row: i + 3, productId: `y${i}` })),
    ];
    expect(unknownRows(many, IDS).message).toMatch(
      /; also unknown: line 3: "y0", line 4: "y1", .*line 12: "y9" and 3 rows of 3 other products$/,
    );
  });

  it('linesOf: one line, two, a run, runs beyond five counted', () => {
    expect(linesOf([7])).toBe('line 7');
    expect(linesOf([7, 8])).toBe('lines 7 and 8');
    expect(linesOf([7, 9])).toBe('lines 7 and 9');
    expect(linesOf([4, 5, 6])).toBe('lines 4–6');
    expect(linesOf([2, 4, 5, 6, 9])).toBe('lines 2, 4–6 and 9');
    expect(linesOf([1, 3, 5, 7, 9, 11, 12, 13, 20])).toBe('lines 1, 3, 5, 7, 9 and 4 more');
  });
});
