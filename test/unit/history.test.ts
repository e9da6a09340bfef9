import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { LocalError } from '../../src/errors.js';
import { History, inScope, scopeOf, type OrderRecord } from '../../src/journal/history.js';

function rec(key: string, endedAt: string, extra: Partial<OrderRecord> = {}): OrderRecord {
  return {
    key,
    productId: 'p1',
    quantity: 2,
    environment: 'test',
    profile: 'default',
    baseUrl: 'http://127.0.0.1:1',
    createdAt: endedAt,
    updatedAt: endedAt,
    endedAt,
    outcome: 'delivered',
    ...extra,
  };
}

describe('History (the local order record)', () => {
  it('lists records newest first, one file each, and replaces a key on a second record', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    expect(h.list()).toEqual([]);
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    h.record(rec('b', '2026-01-03T00:00:00.000Z'));
    h.record(
      rec('c', '2026-01-02T00:00:00.000Z', {
        outcome: 'refused',
        error: { code: 'product_not_found', message: 'no such product' },
      }),
    );
    expect(h.list().map((r) => r.key)).toEqual(['b', 'c', 'a']);
    h.record(rec('a', '2026-01-04T00:00:00.000Z', { orderId: 'ord_1', status: 'completed' }));
    expect(h.list().map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(h.list()[0]).toMatchObject({ orderId: 'ord_1', status: 'completed' });
    expect(readdirSync(h.dir)).toHaveLength(3);
  });

  it('one key in two scopes is two records; each found only in its own scope (issue 29)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const live = rec('K', '2026-01-01T00:00:00.000Z', { environment: 'live', keyId: 'live-id', orderId: 'ord_live' });
    const test = rec('K', '2026-01-02T00:00:00.000Z', { environment: 'test', keyId: 'test-id', orderId: 'ord_test' });
    const other = rec('K', '2026-01-03T00:00:00.000Z', {
      environment: 'live',
      keyId: 'other-reseller',
      orderId: 'ord_other',
    });
    for (const r of [live, test, other]) h.record(r);
    expect(readdirSync(h.dir)).toHaveLength(3);
    expect(h.get('K', scopeOf(live as Required<OrderRecord>))?.orderId).toBe('ord_live');
    expect(h.get('K', scopeOf(test as Required<OrderRecord>))?.orderId).toBe('ord_test');
    expect(h.get('K', scopeOf(other as Required<OrderRecord>))?.orderId).toBe('ord_other');
    expect(h.get('K', { baseUrl: 'http://elsewhere', environment: 'live', keyId: 'live-id' })).toBeUndefined();
    expect(h.get('K', { ...scopeOf(live as Required<OrderRecord>), keyId: 'unknown' })).toBeUndefined();
    // Replacing a record replaces only its own scope's.
    h.record({ ...live, status: 'completed' });
    expect(
      h
        .list()
        .filter((r) => r.key === 'K')
        .map((r) => r.orderId)
        .sort(),
    ).toEqual(['ord_live', 'ord_other', 'ord_test']);
  });

  it("reads an older version's record (named by the key alone, no key id) in its server and environment, whatever the key", () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record(rec('seed', '2026-01-01T00:00:00.000Z'));
    const old = rec('K', '2026-01-01T00:00:00.000Z', { orderId: 'ord_old' });
    writeFileSync(
      join(h.dir, `${createHash('sha256').update('K').digest('hex').slice(0, 40)}.json`),
      JSON.stringify(old),
    );
    const scope = { baseUrl: old.baseUrl, environment: 'test' as const, keyId: 'any' };
    expect(h.get('K', scope)?.orderId).toBe('ord_old');
    expect(h.get('K', { ...scope, environment: 'live' })).toBeUndefined();
    expect(h.get('K', { ...scope, baseUrl: 'http://elsewhere' })).toBeUndefined();
    expect(h.get('other', scope)).toBeUndefined();
    expect(inScope(old, scope)).toBe(true);
    // Its refresh (order list --refresh) rewrites it in place: still one file for it.
    h.record({ ...h.get('K', scope)!, status: 'completed' });
    expect(readdirSync(h.dir)).toHaveLength(2);
    // A file an older version named by the key that holds a key id is not that older record: not read.
    writeFileSync(
      join(h.dir, `${createHash('sha256').update('K').digest('hex').slice(0, 40)}.json`),
      JSON.stringify({ ...old, keyId: 'any' }),
    );
    expect(h.get('K', scope)).toBeUndefined();
  });

  it('never stores fields beyond the record (no key, no body, no codes)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record({
      ...rec('k', '2026-01-01T00:00:00.000Z'),
      apiKey: 'sc_test_secret',
      codes: ['X'],
    } as unknown as OrderRecord);
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
    const ids = {
      key: 'misc_test_key-sc_test_x',
      productId: 'misc_test_pack',
      profile: 'misc_test_shop',
      out: '/tmp/misc_test_out/sc_live_dir/c.json',
      baseUrl: 'http://misc_test_host:1',
    };
    h.record({
      ...rec(ids.key, '2026-01-01T00:00:00.000Z', {
        ...ids,
        orderId: 'sc_test_order_12345678',
        status: 'odd sc_live_abcdefgh1234',
      }),
      error: { code: 'bad sc_test_abcdefgh5678', message: 'key sc_test_abcdefgh9012 revoked' },
    });
    const got = h.get(ids.key, { baseUrl: ids.baseUrl, environment: 'test', keyId: 'k1' })!;
    expect(got).toMatchObject({
      ...ids,
      orderId: 'sc_test_order_12345678',
      status: 'odd sc_live_…1234',
      error: { code: 'bad sc_test_…5678', message: 'key sc_test_…9012 revoked' },
    });
  });
});

