// The way to an order abandoned after its request went out (src/orders/ref.ts abandonedWayOut): the same order
// placed again within the key's day, a plan's row by its plan, and after the day only the provider's dashboard.
// Before, only end-to-end tests saw these words (a scoped Stryker run found them uncovered here).
import { describe, expect, it } from 'vitest';
import { abandonedWayOut } from '../../src/orders/ref.js';

const T = Date.parse('2026-06-02T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number): string => new Date(ms).toISOString();
const record = {
  key: 'k-1',
  sent: true as const,
  createdAt: at(T - HOUR),
  productId: 'amazon-us-25',
  quantity: 3,
  environment: 'test' as const,
  profile: 'default',
};

describe('abandonedWayOut', () => {
  it('none for a record whose request never went out', () => {
    expect(abandonedWayOut({ ...record, sent: undefined }, T)).toBeUndefined();
  });

  it('within the day: the same order placed again, with the flags of its profile and environment', () => {
    expect(abandonedWayOut(record, T)).toBe(
      `it may have been placed before it was abandoned: the same order placed again within a day of ${at(T - HOUR)} sends its request under the same key (that order if it was placed, a new one if not, never both): giftcodes order place --product amazon-us-25 --quantity 3 --env test`,
    );
    expect(abandonedWayOut({ ...record, profile: 'shop', environment: 'live' }, T)).toMatch(
      / --quantity 3 --profile shop --env live$/,
    );
  });

  // A review: after a key rotation (or at another spelling of the address) the same order place was a new order, and
  // these words had promised "never both".
  it('with the address it was sent to: the command sends it there, and another API key is said to be a new order', () => {
    const at127 = { ...record, environment: 'live' as const, baseUrl: 'http://127.0.0.1:4010' };
    expect(abandonedWayOut(at127, T)).toBe(
      `it may have been placed before it was abandoned: the same order placed again within a day of ${at(T - HOUR)} at http://127.0.0.1:4010 with the API key it was sent with (not one rotated since: that places a new order beside it) sends its request under the same key (that order if it was placed, a new one if not, never both): giftcodes order place --product amazon-us-25 --quantity 3 --env live --base-url http://127.0.0.1:4010`,
    );
    expect(abandonedWayOut({ ...at127, key: `plan-${'a'.repeat(24)}` }, T)).toContain(
      'with the same file name and the same --batch at http://127.0.0.1:4010 with the API key it was sent with (not one rotated since',
    );
  });

  it("a plan's row: its plan, run again as it was", () => {
    expect(abandonedWayOut({ ...record, key: `plan-${'a'.repeat(24)}` }, T)).toBe(
      `it may have been placed before it was abandoned: its plan, run again within a day of ${at(T - HOUR)} with the same file name and the same --batch and the row unchanged, sends this row's request under the same key (that order if it was placed, a new one if not, never both)`,
    );
    // Where the record keeps them, the plan's file name and its --batch (or none) are named: a review ran the plan
    // without the batch it had, and was charged twice.
    const row = { ...record, key: `plan-${'a'.repeat(24)}`, plan: 'nightly.csv' };
    expect(abandonedWayOut({ ...row, batch: null }, T)).toContain(
      'with the same file name (nightly.csv) and no --batch and',
    );
    expect(abandonedWayOut({ ...row, batch: '2026-12-01 night' }, T)).toContain(
      "with the same file name (nightly.csv) and --batch '2026-12-01 night' and",
    );
  });

  // A review: after a reuse, the words named the reuse's time, up to a day from the real order.
  it('a key sent again: its day and the dashboard search count from its first send', () => {
    const reused = { ...record, keySince: at(T - 20 * HOUR) };
    expect(abandonedWayOut(reused, T)).toContain(`within a day of ${at(T - 20 * HOUR)} sends`);
    expect(abandonedWayOut(reused, T + 5 * HOUR)).toBe(
      `it may have been placed before it was abandoned, and the API cannot be asked by key: look in the provider's dashboard for an order of 3 × amazon-us-25 placed about ${at(T - 20 * HOUR)} (or when it was sent again, about ${at(T - HOUR)})`,
    );
    expect(abandonedWayOut({ ...record, createdAt: at(T - 25 * HOUR) }, T)).toBe(
      `it may have been placed before it was abandoned, and the API cannot be asked by key: look in the provider's dashboard for an order of 3 × amazon-us-25 placed about ${at(T - 25 * HOUR)}`,
    );
  });
});
