// What `order list` and `order show <ref>` read, in-process: the merge of the record and the journal, each
// filter, --since's forms, the CSV columns and the ref rules (exact before prefix, ambiguity named).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { History, newestFirst } from '../../src/journal/history.js';
import type { Intent } from '../../src/journal/intent.js';
import {
  allRecords,
  CSV_COLUMNS,
  filterRecords,
  parseSince,
  recordsCsv,
  resolveRef,
  unfinished,
  unknownProfile,
  unknownStatus,
} from '../../src/orders/history-query.js';
import { recordAt as rec } from '../helpers/journal.js';

/** No record shows a word of its own in OUTCOME. */
const none = (): readonly string[] => [];
const noWords = { short: [], whole: [] };

function intent(key: string, at: string, extra: Partial<Intent> = {}): Intent {
  return {
    version: 2,
    key,
    profile: 'default',
    environment: 'test',
    baseUrl: 'http://127.0.0.1:1',
    keyId: 'kid',
    productId: 'p2',
    quantity: 3,
    body: '{}',
    fingerprint: 'f',
    phase: 'sending',
    createdAt: at,
    updatedAt: at,
    owner: { pid: 1 },
    ...extra,
  };
}

describe('allRecords', () => {
  // The pending intents are merged into list()'s order (thirty-sixth round), not sorted in with every record again:
  // the result must be that stable sort's, pending first among equals, with many records and ties of time and key.
  it('merges pending intents into the records as a stable sort of them all would, ties to the pending first', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    let seed = 7;
    const next = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const day = (d: number): string => `2026-01-${String(1 + d).padStart(2, '0')}T00:00:00.000Z`;
    for (let i = 0; i < 300; i++)
      h.record(rec(`k${next(40)}`, day(next(9)), { profile: `p${i % 3}`, endedAt: day(20 + next(5)) }));
    // A tie of time and key: the same key at the same time in another environment (not hidden by the record).
    h.record(rec('tie', day(3), { environment: 'live' }));
    const intents = Array.from({ length: 40 }, (_, i) =>
      intent(i === 20 ? 'tie' : `k${next(60)}`, i === 20 ? day(3) : day(next(12)), { keyId: `kid${i}` }),
    );
    const all = allRecords(h, intents);
    // In the intents' order (each its own key id), as the sort of them all took them.
    const order = (r: { keyId?: string | undefined }): number => Number(r.keyId!.slice(3));
    const pending = all.filter((r) => r.outcome === 'pending').sort((a, b) => order(a) - order(b));
    expect(pending.length).toBeGreaterThan(10);
    const stable = [...pending, ...all.filter((r) => r.outcome !== 'pending')].sort(newestFirst);
    expect(all).toEqual(stable);
    // Ties of time and key between a pending intent and a record: the pending one first.
    const tied = all.findIndex(
      (r, i) =>
        i > 0 && r.outcome !== 'pending' && all[i - 1]!.outcome === 'pending' && newestFirst(all[i - 1]!, r) === 0,
    );
    expect(tied).toBeGreaterThan(0);
  });

  it('merges unresolved intents as pending, newest first, an ended key shown once (as ended)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    // Ended after its intent was begun (a crash between the record and the intent's end): the record stands.
    h.record(
      rec('ended', '2026-01-02T00:00:00.000Z', {
        orderId: 'ord_e',
        status: 'completed',
        endedAt: '2026-01-06T00:00:00.000Z',
      }),
    );
    const all = allRecords(h, [
      intent('open', '2026-01-03T00:00:00.000Z', {
        orderId: 'ord_o',
        status: 'processing',
        out: { path: '/x/codes.csv', force: false, csvRaw: false },
      }),
      intent('bare', '2026-01-01T00:00:00.000Z'),
      intent('ended', '2026-01-05T00:00:00.000Z'),
    ]);
    expect(all.map((r) => r.key)).toEqual(['open', 'ended', 'bare']);
    expect(all[0]).toEqual({
      key: 'open',
      keyId: 'kid',
      orderId: 'ord_o',
      productId: 'p2',
      quantity: 3,
      status: 'processing',
      environment: 'test',
      profile: 'default',
      baseUrl: 'http://127.0.0.1:1',
      createdAt: '2026-01-03T00:00:00.000Z',
      updatedAt: '2026-01-03T00:00:00.000Z',
      outcome: 'pending',
      out: '/x/codes.csv',
    });
    expect(all[1]).toMatchObject({ outcome: 'delivered', orderId: 'ord_e' });
    expect(Object.keys(all[2]!)).not.toContain('orderId');
    expect(Object.keys(all[2]!)).not.toContain('status');
    expect(Object.keys(all[2]!)).not.toContain('out');
  });

  // A review: an abandoned key sent again (its new run interrupted): order show and codes get showed the old
  // abandoned record, not the run now pending under the key.
  it('a key begun again after its record ended: the new run is shown, the record behind it is not', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    h.record(
      rec('K', '2026-01-02T00:00:00.000Z', {
        outcome: 'abandoned',
        sent: true,
        productId: 'p2',
        quantity: 3,
        endedAt: '2026-01-02T00:05:00.000Z',
      }),
    );
    const all = allRecords(h, [intent('K', '2026-01-03T00:00:00.000Z')]);
    expect(all.map((r) => [r.key, r.outcome])).toEqual([['K', 'pending']]);
    // Only that record: every other stays, in its place.
    const k = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    k.record(rec('K', '2026-01-02T00:00:00.000Z', { outcome: 'abandoned', sent: true, productId: 'p2', quantity: 3 }));
    k.record(rec('L', '2026-01-01T00:00:00.000Z'));
    expect(allRecords(k, [intent('K', '2026-01-03T00:00:00.000Z')]).map((r) => [r.key, r.outcome])).toEqual([
      ['K', 'pending'],
      ['L', 'delivered'],
    ]);
    // The key given again for another order: the abandoned record stays beside it (a fourth review).
    const other = allRecords(h, [intent('K', '2026-01-03T00:00:00.000Z', { quantity: 12 })]);
    expect(other.map((r) => [r.quantity, r.outcome])).toEqual([
      [12, 'pending'],
      [3, 'abandoned'],
    ]);
    // A delivered order under a key given again for another order stays beside that run (a third review: hidden).
    const g = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    g.record(rec('inv-7001', '2026-01-02T00:00:00.000Z', { orderId: 'ord_d', endedAt: '2026-01-02T00:05:00.000Z' }));
    const both = allRecords(g, [intent('inv-7001', '2026-01-03T00:00:00.000Z', { productId: 'other' })]);
    expect(both.map((r) => [r.key, r.outcome, r.orderId])).toEqual([
      ['inv-7001', 'pending', undefined],
      ['inv-7001', 'delivered', 'ord_d'],
    ]);
  });

  it("one key in two scopes: an intent is hidden only by its own scope's record; show names both (issue 29)", () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    h.record(rec('K', '2026-01-02T00:00:00.000Z', { orderId: 'ord_test', keyId: 'kid' }));
    const live = intent('K', '2026-01-03T00:00:00.000Z', { environment: 'live', orderId: 'ord_live' });
    const all = allRecords(h, [live, intent('K', '2026-01-01T00:00:00.000Z')]);
    expect(all.map((r) => [r.environment, r.outcome])).toEqual([
      ['live', 'pending'],
      ['test', 'delivered'],
    ]);
    expect(() => resolveRef(all, 'K')).toThrow(/matches 2 orders: ord_live \(key K, 3 × p2, live, .*\); ord_test/);
    expect(resolveRef(all, 'ord_live')?.environment).toBe('live');
  });

  it('orders equal times by key, descending', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    const t = '2026-01-01T00:00:00.000Z';
    expect(allRecords(h, [intent('a', t), intent('c', t), intent('b', t)]).map((r) => r.key)).toEqual(['c', 'b', 'a']);
  });

  it('sorts by creation time, as CREATED shows: an order that ended or was updated later keeps its place', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hq-')), 'history'));
    h.record(
      rec('slow', '2026-01-01T00:00:00.000Z', {
        createdAt: '2026-01-01T00:00:00.000Z',
        endedAt: '2026-01-09T00:00:00.000Z',
      }),
    );
    h.record(
      rec('quick', '2026-01-03T00:00:00.000Z', {
        createdAt: '2026-01-03T00:00:00.000Z',
        endedAt: '2026-01-03T00:00:01.000Z',
      }),
    );
    const all = allRecords(h, [
      intent('retried', '2026-01-02T00:00:00.000Z', { updatedAt: '2026-01-08T00:00:00.000Z' }),
    ]);
    expect(all.map((r) => r.key)).toEqual(['quick', 'retried', 'slow']);
  });
});

