// recover.ts deliveredToGone: the order of this very request last delivered to a file within the day, which `order
// place` asks about at a terminal when that file is gone (a person ran the line again "to get the codes back").
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliveredToGone } from '../../src/orders/recover.js';
import { tempDir } from '../helpers/e2e.js';
import { journal, recordAt, spec } from '../helpers/journal.js';

const now = (): string => new Date().toISOString();
const HOUR = 3_600_000;

/** A record of `spec`'s request, delivered now to `out`. */
function delivered(key: string, out: string, extra: Parameters<typeof recordAt>[2] = {}): ReturnType<typeof recordAt> {
  return recordAt(key, now(), {
    productId: spec.productId,
    quantity: spec.quantity,
    baseUrl: spec.baseUrl,
    keyId: spec.keyId,
    orderId: `ord_${key}`,
    out,
    ...extra,
  });
}

describe('deliveredToGone', () => {
  it('names the order of this request last delivered to the file, by its folder reached any way', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const j = journal();
    await j.history.recordAll([delivered('a', join(dir, 'link', 'codes.csv'))]);
    expect(deliveredToGone(j, spec, join(dir, 'real', 'codes.csv'))).toMatchObject({ orderId: 'ord_a' });
    expect(deliveredToGone(j, spec, join(dir, 'link', 'codes.csv'))?.out).toBe(join(dir, 'link', 'codes.csv'));
    expect(deliveredToGone(j, spec, join(dir, 'real', 'other.csv'))).toBeUndefined();
  });

  it('not for another request: product, quantity, environment, another key here or at another address', async () => {
    const out = join(tempDir(), 'codes.csv');
    const j = journal();
    await j.history.recordAll([delivered('a', out)]);
    for (const other of [
      { productId: 'steam-us-20' },
      { quantity: spec.quantity + 1 },
      { environment: 'live' as const },
      { profile: 'shop', keyId: 'k2' },
      { keyId: 'k2' },
      { baseUrl: 'http://127.0.0.1:4011', keyId: 'k2' },
    ])
      expect(deliveredToGone(j, { ...spec, ...other }, out), JSON.stringify(other)).toBeUndefined();
    expect(deliveredToGone(j, spec, out)?.key).toBe('a');
    // Another profile holding this very API key, or this key at another spelling of the address: one reseller to the API.
    expect(deliveredToGone(j, { ...spec, profile: 'shop' }, out)?.key).toBe('a');
    expect(deliveredToGone(j, { ...spec, baseUrl: 'http://localhost:4010' }, out)?.key).toBe('a');
  });

  it("another profile's or a rotated key of the same reseller counts; an order older than a day does not", async () => {
    const out = join(tempDir(), 'codes.csv');
    const j = journal();
    await j.history.recordAll([delivered('a', out, { profile: 'shop', resellerId: 'rs_1' })]);
    expect(deliveredToGone(j, { ...spec, keyId: 'k9', resellerId: 'rs_1' }, out)?.key).toBe('a');
    expect(deliveredToGone(j, { ...spec, keyId: 'k9', resellerId: 'rs_2' }, out)).toBeUndefined();
    expect(deliveredToGone(j, { ...spec, resellerId: 'rs_1' }, out, Date.now() + 25 * HOUR)).toBeUndefined();
  });

  it('not when the last order to the file ended otherwise, or its record has no order id', async () => {
    const out = join(tempDir(), 'codes.csv');
    const j = journal();
    await j.history.recordAll([delivered('a', out)]);
    // The same key's record written again as failed afterwards (the provider failed it): not delivered any more.
    await j.history.recordAll([delivered('a', out, { outcome: 'failed' })]);
    expect(deliveredToGone(j, spec, out)).toBeUndefined();
    const k = journal();
    await k.history.recordAll([delivered('b', out, { orderId: undefined })]);
    expect(deliveredToGone(k, spec, out)).toBeUndefined();
  });
});
