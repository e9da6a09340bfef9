// The words of a product id the catalog lacks (orders/products.ts noSuchProduct): the nearest ids of a typo, else the
// ids that hold what was typed. A person's day: `--product amazon` named none of the four Amazon products.
import { describe, expect, it } from 'vitest';
import { noSuchProduct } from '../../src/orders/products.js';

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