describe('filterRecords', () => {
  const records = [
    rec('a', '2026-01-01T00:00:00.000Z', { status: 'Completed', productId: 'p1', environment: 'test', profile: 'one' }),
    rec('b', '2026-01-02T00:00:00.000Z', { outcome: 'refused', productId: 'p2', environment: 'live', profile: 'two' }),
    rec('c', '2026-01-03T00:00:00.000Z', {
      outcome: 'pending',
      status: 'processing',
      productId: 'p1',
      environment: 'live',
      profile: 'one',
    }),
  ];
  const keys = (f: Parameters<typeof filterRecords>[1]): string[] => filterRecords(records, f).map((r) => r.key);

  it('each filter on its own, and all of them together', () => {
    expect(keys({})).toEqual(['a', 'b', 'c']);
    expect(keys({ status: 'REFUSED' })).toEqual(['b']);
    expect(keys({ status: 'completed' })).toEqual(['a']);
    expect(keys({ status: 'Processing' })).toEqual(['c']);
    expect(keys({ product: 'p1' })).toEqual(['a', 'c']);
    expect(keys({ env: 'live' })).toEqual(['b', 'c']);
    expect(keys({ profile: 'one' })).toEqual(['a', 'c']);
    expect(keys({ product: 'p1', env: 'live', profile: 'one', status: 'pending' })).toEqual(['c']);
  });

  it('--status unfinished is what the OUTCOME column says of a pending order (a persona matched nothing with it)', () => {
    expect(keys({ status: 'unfinished' })).toEqual(['c']);
    expect(keys({ status: 'Unfinished' })).toEqual(['c']);
    expect(unknownStatus(records, 'unfinished', none, noWords)).toBeUndefined();
    // And "not placed", as the column says of a refused one (a review: --status "not placed" was refused).
    expect(keys({ status: 'not placed' })).toEqual(['b']);
    expect(keys({ status: 'Not Placed' })).toEqual(['b']);
    expect(unknownStatus(records, 'not placed', none, noWords)).toBeUndefined();
  });

  it('--status unfinished is the runs to resume only; --status pending is those and the orders the server says are pending', () => {
    // A review: "unfinished" listed delivered orders whose server status was pending beside the runs to resume.
    const mixed = [
      rec('run', '2026-01-01T00:00:00.000Z', { outcome: 'pending' }),
      rec('placed', '2026-01-02T00:00:00.000Z', { outcome: 'delivered', status: 'pending', orderId: 'o' }),
      rec('gone', '2026-01-03T00:00:00.000Z', { outcome: 'refused', status: 'not placed' }),
    ];
    const of = (status: string) => filterRecords(mixed, { status }).map((r) => r.key);
    expect(of('unfinished')).toEqual(['run']);
    expect(of('pending')).toEqual(['run', 'placed']);
    expect(of('not placed')).toEqual(['gone']);
  });

  it('--since is inclusive, to the millisecond', () => {
    expect(keys({ since: Date.parse('2026-01-02T00:00:00.000Z') })).toEqual(['b', 'c']);
    expect(keys({ since: Date.parse('2026-01-02T00:00:00.001Z') })).toEqual(['c']);
  });

  it('--limit keeps the first n after filtering', () => {
    expect(keys({ limit: 2 })).toEqual(['a', 'b']);
    expect(keys({ product: 'p1', limit: 1 })).toEqual(['a']);
    expect(keys({ limit: 0 })).toEqual([]);
  });
});

