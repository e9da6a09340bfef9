// The codes route writes its pages as bytes directly: they must be exactly what JSON.stringify makes of
// the records, for every prefix a seed may hold, across the 6-to-7-digit serial boundary, test and live.
import { describe, expect, test } from 'vitest';
import { codeRecords, codeRecordsJson } from '../../src/server/codes.js';
import type { SeedProduct } from '../../src/server/seed.js';
import type { Order } from '../../src/server/store.js';

function order(o: { quantity: number; environment?: 'test' | 'live'; codePrefix?: string; id?: string }): Order {
  const product: SeedProduct = {
    id: 'p',
    name: 'P',
    brand: 'B',
    price: 2500,
    currency: 'EUR',
    supply: 1,
    ...(o.codePrefix === undefined ? {} : { codePrefix: o.codePrefix }),
  };
  return {
    id: o.id ?? 'ord_0123456789abcdef01234567',
    resellerId: 'rs',
    environment: o.environment ?? 'test',
    product,
    quantity: o.quantity,
    amount: 2500 * o.quantity,
    idempotencyKey: 'k',
    createdAt: Date.parse('2026-01-02T03:04:05.678Z'),
    failureReason: null,
    settled: false,
    refunded: false,
  };
}

const asJson = (o: Order, offset: number, count: number, secret = 'live-secret') =>
  codeRecordsJson(o, offset, count, secret).toString('utf8');
const stringified = (o: Order, offset: number, count: number, secret = 'live-secret') =>
  codeRecords(o, offset, count, secret)
    .map((r) => JSON.stringify(r))
    .join(',');

describe('codeRecordsJson', () => {
  test.each([
    ['no prefix', undefined],
    ['a formula prefix with quotes', '=HYPERLINK("http://evil.invalid")&'],
    ['a prefix JSON must escape', 'a\\b\n\t\u0001é€😀'],
  ])('is JSON.stringify of the records, byte for byte: %s', (_name, codePrefix) => {
    for (const environment of ['test', 'live'] as const) {
      const o = order({ quantity: 50, environment, ...(codePrefix === undefined ? {} : { codePrefix }) });
      expect(asJson(o, 0, 50)).toBe(stringified(o, 0, 50));
      expect(asJson(o, 17, 5)).toBe(stringified(o, 17, 5));
      expect(JSON.parse(`[${asJson(o, 0, 3)}]`)).toEqual(codeRecords(o, 0, 3, 'live-secret'));
    }
  });

  test('serial numbers grow from 6 to 7 digits at the millionth code', () => {
    const o = order({ quantity: 1_000_000 });
    const text = asJson(o, 999_997, 1000);
    expect(text).toBe(stringified(o, 999_997, 1000));
    const serials = (JSON.parse(`[${text}]`) as { serial: string }[]).map((r) => r.serial.split('-')[1]);
    expect(serials).toEqual(['999998', '999999', '1000000']);
  });

  test('a page is the same codes whichever offset it starts at, and nothing past the quantity', () => {
    const o = order({ quantity: 30 });
    const whole = codeRecords(o, 0, 30, 's');
    expect([...codeRecords(o, 0, 13, 's'), ...codeRecords(o, 13, 100, 's')]).toEqual(whole);
    expect(codeRecords(o, 30, 10, 's')).toEqual([]);
    expect(asJson(o, 30, 10, 's')).toBe('');
    expect(new Set(whole.map((r) => r.code)).size).toBe(30);
  });

  test('codes depend on the order id, and live codes on the server secret; sandbox codes do not', () => {
    const a = codeRecords(order({ quantity: 3 }), 0, 3, 'one');
    expect(codeRecords(order({ quantity: 3 }), 0, 3, 'two')).toEqual(a);
    expect(codeRecords(order({ quantity: 3, id: 'ord_ffffffffffffffffffffffff' }), 0, 3, 'one')).not.toEqual(a);
    const live = codeRecords(order({ quantity: 3, environment: 'live' }), 0, 3, 'one');
    expect(codeRecords(order({ quantity: 3, environment: 'live' }), 0, 3, 'two').map((r) => r.code)).not.toEqual(
      live.map((r) => r.code),
    );
    for (const r of live) expect(r.code).toMatch(/^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){3}$/);
  });
});