describe('History on disk: its directory, failures, and files that are not records', () => {
  const newDir = (): string => join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');

  it('makes its directory private (0700), and writes into one another process already made', async () => {
    const dir = newDir();
    new History(dir).record(rec('a', '2026-01-01T00:00:00.000Z'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // A second process (another History) finds the directory there: it records beside the first's.
    new History(dir).record(rec('b', '2026-01-02T00:00:00.000Z'));
    await new History(dir).recordInBatch(rec('c', '2026-01-03T00:00:00.000Z'));
    expect(
      new History(dir)
        .list()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });

  it('a record that cannot be written (a directory in its place) fails once, naming the file, and is not retried', async () => {
    const h = new History(newDir());
    const r = rec('a', '2026-01-01T00:00:00.000Z', { keyId: 'k1' });
    h.record(r);
    const [name] = readdirSync(h.dir);
    const file = join(h.dir, name!);
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    expect(() => h.record(r)).toThrow(LocalError);
    expect(() => h.record(r)).toThrow(`cannot write the file ${file}`);
    await expect(h.recordInBatch(r)).rejects.toThrow(`cannot write the file ${file}`);
  });

  it('prune removes only records: a temporary file another process is writing stays, whatever it holds', () => {
    const h = new History(newDir());
    h.record(rec('old', '2026-01-01T00:00:00.000Z'));
    const temp = join(h.dir, `.in-progress.json.${process.pid}-abcdef.tmp`);
    writeFileSync(temp, JSON.stringify(rec('old-too', '2026-01-01T00:00:00.000Z')));
    h.prune(90, Date.parse('2026-12-01T00:00:00.000Z'));
    expect(readdirSync(h.dir)).toEqual([basename(temp)]);
  });

  it('a record whose key id is not text is damaged: skipped, never read as of some scope', () => {
    const h = new History(newDir());
    h.record(rec('good', '2026-01-01T00:00:00.000Z', { keyId: 'k1' }));
    writeFileSync(join(h.dir, 'damaged.json'), JSON.stringify({ ...rec('bad', '2026-01-02T00:00:00.000Z'), keyId: 7 }));
    expect(h.list().map((r) => r.key)).toEqual(['good']);
  });

  it("keeps the order's amount as money; an amount that is not money is dropped, the record kept (it is only for display)", () => {
    const h = new History(newDir());
    h.record(rec('priced', '2026-01-01T00:00:00.000Z', { amount: { amount: 7500, currency: 'USD' } }));
    writeFileSync(
      join(h.dir, 'odd.json'),
      JSON.stringify({
        ...rec('odd', '2026-01-02T00:00:00.000Z'),
        amount: { amount: '75', currency: 'USD', extra: 1 },
      }),
    );
    writeFileSync(
      join(h.dir, 'extra.json'),
      JSON.stringify({
        ...rec('extra', '2026-01-03T00:00:00.000Z'),
        amount: { amount: 100, currency: 'EUR', note: 'x' },
      }),
    );
    const byKey = new Map(h.list().map((r) => [r.key, r]));
    expect(byKey.get('priced')?.amount).toEqual({ amount: 7500, currency: 'USD' });
    expect(byKey.get('odd')).toBeDefined();
    expect(byKey.get('odd')).not.toHaveProperty('amount');
    expect(byKey.get('extra')?.amount).toEqual({ amount: 100, currency: 'EUR' });
  });
});

describe('History.codesHolder', () => {
  // Who wrote the codes a file holds, as far as this machine knows: what writing over it would lose.
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'holder-'));
    const file = join(dir, 'codes.csv');
    const h = new History(join(dir, 'history'));
    return { dir, file, h };
  };
  const now = () => new Date().toISOString();

  it('the newest delivered order whose out is the file, while the file is not written after it', () => {
    const { file, h } = setup();
    expect(h.codesHolder(file)).toBeUndefined();
    writeFileSync(file, 'codes\n');
    expect(h.codesHolder(file)).toBeUndefined();
    h.record(rec('abandoned', now(), { outcome: 'abandoned', out: file }));
    h.record(rec('elsewhere', now(), { out: `${file}.other` }));
    expect(h.codesHolder(file)).toBeUndefined();
    h.record(rec('holder', now(), { out: file, orderId: 'ord_h' }));
    expect(h.codesHolder(file)?.key).toBe('holder');
    // Its own key is no other order's; a path spelled another way is the same file.
    expect(h.codesHolder(file, 'holder')).toBeUndefined();
    expect(h.codesHolder(join(file, '..', 'codes.csv'))?.key).toBe('holder');
    // A file moved away holds nobody's codes.
    rmSync(file);
    expect(h.codesHolder(file)).toBeUndefined();
  });

  it('a file written more than a minute after that delivery ended is not known to hold its codes', () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const longAgo = new Date(Date.now() - 3_600_000).toISOString();
    h.record(rec('old', longAgo, { out: file }));
    expect(h.codesHolder(file)).toBeUndefined();
    const { file: recent, h: h2 } = setup();
    writeFileSync(recent, 'codes\n');
    h2.record(rec('recent', new Date(Date.now() - 30_000).toISOString(), { out: recent }));
    expect(h2.codesHolder(recent)?.key).toBe('recent');
    // Without an end time, its last update stands for it.
    const { file: third, h: h3 } = setup();
    writeFileSync(third, 'codes\n');
    h3.record({ ...rec('noend', now(), { out: third }), endedAt: undefined, updatedAt: longAgo } as OrderRecord);
    expect(h3.codesHolder(third)).toBeUndefined();
  });
});