describe('parseSince', () => {
  const now = Date.parse('2026-11-10T12:00:00.000Z');
  it('durations in every unit, counted back from now', () => {
    expect(parseSince('30s', now)).toBe(now - 30_000);
    expect(parseSince('90m', now)).toBe(now - 90 * 60_000);
    expect(parseSince('12h', now)).toBe(now - 12 * 3_600_000);
    expect(parseSince('7d', now)).toBe(now - 7 * 86_400_000);
    expect(parseSince('2w', now)).toBe(now - 14 * 86_400_000);
    expect(parseSince('1.5h', now)).toBe(now - 5_400_000);
    expect(parseSince(' 1d ', now)).toBe(now - 86_400_000);
  });

  it('a date is midnight UTC; a date and time as written', () => {
    expect(parseSince('2026-11-01', now)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('2026-11-01T08:00:00Z', now)).toBe(Date.parse('2026-11-01T08:00:00Z'));
    expect(parseSince('2026-11-01T08:00:00+02:00', now)).toBe(Date.parse('2026-11-01T06:00:00Z'));
  });

  // A walkthrough asked "what did we order last night?" with --since yesterday, and was refused.
  it('today and yesterday are their local midnights, any case', () => {
    expect(parseSince('today', now)).toBe(Date.parse('2026-11-10T00:00:00'));
    expect(parseSince('Yesterday', now)).toBe(Date.parse('2026-11-09T00:00:00'));
  });

  it('anything else is a usage error naming the value', () => {
    for (const bad of ['7', 'd', '7y', 'x7d', '7dd', '2026-13-45', '2026-11-01T', '12026-11-01', '2026-11-01x', '']) {
      expect(() => parseSince(bad, now), bad).toThrow(
        expect.objectContaining({ exitCode: 2, message: expect.stringContaining(`not "${bad}"`) }),
      );
    }
  });
});

