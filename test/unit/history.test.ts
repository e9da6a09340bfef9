import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { History, type OrderRecord } from '../../src/journal/history.js';

function rec(key: string, endedAt: string, extra: Partial<OrderRecord> = {}): OrderRecord {
  return { key, productId: 'p1', quantity: 2, environment: 'test', profile: 'default', baseUrl: 'http://127.0.0.1:1', createdAt: endedAt, updatedAt: endedAt, endedAt, outcome: 'delivered', ...extra };
}

describe('History (the local order record)', () => {
  it('lists records newest first, one file each, and replaces a key on a second record', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    expect(h.list()).toEqual([]);
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    h.record(rec('b', '2026-01-03T00:00:00.000Z'));
    h.record(rec('c', '2026-01-02T00:00:00.000Z', { outcome: 'refused', error: { code: 'product_not_found', message: 'no such product' } }));
    expect(h.list().map((r) => r.key)).toEqual(['b', 'c', 'a']);
    h.record(rec('a', '2026-01-04T00:00:00.000Z', { orderId: 'ord_1', status: 'completed' }));
    expect(h.list().map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(h.list()[0]).toMatchObject({ orderId: 'ord_1', status: 'completed' });
    expect(readdirSync(h.dir)).toHaveLength(3);
  });

  it('never stores fields beyond the record (no key id, no body, no codes)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record({ ...rec('k', '2026-01-01T00:00:00.000Z'), apiKey: 'sc_test_secret', codes: ['X'] } as unknown as OrderRecord);
    const [name] = readdirSync(h.dir);
    const text = readFileSync(join(h.dir, name!), 'utf8');
    expect(text).not.toContain('sc_test_secret');
    expect(text).not.toContain('codes');
  });

  it('prunes records older than the limit, to the millisecond, and skips damaged files', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const day = 86_400_000;
    h.record(rec('old', new Date(now - 90 * day - 1).toISOString()));
    h.record(rec('edge', new Date(now - 90 * day).toISOString()));
    h.record(rec('new', new Date(now - day).toISOString()));
    writeFileSync(join(h.dir, 'junk.json'), '{not json');
    h.prune(90, now);
    expect(h.list().map((r) => r.key)).toEqual(['new', 'edge']);
    expect(readdirSync(h.dir)).toContain('junk.json');
  });
});

describe('History stores identifiers exactly, and masks only the server text', () => {
  it('keeps key-shaped text in key, product, profile and out; masks a key echoed in status or error', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const ids = { key: 'misc_test_key-sc_test_x', productId: 'misc_test_pack', profile: 'misc_test_shop', out: '/tmp/misc_test_out/sc_live_dir/c.json', baseUrl: 'http://misc_test_host:1' };
    h.record({ ...rec(ids.key, '2026-01-01T00:00:00.000Z', { ...ids, orderId: 'sc_test_order_12345678', status: 'odd sc_live_abcdefgh1234' }), error: { code: 'bad sc_test_abcdefgh5678', message: 'key sc_test_abcdefgh9012 revoked' } });
    const got = h.get(ids.key)!;
    expect(got).toMatchObject({ ...ids, orderId: 'sc_test_order_12345678', status: 'odd sc_live_…1234', error: { code: 'bad sc_test_…5678', message: 'key sc_test_…9012 revoked' } });
  });
});