describe('unfinished', () => {
  it('only an order the server may still change', () => {
    expect(unfinished(rec('a', '2026-01-01T00:00:00.000Z'))).toBe(false);
    expect(unfinished(rec('a', '2026-01-01T00:00:00.000Z', { orderId: 'o' }))).toBe(true);
    expect(unfinished(rec('a', '2026-01-01T00:00:00.000Z', { orderId: 'o', status: 'processing' }))).toBe(true);
    expect(unfinished(rec('a', '2026-01-01T00:00:00.000Z', { orderId: 'o', status: 'completed' }))).toBe(false);
    expect(unfinished(rec('a', '2026-01-01T00:00:00.000Z', { orderId: 'o', status: 'failed' }))).toBe(false);
  });
});

describe('recordsCsv', () => {
  it('a header row, then one row per record in column order, CRLF between rows', () => {
    const r = rec('k1', '2026-01-01T00:00:00.000Z', {
      orderId: 'o1',
      status: 'completed',
      out: '/tmp/c.csv',
      error: { code: 'c', message: 'm' },
      amount: { amount: 7500, currency: 'USD' },
    });
    const csv = recordsCsv([r, rec('k2', '2026-01-02T00:00:00.000Z')], (v) =>
      v === undefined ? '' : `[${String(v)}]`,
    );
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines[0]).toBe(
      'key,order_id,product_id,quantity,status,outcome,environment,profile,base_url,created_at,updated_at,ended_at,out,error_code,error_message,amount,currency',
    );
    expect(lines[1]).toBe(
      '[k1],[o1],[p1],[2],[completed],[delivered],[test],[default],[http://127.0.0.1:1],[2026-01-01T00:00:00.000Z],[2026-01-01T00:00:00.000Z],[2026-01-01T00:00:00.000Z],[/tmp/c.csv],[c],[m],[75.00],[USD]',
    );
    expect(lines[2]).toBe(
      '[k2],,[p1],[2],,[delivered],[test],[default],[http://127.0.0.1:1],[2026-01-02T00:00:00.000Z],[2026-01-02T00:00:00.000Z],[2026-01-02T00:00:00.000Z],,,,,',
    );
    expect(lines).toHaveLength(3);
  });
});

describe('resolveRef', () => {
  const records = [
    rec('key-alpha', '2026-01-01T00:00:00.000Z', { orderId: 'ord_100' }),
    rec('key-beta', '2026-01-02T00:00:00.000Z', { orderId: 'ord_1001' }),
    rec('ord_1002', '2026-01-03T00:00:00.000Z'),
  ];

  it('an exact id or key wins over a prefix of others', () => {
    expect(resolveRef(records, 'ord_100')?.key).toBe('key-alpha');
    expect(resolveRef(records, 'key-beta')?.key).toBe('key-beta');
    expect(resolveRef(records, 'ord_1002')?.key).toBe('ord_1002');
  });

  it('a unique prefix of an id or a key', () => {
    expect(resolveRef(records, 'key-a')?.key).toBe('key-alpha');
    expect(resolveRef(records, 'key-b')?.key).toBe('key-beta');
    expect(resolveRef(records, 'nothing')).toBeUndefined();
    expect(resolveRef([], 'x')).toBeUndefined();
  });

  it('the characters after the id type (ab002e for ord_ab002e…), from four, when nothing starts with them', () => {
    const typed = [
      rec('k1', '2026-01-01T00:00:00.000Z', { orderId: 'ord_ab002e77' }),
      rec('k2', '2026-01-02T00:00:00.000Z', { orderId: 'ord_ab00ff11' }),
      rec('ab00-key', '2026-01-03T00:00:00.000Z', { orderId: 'ord_zz99' }),
    ];
    expect(resolveRef(typed, 'ab002e')?.key).toBe('k1');
    expect(resolveRef(typed, 'ab00ff')?.key).toBe('k2');
    // A key that starts with the ref wins: the fragment is a fallback, never a second reading.
    expect(resolveRef(typed, 'ab00')?.key).toBe('ab00-key');
    expect(resolveRef(typed.slice(0, 1), 'ab0')).toBeUndefined();
    expect(() => resolveRef(typed.slice(0, 2), 'ab00')).toThrow(/^"ab00" matches 2 orders/);
    expect(resolveRef(typed, 'zz99')?.key).toBe('ab00-key');
  });

  it('typed in another case, from four characters, when nothing matches as typed', () => {
    const typed = [
      rec('k1', '2026-01-01T00:00:00.000Z', { orderId: 'ord_ab002e77' }),
      rec('k2', '2026-01-02T00:00:00.000Z', { orderId: 'ord_ab00ff11' }),
      rec('plan-e392c9-1', '2026-01-03T00:00:00.000Z', { orderId: 'ord_zz99' }),
      rec('K2-upper', '2026-01-04T00:00:00.000Z', { orderId: 'ord_K2' }),
    ];
    const anyCase = { anyCase: true };
    expect(resolveRef(typed, 'AB002E', anyCase)?.key).toBe('k1');
    expect(resolveRef(typed, 'ORD_AB00FF11', anyCase)?.key).toBe('k2');
    expect(resolveRef(typed, 'PLAN-E392', anyCase)?.key).toBe('plan-e392c9-1');
    expect(() => resolveRef(typed, 'AB00', anyCase)).toThrow(/^"AB00" matches 2 orders/);
    // As typed first: K2 is a key's own prefix, never also read as k2.
    expect(resolveRef(typed, 'K2-u', anyCase)?.key).toBe('K2-upper');
    expect(resolveRef(typed, 'AB0', anyCase)).toBeUndefined();
    // Only where asked: picking an order to resume or abandon, Invoice-1001 is not invoice-1001.
    expect(resolveRef(typed, 'AB002E')).toBeUndefined();
    expect(resolveRef(typed, 'ORD_AB00FF11')).toBeUndefined();
  });

  it('one record matched as both key and id is one match', () => {
    expect(resolveRef([rec('same', '2026-01-01T00:00:00.000Z', { orderId: 'same' })], 'sa')?.key).toBe('same');
  });

  it('an ambiguous prefix is a usage error listing the candidates on one line', () => {
    let error: unknown;
    try {
      resolveRef(records, 'key-');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'ambiguous_ref',
      hint: 'give more characters of the order id or key',
    });
    expect((error as Error).message).toBe(
      '"key-" matches 2 orders: ord_100 (key key-alpha, 2 × p1, test, 2026-01-01T00:00:00.000Z); ord_1001 (key key-beta, 2 × p1, test, 2026-01-02T00:00:00.000Z)',
    );
  });

  // Broke: 10 of 20 candidates named, about 2,000 characters on one error line.
  it('more than five candidates: five shown and the rest counted, the hint saying where all are; no order id is said so', () => {
    const many = Array.from({ length: 20 }, (_, i) =>
      rec(`k${String(i).padStart(2, '0')}`, '2026-01-01T00:00:00.000Z'),
    );
    expect(() => resolveRef(many, 'k')).toThrow(/^"k" matches 20 orders: \(no order id\) \(key k00, .*; and 15 more$/);
    expect(() => resolveRef(many, 'k')).toThrow(
      expect.objectContaining({
        message: expect.not.stringContaining('key k05'),
        hint: 'give more characters of the order id or key (giftcodes order list shows the orders recorded here)',
      }),
    );
    expect(() => resolveRef(many, 'k')).toThrow(
      expect.objectContaining({ message: expect.stringContaining('key k04') }),
    );
    const five = many.slice(0, 5);
    expect(() => resolveRef(five, 'k')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('more') }),
    );
  });
});

describe('unknownStatus', () => {
  const records = [
    rec('a', '2026-01-01T00:00:00.000Z', { status: 'Completed' }),
    rec('b', '2026-01-02T00:00:00.000Z', { status: 'In_Review', outcome: 'pending' }),
  ];

  it("refuses a typo (exit 2), with the nearest word and every word --status takes, the record's statuses too", () => {
    expect(
      unknownStatus(records, 'complet', none, {
        short: ['placed', 'not placed: no funds', 'no funds'],
        whole: ['order placed'],
      }),
    ).toMatchObject({
      exitCode: 2,
      message:
        '--status "complet" is not an outcome, a server status or a word of the OUTCOME column: did you mean complete?',
      hint:
        '--status takes an outcome (delivered, failed, refused, abandoned, pending), a server status (pending, ' +
        'processing, completed, complete, failed, cancelled, canceled, rejected, expired, refunded, error, declined, ' +
        'in_review) or a word of the OUTCOME column, short (unfinished, not placed, placed, no funds) or whole as a wide ' +
        'table shows it',
    });
    expect(unknownStatus([], 'xyzzy', none, noWords)?.message).toBe(
      '--status "xyzzy" is not an outcome, a server status or a word of the OUTCOME column',
    );
  });

  it('takes an outcome, a documented status or one the record holds, a word shown, in any case', () => {
    for (const status of [
      'refused',
      'PENDING',
      'completed',
      'Processing',
      'in_review',
      'Placed',
      'order placed',
      'not placed',
    ])
      expect(
        unknownStatus(records, status, none, { short: ['placed'], whole: ['order placed'] }),
        status,
      ).toBeUndefined();
    expect(unknownStatus(records, 'odd_code', () => ['odd_code'], noWords)).toBeUndefined();
  });
});

describe('unknownProfile', () => {
  // Broke (a support agent's walkthrough): `order list --profile shp` said only "no orders in the local record
  // match", and the agent told the customer there were none.
  const records = [
    rec('a', '2026-01-01T00:00:00.000Z', { profile: 'shop' }),
    rec('b', '2026-01-02T00:00:00.000Z', { profile: 'default' }),
  ];

  it('names a profile no record has, the nearest one, and those the record holds', () => {
    expect(unknownProfile(records, 'shp')).toBe(
      'no order in the local record was placed with the profile "shp": did you mean shop? (profiles in the record: default, shop)',
    );
    expect(unknownProfile(records, 'zzzzzzzz')).toBe(
      'no order in the local record was placed with the profile "zzzzzzzz" (profiles in the record: default, shop)',
    );
  });

  it('says nothing of a profile the record has, or when the record is empty', () => {
    expect(unknownProfile(records, 'shop')).toBeUndefined();
    expect(unknownProfile([], 'shp')).toBeUndefined();
  });
});
