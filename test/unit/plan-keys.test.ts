// Which key a plan row goes by, and which earlier deliveries the plan no longer has: the two rules that keep a
// re-run (or an edited plan) from ordering a row a second time. Called directly on a real journal, so every
// branch is seen (docs/mutation.md: mutants of these survived the end-to-end tests, which cannot see them).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Intent } from '../../src/journal/intent.js';
import { describe, expect, it } from 'vitest';
import { AuthError, NetworkError } from '../../src/errors.js';
import type { OrderRecord, Scope } from '../../src/journal/history.js';
import { keyIdOf } from '../../src/journal/intent.js';
import { currentOwner } from '../../src/journal/owner.js';
import { dead } from '../helpers/journal.js';
import type { Footprint } from '../../src/orders/recover.js';
import { Journal } from '../../src/journal/journal.js';
import {
  abandonedSentGone,
  changedSince,
  interruptedGone,
  sameRowsLeft,
  sameRowsRunning,
  otherRunsNotes,
  rowsPlacedSince,
  olderVersionRows,
  deliveredUnderOtherScope,
  BATCH_TYPO_MS,
  sameRowsElsewhere,
  underOtherScope,
  connectionScope,
  deliveredRows,
  keyRows,
  outMovedRows,
  originalName,
  planFailure,
  sentAgainKey,
  planFamily,
  rowKey,
  sameScope,
  type PlanRow,
  planName,
  sameRowTwice,
} from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';

const scope: Scope = { baseUrl: 'http://127.0.0.1:4010', environment: 'test', keyId: 'k1' };
const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const DAY = 86_400_000;

function journal(): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir);
}

const row = (n: number, key: string, legacyKey: string): PlanRow => ({
  row: n,
  productId: 'amazon-us-25',
  quantity: 1,
  key,
  legacyKey,
});

const record = (key: string, o: Partial<OrderRecord> = {}): OrderRecord => ({
  key,
  keyId: scope.keyId,
  orderId: `ord_${key}`,
  productId: 'amazon-us-25',
  quantity: 1,
  environment: scope.environment,
  profile: 'shop',
  baseUrl: scope.baseUrl,
  createdAt: new Date(T0 - 1000).toISOString(),
  updatedAt: new Date(T0 - 1000).toISOString(),
  endedAt: new Date(T0 - 1000).toISOString(),
  outcome: 'delivered',
  ...o,
});

async function interrupted(j: Journal, key: string, where: Scope = scope): Promise<void> {
  await j.begin({ profile: 'shop', ...where, productId: 'amazon-us-25', quantity: 1, key });
}

describe('sentAgainKey: a row the API refused (placing nothing) or whose order failed goes on under its next key', () => {
  const refused = (key: string, code: string): OrderRecord =>
    record(key, { outcome: 'refused', orderId: undefined, error: { code, message: code } });

  /** A plan row's key: `plan-` and 24 hex digits (history.ts keeps its later keys in its file). */
  const rowKeyOf = (digit: string): string => `plan-${digit.repeat(24)}`;

  it('past each key refused by a refusal of the order, or whose order failed; stops at any other record, or none', () => {
    const j = journal();
    const k = rowKeyOf('a');
    j.history.record(refused(k, 'insufficient_funds'));
    expect(sentAgainKey(k, j, scope)).toBe(`${k}-g2`);
    j.history.record(record(`${k}-g2`, { outcome: 'failed', status: 'failed' }));
    expect(sentAgainKey(k, j, scope)).toBe(`${k}-g3`);
    j.history.record(refused(`${k}-g3`, 'INSUFFICIENT_SUPPLY'));
    j.history.record(record(`${k}-g4`));
    // Delivered under its fourth key: every later run reads that record.
    expect(sentAgainKey(k, j, scope)).toBe(`${k}-g4`);
    expect(keyRows([row(1, k, 'old-k')], deliveredRows(j, scope), j, scope, undefined)[0]!.key).toBe(`${k}-g4`);
    expect(keyRows([row(1, k, 'old-k')], deliveredRows(j, scope), j, scope, 'b1')[0]!.key).toBe(`${k}-g4`);
  });

  // Reviews: history-days pruned the row key's refusal (then two keys' refusals) and kept a later key's delivery;
  // the row went out under its own key again.
  it('past keys whose records are gone while a later key has one (pruned first, ended first), or an intent', async () => {
    const j = journal();
    const p = rowKeyOf('b');
    j.history.record(record(`${p}-g2`));
    expect(sentAgainKey(p, j, scope)).toBe(`${p}-g2`);
    const two = rowKeyOf('c');
    j.history.record(record(`${two}-g3`));
    expect(sentAgainKey(two, j, scope)).toBe(`${two}-g3`);
    j.history.record(refused(`${two}-g3`, 'insufficient_funds'));
    expect(sentAgainKey(two, j, scope)).toBe(`${two}-g4`);
    // Or an intent left under the next key: resumed there.
    const q = rowKeyOf('d');
    await interrupted(j, `${q}-g2`);
    expect(sentAgainKey(q, j, scope)).toBe(`${q}-g2`);
    // Nothing under any: its own key. Another row's later keys are not this row's.
    expect(sentAgainKey(rowKeyOf('e'), j, scope)).toBe(rowKeyOf('e'));
    expect(j.history.generations(p, scope).size).toBe(1);
    expect([...j.history.generations(two, scope).keys()]).toEqual([`${two}-g3`]);
  });

  it('never past a key an order may be under: placed elsewhere, reused, abandoned, or another scope; nor one left interrupted', async () => {
    const j = journal();
    for (const [key, code] of [
      ['e', 'order_placed_elsewhere'],
      ['r', 'idempotency_key_reused'],
      ['h', 'http_404'],
    ])
      j.history.record(refused(key!, code!));
    j.history.record(record('a', { outcome: 'abandoned' }));
    j.history.record({ ...refused('s', 'insufficient_funds'), keyId: 'k2' });
    for (const key of ['e', 'r', 'h', 'a', 's', 'none']) expect(sentAgainKey(key, j, scope)).toBe(key);
    // Refused, then resumed under the same key by an intent left interrupted: it is resumed, never passed.
    j.history.record(refused('i', 'insufficient_funds'));
    await interrupted(j, 'i');
    expect(sentAgainKey('i', j, scope)).toBe('i');
  });

  it("a later key stays in the plan's family: an edit that drops its row is still asked about", () => {
    const family = planFamily(scope, 'nightly.csv', undefined);
    const base = rowKey(family, { productId: 'amazon-us-25', quantity: 1, outCell: '', occurrence: 0 });
    const delivered = new Map([
      [`${base}-g2`, record(`${base}-g2`, { endedAt: new Date(Date.now() - 1000).toISOString() })],
    ]);
    expect(changedSince([], delivered, family).map((r) => r.key)).toEqual([`${base}-g2`]);
  });
});

describe('keyRows: the key each row goes by', () => {
  it('a row an older version delivered (its legacy key recorded) goes on under that key; one it never saw keeps its own', () => {
    const j = journal();
    const rows = [row(1, 'new-1', 'old-1'), row(2, 'new-2', 'old-2')];
    const delivered = new Map([['old-1', record('old-1')]]);
    expect(keyRows(rows, delivered, j, scope, undefined).map((r) => r.key)).toEqual(['old-1', 'new-2']);
  });

  it('with --batch, never: older versions had no batch, so a run with one is another run on purpose', async () => {
    // An adversarial review: after an upgrade, a nightly --batch "$(date +%F)" was told every night that its rows
    // were ordered by an earlier run, and restocked nothing.
    const j = journal();
    await interrupted(j, 'old-2');
    const rows = [row(1, 'new-1', 'old-1'), row(2, 'new-2', 'old-2')];
    const delivered = new Map([['old-1', record('old-1')]]);
    expect(keyRows(rows, delivered, j, scope, '2026-12-01').map((r) => r.key)).toEqual(['new-1', 'new-2']);
  });

  it('a row delivered under its own key keeps it, whatever its legacy key says', () => {
    const j = journal();
    const delivered = new Map([
      ['new-1', record('new-1')],
      ['old-1', record('old-1')],
    ]);
    expect(keyRows([row(1, 'new-1', 'old-1')], delivered, j, scope, undefined)[0]!.key).toBe('new-1');
  });

  it("a row whose legacy key is interrupted in this scope resumes under it; another scope's intent does not count", async () => {
    const j = journal();
    await interrupted(j, 'old-1');
    await interrupted(j, 'old-2', { ...scope, environment: 'live' });
    await interrupted(j, 'old-3', { ...scope, keyId: 'k2' });
    await interrupted(j, 'old-4', { ...scope, baseUrl: 'http://other:1' });
    const rows = [1, 2, 3, 4].map((n) => row(n, `new-${n}`, `old-${n}`));
    expect(keyRows(rows, new Map(), j, scope, undefined).map((r) => r.key)).toEqual([
      'old-1',
      'new-2',
      'new-3',
      'new-4',
    ]);
  });

  it('a row interrupted under its own key keeps it, even when its legacy key was delivered', async () => {
    const j = journal();
    await interrupted(j, 'new-1');
    const delivered = new Map([['old-1', record('old-1')]]);
    expect(keyRows([row(1, 'new-1', 'old-1')], delivered, j, scope, undefined)[0]!.key).toBe('new-1');
  });

  it('the journal is read at most once for the whole plan, and only when a row needs it', () => {
    const j = journal();
    let reads = 0;
    const counted = Object.assign(Object.create(j) as Journal, {
      read: () => (reads++, j.read()),
    });
    const rows = [1, 2, 3].map((n) => row(n, `new-${n}`, `old-${n}`));
    keyRows(rows, new Map(), counted, scope, undefined);
    expect(reads).toBe(1);
    reads = 0;
    const allNew = new Map(rows.map((r) => [r.key, record(r.key)]));
    keyRows(rows, allNew, counted, scope, undefined);
    expect(reads).toBe(0);
  });
});

// An adversarial review: a row's order placed, its codes file on a full disk (exit 8), the out cell pointed at another
// disk, and the same plan run again with --yes placed the row a second time (its out cell is in its key).
describe('outMovedRows: a row whose out cell alone changed since an earlier run placed it and wrote no codes', () => {
  const family = planFamily(scope, '/plans/nightly.csv', 'd1');
  const keyOf = (outCell: string, o: { productId?: string; quantity?: number; occurrence?: number } = {}): string =>
    rowKey(family, { productId: 'p', quantity: 5, outCell, occurrence: 1, ...o });
  const planRow = (n: number, outCell: string, o: { productId?: string; quantity?: number } = {}): PlanRow => ({
    row: n,
    productId: o.productId ?? 'p',
    quantity: o.quantity ?? 5,
    key: keyOf(outCell, o),
    legacyKey: `legacy-${n}`,
    out: `/plans/${outCell}`,
  });
  const now = new Date().toISOString();
  const left = (outCell: string, o: Partial<Intent> = {}): Intent =>
    ({
      key: keyOf(outCell),
      productId: 'p',
      quantity: 5,
      phase: 'accepted',
      orderId: `ord_${outCell}`,
      owner: dead(),
      createdAt: now,
      updatedAt: now,
      out: { path: `/full/${outCell}`, force: false, csvRaw: false },
      ...o,
    }) as Intent;
  const undelivered = (): boolean => true;
  const moved = (
    rows: PlanRow[],
    intents: Intent[],
    o: { delivered?: OrderRecord[]; reached?: boolean; writtenAt?: string; planDir?: string } = {},
  ) =>
    outMovedRows(rows, new Map((o.delivered ?? []).map((r) => [r.key, r])), () => intents, {
      undelivered: o.reached ? () => false : undelivered,
      writtenAt: (_intent, path) => path === o.writtenAt,
      planDir: o.planDir ?? '/plans',
    });

  // A second adversarial review: the finishing run wrote the new file and was cut before it said so (a closed pipe);
  // the same command was refused for "the file exists", and --force placed a second order over the first one's codes.
  it("an order whose run wrote the row's new file and was cut is the row's: the same command ends it", () => {
    const row2 = planRow(2, 'big/a.csv');
    const cut = left('a.csv', { out: { path: '/plans/big/a.csv', force: false, csvRaw: false } });
    expect(moved([row2], [cut], { reached: true, writtenAt: '/plans/big/a.csv' })).toEqual([{ ...row2, key: cut.key }]);
    // Written elsewhere (the old file, since read): not this row's.
    expect(moved([row2], [cut], { reached: true, writtenAt: '/full/a.csv' })).toEqual([row2]);
    // Of another product or quantity, another family's, or one whose codes reached no one yet: not by this rule.
    const at = { reached: true, writtenAt: '/plans/big/a.csv' };
    expect(moved([row2], [{ ...cut, productId: 'q' }], at)).toEqual([row2]);
    expect(moved([row2], [{ ...cut, quantity: 6 }], at)).toEqual([row2]);
    const other = rowKey(planFamily(scope, '/plans/nightly.csv', 'd2'), {
      productId: 'p',
      quantity: 5,
      outCell: 'a.csv',
      occurrence: 1,
    });
    expect(moved([row2], [{ ...cut, key: other }], at)).toEqual([row2]);
    expect(moved([row2], [cut], { writtenAt: '/plans/big/a.csv' })[0]).toMatchObject({
      key: cut.key,
      moved: { orderId: 'ord_a.csv' },
    });
  });

  // A second adversarial review: two shops' restock.csv in two directories, one --batch, share their rows' keys; one
  // shop's moved row finished the other's order, and that shop restocked nothing.
  it("another directory's plan of this file name: its orders are its own; an intent from before planDir matches", () => {
    const row2 = planRow(2, 'big/a.csv');
    expect(moved([row2], [left('a.csv', { planDir: '/shops/alpha' })], { planDir: '/shops/beta' })).toEqual([row2]);
    expect(moved([row2], [left('a.csv', { planDir: '/shops/beta' })], { planDir: '/shops/beta' })[0]!.key).toBe(
      left('a.csv').key,
    );
    expect(moved([row2], [left('a.csv')], { planDir: '/shops/beta' })[0]!.key).toBe(left('a.csv').key);
    // A run that does not say its plan's directory matches as before.
    expect(
      outMovedRows([row2], new Map(), () => [left('a.csv', { planDir: '/shops/alpha' })], {
        undelivered,
        writtenAt: () => false,
      })[0]!.key,
    ).toBe(left('a.csv').key);
  });

  it('a row whose codes go to standard output finishes no order placed for a file (the changed plan asks)', () => {
    const toStdout = { ...planRow(2, ''), out: undefined };
    expect(moved([toStdout], [left('a.csv')])).toEqual([toStdout]);
  });

  it("placed (its order id known) or sent with its answer lost: the row goes by that order's key, to finish it", () => {
    const placed = left('a.csv');
    expect(moved([planRow(2, 'big/a.csv')], [placed])).toEqual([
      { ...planRow(2, 'big/a.csv'), key: placed.key, moved: { from: '/full/a.csv', orderId: 'ord_a.csv' } },
    ]);
    const sent = left('a.csv', { phase: 'sending', orderId: undefined });
    expect(moved([planRow(2, 'big/a.csv')], [sent])[0]).toMatchObject({
      key: sent.key,
      moved: { from: '/full/a.csv' },
    });
    expect(Object.keys(moved([planRow(2, 'big/a.csv')], [sent])[0]!.moved!)).toEqual(['from']);
    // An earlier row that wrote to standard output (no out cell): matched too, its from absent.
    expect(moved([planRow(2, 'big/a.csv')], [left('', { out: undefined })])[0]!.moved).toEqual({
      orderId: 'ord_',
    });
  });

  it("not: never sent, another product or quantity, its codes delivered, a live run's, past the day unanswered, another family", () => {
    const row2 = planRow(2, 'big/a.csv');
    const other = planFamily(scope, '/plans/nightly.csv', 'd2');
    for (const intent of [
      left('a.csv', { phase: 'prepared', orderId: undefined }),
      left('a.csv', { productId: 'q' }),
      left('a.csv', { quantity: 50 }),
      left('a.csv', { owner: currentOwner() }),
      left('a.csv', {
        phase: 'sending',
        orderId: undefined,
        createdAt: new Date(Date.now() - 2 * DAY).toISOString(),
      }),
      left('a.csv', { key: rowKey(other, { productId: 'p', quantity: 5, outCell: 'a.csv', occurrence: 1 }) }),
      left('a.csv', { key: `plan-${family}${'0'.repeat(12)}-r3` }),
    ])
      expect(moved([row2], [intent])).toEqual([row2]);
    expect(moved([row2], [left('a.csv')], { reached: true })).toEqual([row2]);
    // Its order id known, it is finished at any age (only read).
    const old = left('a.csv', { createdAt: new Date(Date.now() - 2 * DAY).toISOString() });
    expect(moved([row2], [old])[0]!.key).toBe(old.key);
  });

  it('not a row the plan still has (a row added beside it is a new order), nor a row with an order of its own', () => {
    const kept = planRow(2, 'a.csv');
    const added = planRow(3, 'b.csv');
    expect(moved([kept, added], [left('a.csv')])).toEqual([kept, added]);
    // The row's own key interrupted, or delivered: it goes by its own.
    const row2 = planRow(2, 'big/a.csv');
    expect(moved([row2], [left('a.csv'), left('big/a.csv')])[0]!.key).toBe(row2.key);
    expect(moved([row2], [left('a.csv')], { delivered: [record(row2.key)] })[0]!.key).toBe(row2.key);
  });

  it('two identical rows take such orders one each, the oldest first, by product and quantity, not by line', () => {
    const older = left('a.csv', { createdAt: new Date(Date.now() - 60_000).toISOString() });
    const newer = left('x.csv');
    const rows = [planRow(7, 'big/x.csv'), planRow(9, 'big/a.csv')];
    expect(moved(rows, [newer, older]).map((r) => r.key)).toEqual([older.key, newer.key]);
    // One such order, two rows: the first row finishes it, the other is its own order.
    expect(moved(rows, [older]).map((r) => r.key)).toEqual([older.key, rows[1]!.key]);
  });

  it("the order such a run delivered to the row's new file is the row's: read as delivered there, not a new order", () => {
    const done = record(keyOf('a.csv'), { productId: 'p', quantity: 5, out: '/plans/big/a.csv' });
    const row2 = planRow(2, 'big/a.csv');
    expect(moved([row2], [], { delivered: [done] })).toEqual([{ ...row2, key: done.key }]);
    // Delivered to another file, or of another quantity: not this row's.
    expect(moved([row2], [], { delivered: [{ ...done, out: '/full/a.csv' }] })).toEqual([row2]);
    expect(moved([row2], [], { delivered: [{ ...done, quantity: 6 }] })).toEqual([row2]);
    // Another plan or --batch's record of that file, or one written to standard output: not this row's either.
    const otherFamily = planFamily(scope, '/plans/nightly.csv', 'd2');
    const elsewhere = rowKey(otherFamily, { productId: 'p', quantity: 5, outCell: 'a.csv', occurrence: 1 });
    expect(moved([row2], [], { delivered: [{ ...done, key: elsewhere }] })).toEqual([row2]);
    expect(moved([row2], [], { delivered: [{ ...done, out: '-' }] })).toEqual([row2]);
    // A record under a key a row of the plan goes by is that row's own, never taken by another row.
    const row3 = planRow(3, 'a.csv');
    expect(moved([row2, row3], [], { delivered: [done] })).toEqual([row2, row3]);
  });

  it('a row with no out cell takes no record delivered to a file', () => {
    const done = record(keyOf('a.csv'), { productId: 'p', quantity: 5, out: '/plans/big/a.csv' });
    const also = record(keyOf('b.csv'), { productId: 'p', quantity: 5, out: '/plans/big/b.csv' });
    const toStdout = { ...planRow(2, ''), out: undefined };
    expect(moved([toStdout], [], { delivered: [done, also] })).toEqual([toStdout]);
  });

  it('a plan some of whose rows were delivered under their own keys still finishes a moved row', () => {
    const kept = planRow(1, 'b.csv', { productId: 'q' });
    const row2 = planRow(2, 'big/a.csv');
    const placed = left('a.csv');
    expect(moved([kept, row2], [placed], { delivered: [record(kept.key)] }).map((r) => r.key)).toEqual([
      kept.key,
      placed.key,
    ]);
  });

  it('keyRows keys such a row so, with --batch and without, reading the journal once', async () => {
    const j = journal();
    await j.begin({ profile: 'shop', ...scope, productId: 'p', quantity: 5, key: keyOf('a.csv') });
    const sent = j.find(keyOf('a.csv'))!;
    await j.saveAsync({ ...sent, phase: 'sending', owner: dead() });
    // This process's own log holds it: read as a dead run's (its owner) in a fresh journal of the same directory.
    const fresh = new Journal(j.dir);
    const rows = [planRow(2, 'big/a.csv')];
    expect(keyRows(rows, new Map(), fresh, scope, 'd1')[0]).toMatchObject({ key: keyOf('a.csv'), moved: {} });
    expect(keyRows(rows, new Map(), fresh, scope, undefined)[0]!.key).toBe(keyOf('a.csv'));
  });
});

describe('changedSince: deliveries of this plan the edited plan no longer has', () => {
  const family = planFamily(scope, '/plans/nightly.csv', undefined);
  const keyOf = (productId: string, occurrence = 1): string =>
    rowKey(family, { productId, quantity: 1, outCell: '', occurrence });

  it('a delivered row of this family that the plan no longer has, delivered in the last 24 hours: named', () => {
    const gone = record(keyOf('p-gone'));
    const kept = record(keyOf('p-kept'));
    const rows = [row(1, keyOf('p-kept'), 'legacy')];
    const delivered = new Map([gone, kept].map((r) => [r.key, r]));
    expect(changedSince(rows, delivered, family, T0)).toEqual([gone]);
  });

  it('exactly 24 hours ago still counts; a moment longer does not; without an end time, its last update counts', () => {
    const at = (ms: number, o: Partial<OrderRecord> = {}): OrderRecord =>
      record(keyOf(`p${ms}`), { endedAt: new Date(T0 - ms).toISOString(), ...o });
    const edge = at(DAY);
    const older = at(DAY + 1);
    const noEnd = record(keyOf('p-upd'), { endedAt: undefined, updatedAt: new Date(T0 - 5000).toISOString() });
    const staleNoEnd = record(keyOf('p-upd-old'), {
      endedAt: undefined,
      updatedAt: new Date(T0 - DAY - 1).toISOString(),
    });
    const delivered = new Map([edge, older, noEnd, staleNoEnd].map((r) => [r.key, r]));
    expect(changedSince([], delivered, family, T0).map((r) => r.key)).toEqual([edge.key, noEnd.key]);
  });

  it("another family's rows, a single order's key and a legacy row key are not this plan's", () => {
    const other = planFamily(scope, '/plans/weekly.csv', undefined);
    const batch = planFamily(scope, '/plans/nightly.csv', 'b2');
    const records = [
      record(rowKey(other, { productId: 'p', quantity: 1, outCell: '', occurrence: 1 })),
      record(rowKey(batch, { productId: 'p', quantity: 1, outCell: '', occurrence: 1 })),
      record(`plan-${family}`),
      record(`plan-${family}0123456789ab-r3`),
      record(`x-plan-${family}0123456789ab`),
    ];
    expect(changedSince([], new Map(records.map((r) => [r.key, r])), family, T0)).toEqual([]);
  });
});

describe('interruptedGone: rows of this plan an earlier run sent and never finished, which the edited plan no longer has', () => {
  const family = planFamily(scope, '/plans/nightly.csv', undefined);
  const keyOf = (productId: string, quantity = 1): string =>
    rowKey(family, { productId, quantity, outCell: '', occurrence: 1 });
  const intent = (key: string, phase: Intent['phase'], owner = dead()): Intent => ({ key, phase, owner }) as Intent;

  it('a sent row (sending or accepted) whose key the plan no longer has: named; one the plan still has is resumed instead', () => {
    const gone = intent(keyOf('p', 50), 'sending');
    const answered = intent(keyOf('q', 2), 'accepted');
    const kept = intent(keyOf('p', 5), 'sending');
    const rows = [row(1, keyOf('p', 5), 'legacy')];
    expect(interruptedGone(rows, [gone, answered, kept], family)).toEqual([gone, answered]);
  });

  it('one only prepared (never sent), a legacy key the plan has, and other families and single orders: not named', () => {
    const other = planFamily(scope, '/plans/weekly.csv', undefined);
    const rows = [row(1, keyOf('p', 5), `plan-${family}0123456789ab`)];
    expect(
      interruptedGone(
        rows,
        [
          intent(keyOf('p', 50), 'prepared'),
          intent(`plan-${family}0123456789ab`, 'sending'),
          // Under the family's prefix, but not a row key's length (a legacy-shaped key).
          intent(`plan-${family}${'0'.repeat(12)}-r3`, 'sending'),
          intent(rowKey(other, { productId: 'p', quantity: 1, outCell: '', occurrence: 1 }), 'sending'),
          intent('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d', 'sending'),
        ],
        family,
      ),
    ).toEqual([]);
    // Nor one this very run holds, never sent.
    expect(interruptedGone(rows, [intent(keyOf('p', 50), 'prepared', currentOwner())], family)).toEqual([]);
  });

  // A review edited a row's codes file while the plan ran (as a busy file's hint said), and the row was ordered twice.
  it('one never sent that a live run of another process holds: named, as it is about to send', () => {
    const held = intent(keyOf('p', 50), 'prepared', { ...currentOwner(), pid: process.ppid, start: undefined });
    expect(interruptedGone([row(1, keyOf('p', 5), 'legacy')], [held], family)).toEqual([held]);
  });
});

describe('abandonedSentGone: rows of this plan abandoned while their requests were out, which the edited plan no longer has', () => {
  const family = planFamily(scope, '/plans/nightly.csv', undefined);
  const keyOf = (productId: string, outCell = ''): string =>
    rowKey(family, { productId, quantity: 1, outCell, occurrence: 1 });
  const sent = (key: string, o: Partial<OrderRecord> = {}): OrderRecord =>
    record(key, {
      outcome: 'abandoned',
      sent: true,
      orderId: undefined,
      createdAt: new Date(T0 - 3_600_000).toISOString(),
      ...o,
    });

  // An adversarial review renamed an abandoned row's codes file: the edited row's new key ordered it again.
  it('named while the server may keep its key; not one the plan still has, declined, placed, of another scope or family', () => {
    const gone = sent(keyOf('p', 'a.csv'));
    const rows = [row(1, keyOf('p', 'amazon.csv'), 'legacy'), row(2, keyOf('kept'), 'legacy-kept')];
    const kept = sent(keyOf('kept'));
    const keptLegacy = sent('legacy-kept');
    const declined = sent(keyOf('q'), { declined: true });
    const placed = sent(keyOf('r'), { orderId: 'ord_r' });
    const unsent = sent(keyOf('s'), { sent: undefined });
    const delivered = record(keyOf('t'));
    const otherScope = sent(keyOf('u'), { keyId: 'k2' });
    const otherFamily = sent(
      rowKey(planFamily(scope, '/plans/weekly.csv', undefined), {
        productId: 'v',
        quantity: 1,
        outCell: '',
        occurrence: 1,
      }),
    );
    const single = sent('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d');
    const all = [gone, kept, keptLegacy, declined, placed, unsent, delivered, otherScope, otherFamily, single];
    expect(abandonedSentGone(rows, all, scope, family, T0)).toEqual([gone]);
    // Past the day from its first send the server may have forgotten the key: not this question (order show's).
    expect(abandonedSentGone(rows, [gone], scope, family, T0 + DAY)).toEqual([]);
    expect(abandonedSentGone(rows, [gone], scope, family, T0 + DAY - 3_600_000)).toEqual([gone]);
  });
});

describe('sameRowsLeft: rows other plans sent and never finished that this run orders again', () => {
  const plan = '/plans/nightly.csv';
  const family = planFamily(scope, plan, undefined);
  const copy = planFamily(scope, '/plans/nightly (1).csv', undefined);
  const keyIn = (fam: string, productId: string, quantity = 1): string =>
    rowKey(fam, { productId, quantity, outCell: '', occurrence: 1 });
  const left = (key: string, o: Partial<Intent> = {}): Intent =>
    ({ key, phase: 'sending', profile: 'shop', ...scope, productId: 'p', quantity: 1, ...o }) as Intent;
  const abandonedOut = (key: string, o: Partial<OrderRecord> = {}): OrderRecord =>
    record(key, {
      outcome: 'abandoned',
      sent: true,
      orderId: undefined,
      productId: 'p',
      createdAt: new Date(T0 - 3_600_000).toISOString(),
      ...o,
    });
  const todo = [
    { productId: 'p', quantity: 1 },
    { productId: 'q', quantity: 2 },
  ];
  const always = (): boolean => true;
  const none = { intents: [], records: [] };

  // Adversarial reviews ran a copy of a plan killed with its rows charged (or abandoned while out, or the copy also
  // edited): every row was ordered again, asked nothing.
  it('named: interrupted rows and rows abandoned while out, each matching a row this run orders', () => {
    const a = left(keyIn(copy, 'p'));
    const b = left(keyIn(copy, 'q', 2), { productId: 'q', quantity: 2 });
    expect(sameRowsLeft({ intents: [a, b], records: [] }, scope, todo, family, always, T0)).toEqual([a, b]);
    const gone = abandonedOut(keyIn(copy, 'q', 2), { productId: 'q', quantity: 2 });
    expect(sameRowsLeft({ intents: [a], records: [gone] }, scope, todo, family, always, T0)).toEqual([a, gone]);
    // Only the rows that match (a copy edited since): a row this run does not order is not named.
    const c = left(keyIn(copy, 'z'), { productId: 'z' });
    expect(sameRowsLeft({ intents: [a, c], records: [] }, scope, todo, family, always, T0)).toEqual([a]);
    // No more of one row than this run orders.
    const a2 = left(`${keyIn(copy, 'p')}-g2`);
    expect(sameRowsLeft({ intents: [a, a2], records: [] }, scope, todo, family, always, T0)).toEqual([a]);
    // Another profile holding this key: one reseller to the API.
    expect(
      sameRowsLeft({ intents: [{ ...a, profile: 'other' }], records: [] }, scope, todo, family, always, T0),
    ).toHaveLength(1);
    expect(sameRowsLeft(none, scope, todo, family, always, T0)).toEqual([]);
  });

  // An adversarial review: a single order of 3 × steam-us-50 stopped while its request was out, then a plan with that
  // row: only the general "an order interrupted" line was said, and the row was charged twice, asked nothing.
  it('named: a single order interrupted or abandoned while out, of a row this run orders', () => {
    const single = left('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d');
    const says = (intents: Intent[], records: OrderRecord[] = []) =>
      sameRowsLeft({ intents, records }, scope, todo, family, always, T0);
    expect(says([single])).toEqual([single]);
    expect(says([{ ...single, profile: 'other' }])).toHaveLength(1);
    const gone = abandonedOut('inv-7001');
    expect(says([], [gone])).toEqual([gone]);
    // Not: never sent, another product or quantity, another scope, an older version's plan row (keyRows resumes
    // this plan's own under that key).
    expect(says([{ ...single, phase: 'prepared' }])).toEqual([]);
    expect(says([{ ...single, quantity: 3 }])).toEqual([]);
    expect(says([{ ...single, keyId: 'k2' }])).toEqual([]);
    expect(says([left(`plan-${'a'.repeat(24)}-r2`)])).toEqual([]);
  });

  it('not: its own rows, never sent, still running, another scope, declined, placed or past the day', () => {
    const a = left(keyIn(copy, 'p'));
    const says = (intents: Intent[], records: OrderRecord[] = [], resumable = always, now = T0) =>
      sameRowsLeft({ intents, records }, scope, todo, family, resumable, now);
    expect(says([left(keyIn(family, 'p'))])).toEqual([]);
    expect(says([{ ...a, phase: 'prepared' }])).toEqual([]);
    expect(says([a], [], () => false)).toEqual([]);
    for (const where of [{ keyId: 'k2' }, { baseUrl: 'http://localhost:4010' }, { environment: 'live' as const }])
      expect(says([{ ...a, ...where }]), JSON.stringify(where)).toEqual([]);
    const gone = abandonedOut(keyIn(copy, 'p'));
    expect(says([], [gone])).toEqual([gone]);
    expect(says([], [{ ...gone, declined: true }])).toEqual([]);
    expect(says([], [{ ...gone, orderId: 'ord_x' }])).toEqual([]);
    expect(says([], [{ ...gone, keyId: 'k2' }])).toEqual([]);
    expect(says([], [gone], always, T0 + DAY)).toEqual([]);
  });
});

describe("olderVersionRows: an earlier version's plan rows delivered today that no row of this plan matches", () => {
  const legacy = (sha: string, line: number) => `plan-${sha.repeat(24).slice(0, 24)}-r${line}`;

  it('of a product this run would order, in the last 24 hours, and not a row of this plan: named', () => {
    const edited = record(legacy('a', 2));
    const matched = record(legacy('b', 2));
    const otherProduct = record(legacy('c', 3), { productId: 'steam-us-20' });
    const older = record(legacy('d', 2), { endedAt: new Date(T0 - DAY - 1).toISOString() });
    const single = record('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d');
    const newKey = record(`plan-${'e'.repeat(24)}`);
    const rows = [row(2, `plan-${'f'.repeat(24)}`, legacy('b', 2))];
    const delivered = new Map([edited, matched, otherProduct, older, single, newKey].map((r) => [r.key, r]));
    expect(olderVersionRows(rows, rows, delivered, undefined, T0)).toEqual([edited]);
    // Nothing to order: nothing to ask about.
    expect(olderVersionRows(rows, [], delivered, undefined, T0)).toEqual([]);
    // A run with --batch is another run on purpose: older versions had none.
    expect(olderVersionRows(rows, rows, delivered, '2026-11-30', T0)).toEqual([]);
  });

  it('exactly 24 hours ago still counts, as for an edited plan', () => {
    const edge = record(legacy('a', 2), { endedAt: new Date(T0 - DAY).toISOString() });
    const rows = [row(2, `plan-${'f'.repeat(24)}`, legacy('b', 2))];
    expect(olderVersionRows(rows, rows, new Map([[edge.key, edge]]), undefined, T0)).toEqual([edge]);
  });

  it('a line number of two digits; a key that only contains the legacy shape is not one', () => {
    const twelve = record(legacy('a', 12));
    const rows = [{ ...row(12, `plan-${'f'.repeat(24)}`, legacy('b', 12)) }];
    expect(olderVersionRows(rows, rows, new Map([[twelve.key, twelve]]), undefined, T0)).toEqual([twelve]);
    for (const key of [`x-${legacy('a', 12)}`, `${legacy('a', 12)}x`]) {
      const shaped = record(key);
      expect(olderVersionRows(rows, rows, new Map([[key, shaped]]), undefined, T0), key).toEqual([]);
    }
  });

  it('the same product on another line is another plan (a review held up a plan that had never run)', () => {
    const onLine3 = record(legacy('a', 3));
    const rows = [row(2, `plan-${'f'.repeat(24)}`, legacy('b', 2))];
    expect(olderVersionRows(rows, rows, new Map([[onLine3.key, onLine3]]), undefined, T0)).toEqual([]);
  });
});

describe('deliveredUnderOtherScope: this plan delivered today under another key at this address, or this key at another spelling of it', () => {
  const plan = '/plans/nightly.csv';
  const delivered = (where: Scope, o: Partial<OrderRecord> & { batch?: string; file?: string } = {}): OrderRecord => {
    const family = planFamily(where, o.file ?? plan, o.batch);
    return record(rowKey(family, { productId: 'amazon-us-25', quantity: 2, outCell: '', occurrence: 1 }), {
      keyId: where.keyId,
      baseUrl: where.baseUrl,
      environment: where.environment,
      quantity: 2,
      ...o,
    });
  };
  const todo = [{ ...row(1, 'k', 'l'), quantity: 2 }];
  const rotated = { ...scope, keyId: 'another-key-id' };
  const respelled = { ...scope, baseUrl: 'http://localhost:4010' };

  it('a key rotated, or the address spelled another way: named', () => {
    const a = delivered(rotated);
    const b = delivered(respelled);
    expect(deliveredUnderOtherScope([a, b], scope, 'shop', todo, plan, undefined, T0)).toEqual([a, b]);
    // The same key at another spelling is the same reseller, whatever profile it was run under; exactly 24 hours
    // ago still counts.
    const otherProfile = delivered(respelled, { profile: 'night', endedAt: new Date(T0 - DAY).toISOString() });
    expect(deliveredUnderOtherScope([otherProfile], scope, 'shop', todo, plan, undefined, T0)).toEqual([otherProfile]);
  });

  it('this scope, another server with another key, another environment, plan, batch, product or quantity, or over a day ago: not', () => {
    const records = [
      delivered(scope),
      delivered({ ...scope, keyId: 'x', baseUrl: 'https://other.example' }),
      delivered({ ...rotated, environment: 'live' }),
      delivered(rotated, { file: '/plans/weekly.csv' }),
      delivered(rotated, { batch: 'b2' }),
      delivered(rotated, { productId: 'steam-us-20' }),
      delivered(rotated, { quantity: 3 }),
      delivered(rotated, { endedAt: new Date(T0 - DAY - 1).toISOString() }),
      delivered(rotated, { outcome: 'refused' }),
      // Another profile's key: another reseller's plan, not a key rotated.
      delivered(rotated, { profile: 'other-shop' }),
    ];
    expect(deliveredUnderOtherScope(records, scope, 'shop', todo, plan, undefined, T0)).toEqual([]);
    // A record from before key ids were kept, or a legacy key (plan-<24 hex>-r<line>) of that scope: not this plan's.
    const noKeyId = { ...delivered(respelled), keyId: undefined };
    const legacyThere = { ...delivered(rotated), key: `plan-${'a'.repeat(24)}-r2` };
    expect(deliveredUnderOtherScope([noKeyId, legacyThere], scope, 'shop', todo, plan, undefined, T0)).toEqual([]);
    // With the batch it ran under: named.
    expect(
      deliveredUnderOtherScope([delivered(rotated, { batch: 'b2' })], scope, 'shop', todo, plan, 'b2', T0),
    ).toHaveLength(1);
  });
});

describe('underOtherScope: the intents of this plan sent under another key or address spelling', () => {
  it('an intent of this plan and batch at another spelling of the address, of a row this run would order: named', () => {
    const plan = '/plans/nightly.csv';
    const respelled = { ...scope, baseUrl: 'http://localhost:4010' };
    const key = rowKey(planFamily(respelled, plan, 'b1'), {
      productId: 'amazon-us-25',
      quantity: 2,
      outCell: '',
      occurrence: 1,
    });
    const intent = { key, productId: 'amazon-us-25', quantity: 2, profile: 'shop', ...respelled };
    const todo = [{ ...row(1, 'k', 'l'), quantity: 2 }];
    expect(underOtherScope([intent], scope, 'shop', todo, plan, 'b1')).toEqual([intent]);
    expect(underOtherScope([intent], scope, 'shop', todo, plan, 'b2')).toEqual([]);
    expect(underOtherScope([{ ...intent, quantity: 3 }], scope, 'shop', todo, plan, 'b1')).toEqual([]);
    // A row sent again under its next key (sentAgainKey) is the plan's row too (a review).
    const later = { ...intent, key: `${key}-g2` };
    expect(underOtherScope([later], scope, 'shop', todo, plan, 'b1')).toEqual([later]);
    expect(underOtherScope([{ ...later, key: `${key}-x2` }], scope, 'shop', todo, plan, 'b1')).toEqual([]);
  });
});

describe('the scope rows are looked up in', () => {
  it('connectionScope: the server, environment and the API key by its id (never the key)', () => {
    expect(
      connectionScope({ baseUrl: 'https://api.example', environment: 'live', apiKey: 'sc_live_abcdefghijklmnop' }),
    ).toEqual({ baseUrl: 'https://api.example', environment: 'live', keyId: keyIdOf('sc_live_abcdefghijklmnop') });
  });

  it('sameScope: all three must match', () => {
    expect(sameScope(scope, { ...scope })).toBe(true);
    expect(sameScope({ ...scope, baseUrl: 'http://x' }, scope)).toBe(false);
    expect(sameScope({ ...scope, environment: 'live' }, scope)).toBe(false);
    expect(sameScope({ ...scope, keyId: 'k2' }, scope)).toBe(false);
  });

  it("deliveredRows: this scope's delivered records by key; other outcomes and other scopes are not", () => {
    const j = journal();
    j.history.record(record('a'));
    j.history.record(record('b', { outcome: 'failed' }));
    j.history.record(record('c', { environment: 'live' }));
    j.history.record(record('d', { keyId: 'k2' }));
    j.history.record(record('e', { outcome: 'refused', orderId: undefined }));
    const rows = deliveredRows(j, scope);
    expect([...rows.keys()]).toEqual(['a']);
    expect(rows.get('a')).toMatchObject({ orderId: 'ord_a', outcome: 'delivered' });
  });

  // Reviews: an order abandoned after the API placed it was ordered again by a copy, an edit or another address of
  // its plan, and a day later by the plan itself; one whose order failed then was never ordered again.
  it('deliveredRows: an order abandoned here after the API placed it is the row’s too, unless it is known to have failed', () => {
    const j = journal();
    j.history.record(record('placed', { outcome: 'abandoned' }));
    j.history.record(record('failed-since', { outcome: 'abandoned', status: 'failed' }));
    j.history.record(record('unanswered', { outcome: 'abandoned', orderId: undefined, sent: true }));
    expect([...deliveredRows(j, scope).keys()]).toEqual(['placed']);
    expect(sentAgainKey('placed', j, scope)).toBe('placed');
    expect(sentAgainKey('failed-since', j, scope)).toBe('failed-since-g2');
  });
});

// Which file names are copies of which (a scoped mutation run: every mark's pattern and anchor held only by the
// one name the end-to-end test gives).
describe('originalName: a plan file name without the marks a copy gets', () => {
  it.each([
    ['restock (1).csv', 'restock.csv'],
    ['restock (12).csv', 'restock.csv'],
    ['restock (1) (2).csv', 'restock.csv'],
    ['Copy of restock.csv', 'restock.csv'],
    ['Copy (2) of restock.csv', 'restock.csv'],
    ['restock - Copy.csv', 'restock.csv'],
    ['restock - Copy (3).csv', 'restock.csv'],
    ['restock - Copy - Copy.csv', 'restock.csv'],
    ['restock (copy).csv', 'restock.csv'],
    ['restock copy.csv', 'restock.csv'],
    ['restock copy 2.csv', 'restock.csv'],
    ['restock copy2.csv', 'restock.csv'],
    ['restock_copy.csv', 'restock.csv'],
    ['restock_copy_3.csv', 'restock.csv'],
    ['restock (1)', 'restock'],
    ['Copy (12) of restock.csv', 'restock.csv'],
    ['restock - Copy (12).csv', 'restock.csv'],
    ['restock copy 12.csv', 'restock.csv'],
  ])('%s is a copy of %s', (copy, original) => {
    expect(originalName(copy)).toBe(original);
  });

  it.each([
    'restock.csv',
    'restock (1) final.csv',
    'restock(1).csv',
    'restock (a).csv',
    'restock (1a).csv',
    'copyright.csv',
    'mycopy.csv',
    'restock copy x.csv',
    'restock copy a1.csv',
    'restock - copy x.csv',
    'restock - Copy (x).csv',
    'xcopy of y.csv',
    'the copy of y.csv',
    'Copy (x) of y.csv',
    'restock (copy) 2.csv',
    '.csv',
    ' (1).csv',
    'copy.csv',
  ])('%s is its own name', (name) => {
    expect(originalName(name)).toBe(name);
  });
});

describe('planFailure: what a plan with failed rows exits with', () => {
  const result = (row: number, error?: { code: string; message: string; exitCode: number; notSent?: true }) => ({
    row,
    productId: 'p',
    quantity: 1,
    key: `k${row}`,
    ...(error ? { error } : {}),
  });

  it('none failed: no failure', () => {
    expect(planFailure([result(1), result(2)])).toBeUndefined();
  });

  it("the worst row's exit, naming how many failed and the first; the hint says a re-run orders nothing twice", () => {
    const failure = planFailure([
      result(1),
      result(2, { code: 'product_unknown', message: 'no product p', exitCode: 4 }),
      result(3, { code: 'network_error', message: 'reset', exitCode: 5 }),
      result(4, { code: 'bad', message: 'bad', exitCode: 2 }),
    ]);
    expect(failure).toMatchObject({
      exitCode: 5,
      code: 'plan_rows_failed',
      message: '3 of 4 plan rows failed (first: line 2: no product p)',
      hint: 'fix what failed and run the same plan again: rows already delivered are not ordered twice (giftcodes order list --since 1d)',
    });
  });

  it('a row refused for something outside the plan (a wallet short of funds): the same plan again sends it under a new key, never "order it by itself"', () => {
    // A server kept the refusal with the key: the same plan again read "the wallet holds 25.00 USD" after it was
    // topped up (a review), so the hint said to order the row by itself; the plan's next run, the key forgotten,
    // then ordered it a second time (another review). The plan now sends such a row under its next key.
    const failure = planFailure([
      result(1),
      result(2, { code: 'insufficient_funds', message: 'the wallet holds 25.00 USD', exitCode: 4 }),
    ]);
    expect(failure?.hint).toBe(
      'fix what line 2 (insufficient_funds) was refused for, then run the same plan again: it sends that row under a new key and orders no delivered row twice; do not also order it by itself, or the next run orders it a second time',
    );
    // A product or quantity the plan names wrong is fixed in the plan: the fixed row has a new key.
    for (const code of ['unknown_product', 'product_not_found', 'invalid_quantity'])
      expect(planFailure([result(2, { code, message: 'm', exitCode: 4 })])?.hint).not.toContain('new key');
  });

  // An adversarial review: a nightly plan's row refused for supply, the plan fixed and run again without its --batch,
  // which is another batch: the row it had delivered was charged a second time. Every "run the same plan again" of
  // a run with a --batch says it.
  it("a run with --batch: each 'the same plan again' names that --batch", () => {
    const supply = { code: 'insufficient_supply', message: 'not enough codes', exitCode: 4 };
    const cases = [
      [result(1), result(2, supply)],
      [result(1), result(2, { code: 'product_unknown', message: 'no product p', exitCode: 4 })],
      [result(1), result(2, { code: 'rate_limited', message: 'HTTP 429', exitCode: 5 })],
      [result(1), result(2, { code: 'network_error', message: 'refused', exitCode: 5, notSent: true })],
      [result(1), result(2, { code: 'intent_busy', message: 'busy', exitCode: 5 })],
      [result(1), result(2, { code: 'unauthorized', message: 'HTTP 401', exitCode: 3 })],
      [result(1), { ...result(2, { code: 'order_failed', message: 'ended failed', exitCode: 6 }), order: { id: 'o' } }],
    ];
    for (const rows of cases) {
      const hint = planFailure(rows as never, undefined, undefined, 'live', '2026-12-01')?.hint ?? '';
      expect(hint).toMatch(/the same plan (run )?again with --batch 2026-12-01\b/);
      expect(planFailure(rows as never, undefined, undefined, 'live', 'my night')?.hint).toContain(
        "again with --batch 'my night'",
      );
      expect(planFailure(rows as never, undefined, undefined, 'live')?.hint).not.toContain('--batch');
    }
  });

  // A person's day: two rows short of funds, and the hint named line 4's command only.
  it('two rows refused for something outside the plan: each named', () => {
    const funds = { code: 'insufficient_funds', message: 'the wallet holds 25.00 USD', exitCode: 4 };
    const failure = planFailure([result(1), result(4, funds), { ...result(5, funds), quantity: 3 }]);
    expect(failure?.hint).toBe(
      'fix what lines 4 (insufficient_funds), 5 (insufficient_funds) were refused for, then run the same plan again: it sends those rows under a new key and orders no delivered row twice; do not also order them by itself, or the next run orders them a second time',
    );
  });

  // A person's day: rows the service kept rate limiting (429, 5xx after the retries) read "fix what failed".
  it('rows the service kept failing or limiting: nothing to fix, the same plan again later or with a lower --concurrency', () => {
    const failure = planFailure([
      result(1),
      result(2, { code: 'rate_limited', message: 'HTTP 429 rate_limited (after 6 attempts)', exitCode: 5 }),
      result(3, { code: 'server_error', message: 'HTTP 500', exitCode: 5 }),
    ]);
    expect(failure).toMatchObject({ exitCode: 5 });
    expect(failure?.hint).toBe(
      'the service kept failing or limiting the requests of those rows (nothing in the plan to fix): run the same plan again later, or with a lower --concurrency: rows already delivered are not ordered twice, and a row whose request may have gone out is sent again under its own key',
    );
    const one = planFailure([result(1), result(2, { code: 'rate_limited', message: 'HTTP 429', exitCode: 5 })]);
    expect(one?.hint).toMatch(/^the service kept failing or limiting the requests of that row \(/);
    // Beside a row the API refused for something else, it is not the whole story: the general hint.
    const mixed = planFailure([
      result(1, { code: 'rate_limited', message: 'HTTP 429', exitCode: 5 }),
      result(2, { code: 'insufficient_funds', message: 'm', exitCode: 4 }),
    ]);
    expect(mixed?.hint).toMatch(
      /^fix what line 2 \(insufficient_funds\) was refused for, then run the same plan again/,
    );
  });

  it('a row whose order ended failed: the same plan again orders it anew under a new key; never "order it by itself"', () => {
    const failed = {
      ...result(3, { code: 'order_failed', message: 'ended failed', exitCode: 6 }),
      order: { id: 'ord_f3' },
    };
    expect(planFailure([result(1), failed as never])?.hint).toBe(
      "line 3's order ended failed (the provider's end: giftcodes order show ord_f3 says why): the same plan run again orders that row anew, under a new key of its own; do not order it by itself as well, or the plan's next run orders it a second time",
    );
  });

  // A cron job with an expired key: 12 rows sent, each refused, and the hint said "fix what failed".
  it("the run's key refused: said as such, with the key's own hint; rows after it not attempted", () => {
    const refused = new AuthError('the key in GIFTCODES_API_KEY was refused (HTTP 401 invalid_api_key)', {
      hint: 'set GIFTCODES_API_KEY to a valid key, or unset it to use the saved one',
    });
    const row401 = result(2, { code: 'invalid_api_key', message: refused.message, exitCode: 3 });
    const skipped = (n: number) => result(n, { code: 'not_attempted', message: 'not sent', exitCode: 3 });
    expect(planFailure([row401, skipped(3), skipped(4)], undefined, refused)).toMatchObject({
      exitCode: 3,
      message: `1 of 3 plan rows failed and 2 were not attempted: the API key was refused, so nothing was charged (first: line 2: ${refused.message})`,
      hint: 'set GIFTCODES_API_KEY to a valid key, or unset it to use the saved one; then run the same plan again: it sends the rows not ordered, never the delivered ones twice',
    });
    // The row's own "no order was made, so nothing was charged" (the order machine's, right for one order) is not said
    // a second time inside the header that says it for the whole plan.
    const worded = result(2, {
      code: 'invalid_api_key',
      message: `${refused.message}; no order was made, so nothing was charged`,
      exitCode: 3,
    });
    expect(planFailure([worded, skipped(3)], undefined, refused)?.message).toBe(
      `1 of 2 plan rows failed and 1 was not attempted: the API key was refused, so nothing was charged (first: line 2: ${refused.message})`,
    );
    // A row the API placed before its status read was refused (a key revoked mid-run, a review): not "nothing was
    // charged" either.
    const placedThen401 = result(3, { code: 'invalid_api_key', message: 'GET …: HTTP 401', exitCode: 3 });
    expect(
      planFailure(
        [row401, { ...placedThen401, error: { ...placedThen401.error!, orderId: 'ord_3' } }],
        undefined,
        refused,
      )?.message,
    ).toMatch(/^2 of 2 plan rows failed: the API key was refused \(first/);
    // A row ordered before the key was refused (revoked mid-run): not "nothing was charged".
    expect(planFailure([result(1), row401], undefined, refused)?.message).toMatch(
      /^1 of 2 plan rows failed: the API key was refused \(first: line 2/,
    );
    // Rows refused 403 (a key's right to a product, not the key): no stop was made, and the general hint is said.
    const forbidden = result(2, { code: 'forbidden', message: 'HTTP 403', exitCode: 3 });
    expect(planFailure([forbidden])?.hint).toMatch(/^fix what failed/);
    // Beside another failure, the key is not the whole story.
    expect(
      planFailure([row401, result(3, { code: 'bad', message: 'm', exitCode: 4 })], undefined, refused)?.hint,
    ).toMatch(/^fix what failed/);
  });

  it('a row whose key another config directory or machine used (order_placed_elsewhere): nothing to fix, never "order it by itself"', () => {
    // Its hint was "once it is fixed, order it by itself": a second purchase of an order that exists (a review).
    const failure = planFailure(
      [
        result(1),
        result(2, {
          code: 'order_placed_elsewhere',
          message: 'the API answered the key k2 with order ord_x',
          exitCode: 4,
        }),
      ],
      undefined,
      undefined,
      'live',
    );
    expect(failure).toMatchObject({ exitCode: 4, code: 'plan_rows_failed' });
    expect(failure?.hint).toContain("line 2's order was placed by another run of this plan");
    // A review followed "a --batch of its own" and every row was ordered again; the row alone is named instead.
    expect(failure?.hint).toContain(
      "to order that row here too, as a second order: giftcodes order place --env live --product p --quantity 1 (never a --batch of its own, which orders every row again; the plan never sends that row's key again)",
    );
    expect(failure?.hint).not.toContain('order it by itself');
  });

  it('a row whose key was abandoned without an answer over a day ago: the dashboard, then the row by itself', () => {
    const stale = result(2, { code: 'stale_intent', message: 'the key k2 was first sent …', exitCode: 2 });
    expect(planFailure([result(1), stale], undefined, undefined, 'live')?.hint).toBe(
      "line 2's key (k2) was abandoned without an answer over a day ago and is never sent again: look in the provider's dashboard for its order (giftcodes order show k2 says what to look for); if there is none, order the row by itself: giftcodes order place --env live --product p --quantity 1 (the plan does not send that key again)",
    );
  });

  // Two terminals running one plan: the second's rows the first was sending ended intent_busy, and the hint said "fix
  // what failed", though nothing needed fixing but waiting for the other run.
  it('rows failed only because another run is sending them (intent_busy): wait for it, then the same plan again', () => {
    const busy = (row: number) =>
      result(row, {
        code: 'intent_busy',
        message: `another giftcodes process (pid 4242) is working on the order with key k${row}`,
        exitCode: 2,
      });
    const failure = planFailure([result(1), busy(2), busy(3)]);
    expect(failure).toMatchObject({ exitCode: 2, code: 'plan_rows_failed' });
    expect(failure?.hint).toBe(
      'another giftcodes run is sending those rows (line 2; line 3) right now: nothing needs fixing; once it ends, run the same plan again: it orders nothing twice (the rows that run delivered are read, not ordered again)',
    );
    expect(planFailure([busy(1)])?.hint).toMatch(/^another giftcodes run is sending that row \(line 1\) right now/);
    // A busy row beside a row with something to fix: the fix is said.
    expect(planFailure([busy(1), result(2, { code: 'bad', message: 'm', exitCode: 4 })])?.hint).toMatch(
      /^fix what failed/,
    );
  });

  it('rows not attempted (the server out of reach): counted apart, the first tried row named, the network hint', () => {
    const unreachable = { code: 'network_error', message: 'cannot reach x', exitCode: 5 };
    const skipped = { code: 'not_attempted', message: 'not sent', exitCode: 5 };
    expect(planFailure([result(1, skipped), result(2, unreachable), result(3, skipped), result(4)])).toMatchObject({
      exitCode: 5,
      message:
        '1 of 4 plan rows failed and 2 were not attempted: the server could not be reached (first: line 2: cannot reach x)',
      hint: 'check the network and the server (giftcodes doctor); then run the same plan again: it sends the rows not ordered, never the delivered ones twice',
    });
  });

  // A plan against a stopped reference server said "giftcodes doctor" where the same order alone names the command
  // that starts it (a walkthrough): the hint of the error that found the server out of reach comes first.
  it("the server out of reach: the hint of that row's error, as the order alone would give it", () => {
    const refused = { code: 'network_error', message: 'cannot reach x', exitCode: 5, notSent: true as const };
    const cause = new NetworkError('cannot reach http://127.0.0.1:9', {
      code: 'network_error',
      hint: 'nothing listens on 127.0.0.1:9: start the reference server with giftcodes serve --port 9, or check --base-url',
      notSent: true,
    });
    expect(planFailure([result(1, refused), result(2, refused)], cause)?.hint).toBe(
      'nothing listens on 127.0.0.1:9: start the reference server with giftcodes serve --port 9, or check --base-url; then run the same plan again: it sends the rows not ordered, never the delivered ones twice',
    );
    // A row that failed otherwise (not the server out of reach) keeps its own hint.
    expect(planFailure([result(1, { code: 'bad', message: 'm', exitCode: 4 })], cause)?.hint).toMatch(
      /^fix what failed/,
    );
  });

  // A cron night against a stopped server read "5 of 5 plan rows failed" and "fix what failed": nothing had been
  // sent, and nothing was to fix but the server (a walkthrough).
  it('every failed row certainly unsent (connection refused): said so, nothing charged, and the network hint', () => {
    const refused = {
      code: 'network_error',
      message: 'cannot reach x (connection refused)',
      exitCode: 5,
      notSent: true as const,
    };
    expect(planFailure([result(1, refused), result(2, refused)])).toMatchObject({
      exitCode: 5,
      message:
        '2 of 2 plan rows failed: the server could not be reached, and nothing was sent or charged (first: line 1: cannot reach x (connection refused))',
      hint: 'check the network and the server (giftcodes doctor); then run the same plan again: it sends the rows not ordered, never the delivered ones twice',
    });
    // One that may have been sent (a timeout) is not "nothing was sent".
    const timedOut = { code: 'network_error', message: 'timed out', exitCode: 5 };
    expect(planFailure([result(1, refused), result(2, timedOut)])?.message).toBe(
      '2 of 2 plan rows failed (first: line 1: cannot reach x (connection refused))',
    );
    // Nor a run whose other row was ordered (an adversarial review: "nothing was sent or charged" under a line
    // saying 1 of 2 rows was ordered, 25.00 USD): the failed rows alone were not sent.
    expect(planFailure([result(1), result(2, refused)])?.message).toBe(
      '1 of 2 plan rows failed: the server could not be reached, and that row was not sent (first: line 2: cannot reach x (connection refused))',
    );
    // Rows not attempted beside rows refused a connection, none placed: nothing was sent; one was not attempted.
    const skipped = { code: 'not_attempted', message: 'not sent', exitCode: 5 };
    expect(planFailure([result(1, refused), result(2, skipped)])?.message).toBe(
      '1 of 2 plan rows failed and 1 was not attempted: the server could not be reached, and nothing was sent or charged (first: line 1: cannot reach x (connection refused))',
    );
  });
});

describe('planName: a plan from a descriptor is keyed by one name, whichever the descriptor', () => {
  it('/dev/stdin is /dev/fd/0 (a review ordered one pipe plan twice, once by each name); a file keeps its own', () => {
    expect(planName('/dev/stdin')).toBe(planName('/dev/fd/0'));
    expect(planName('/dev/fd/63')).toBe(planName('/proc/self/fd/12'));
    expect(planName('/srv/plans/stdin')).toBe('stdin');
    expect(planName('/srv/plans/nightly.csv')).toBe('nightly.csv');
  });
});

// A review ran `restock (copy).csv` right after `restock.csv`: each row was charged twice, and the run said nothing.
describe('sameRowsElsewhere: another plan delivered exactly these rows within the day', () => {
  /** This run: the copy, without a --batch. */
  const COPY = { name: 'restock (copy).csv', batch: undefined };
  const mine = planFamily(scope, '/plans/restock (copy).csv', undefined);
  const theirs = planFamily(scope, '/plans/restock.csv', undefined);
  const rows = [
    { productId: 'zalando-de-25', quantity: 2 },
    { productId: 'tesco-uk-20', quantity: 3 },
    { productId: 'tesco-uk-20', quantity: 3 },
  ];
  const of = (family: string, r: { productId: string; quantity: number }, n: number, o: Partial<OrderRecord> = {}) =>
    record(rowKey(family, { productId: r.productId, quantity: r.quantity, outCell: '', occurrence: n }), {
      productId: r.productId,
      quantity: r.quantity,
      ...o,
    });
  const delivered = rows.map((r, i) => of(theirs, r, i));

  it('the same rows in another order, from another plan file: named', () => {
    const found = sameRowsElsewhere([...delivered].reverse(), scope, rows, mine, COPY, T0);
    expect(found?.map((r) => r.key).sort()).toEqual(delivered.map((r) => r.key).sort());
    // A row of that plan delivered under its next key (-g2: refused for funds first) is one of its rows (a review).
    const later = delivered.map((r, i) => (i === 0 ? { ...r, key: `${r.key}-g2` } : r));
    expect(sameRowsElsewhere(later, scope, rows, mine, COPY, T0)).toHaveLength(3);
  });

  // The copy with a line added (the review's second case: 3 of 3 rows ordered without a word).
  it('another plan whose rows, two or more, are all rows of this one: named; a one-row plan alike a one-row plan too', () => {
    expect(sameRowsElsewhere(delivered.slice(1), scope, rows, mine, COPY, T0)).toHaveLength(2);
    expect(sameRowsElsewhere(delivered.slice(0, 2), scope, rows, mine, COPY, T0)).toHaveLength(2);
    expect(sameRowsElsewhere(delivered.slice(0, 1), scope, rows.slice(0, 1), mine, COPY, T0)).toHaveLength(1);
    // A row it has more often than this plan: not all of its rows are here.
    const thrice = [...delivered.slice(1), of(theirs, rows[1]!, 7)];
    expect(sameRowsElsewhere(thrice, scope, rows, mine, COPY, T0)).toBeUndefined();
  });

  it('not: this plan itself, a row more or less, another quantity, another scope, over a day ago, not delivered', () => {
    const none = (records: OrderRecord[], wanted = rows): void =>
      expect(sameRowsElsewhere(records, scope, wanted, mine, COPY, T0)).toBeUndefined();
    none(rows.map((r, i) => of(mine, r, i)));
    // One row in common with another plan is not said: two plans may well order one product alike.
    none(delivered.slice(0, 1));
    none(delivered, rows.slice(1));
    none([...delivered, of(theirs, { productId: 'steam-us-20', quantity: 1 }, 9)]);
    none(delivered, [...rows.slice(1), { productId: 'zalando-de-25', quantity: 1 }]);
    none(delivered.map((r) => ({ ...r, keyId: 'another-key' })));
    // Another profile holding this key is the same reseller to the API: named (a review copied a plan in a second
    // profile and was charged twice).
    expect(
      sameRowsElsewhere(
        delivered.map((r) => ({ ...r, profile: 'night' })),
        scope,
        rows,
        mine,
        COPY,
        T0,
      ),
    ).toHaveLength(3);
    none(delivered.map((r) => ({ ...r, endedAt: new Date(T0 - DAY - 1).toISOString() })));
    none(delivered.map((r) => ({ ...r, outcome: 'refused' as const })));
    // A single order's record (its key made by the journal) is never a plan's row; nor a key given that only looks
    // like one (a word before it, more after it), nor an older version's row key (plan-<24 hex>-r<line>).
    none(delivered.map((r) => ({ ...r, key: '3f1c9a9e-5d1b-4c4e-9a53-2f0f6c8d7b21' })));
    none(delivered.map((r) => ({ ...r, key: `my-${r.key}` })));
    none(delivered.map((r, i) => ({ ...r, key: `${r.key}-r${i + 2}` })));
  });

  // A review ran a copy with the same --batch as the cron recipe's (the night's date): nothing was said. The same
  // plan file under another --batch (the next night) is ordered again on purpose, and says nothing; but one that
  // delivered them within BATCH_TYPO_MS is said (a review corrected a mistyped --batch and was charged twice).
  it('with a --batch: said for another plan file, and the same file under another batch lately; not a night ago, nor a record without its plan', () => {
    const named = delivered.map((r) => ({ ...r, plan: 'restock.csv' }));
    const batch = { name: 'restock (copy).csv', batch: '2026-11-30' };
    expect(sameRowsElsewhere(named, scope, rows, mine, batch, T0)).toHaveLength(3);
    expect(sameRowsElsewhere(named, scope, rows, mine, { name: 'restock.csv', batch: '2026-12-01' }, T0)).toHaveLength(
      3,
    );
    const atNight = named.map((r) => ({ ...r, endedAt: new Date(T0 - BATCH_TYPO_MS - 1).toISOString() }));
    expect(
      sameRowsElsewhere(atNight, scope, rows, mine, { name: 'restock.csv', batch: '2026-12-01' }, T0),
    ).toBeUndefined();
    expect(
      sameRowsElsewhere(atNight, scope, rows, mine, { name: 'restock.csv', batch: undefined }, T0),
    ).toBeUndefined();
    // Another plan file's rows are said all day, not only lately.
    expect(sameRowsElsewhere(atNight, scope, rows, mine, batch, T0)).toHaveLength(3);
    // Exactly BATCH_TYPO_MS ago is not lately.
    const atEdge = named.map((r) => ({ ...r, endedAt: new Date(T0 - BATCH_TYPO_MS).toISOString() }));
    expect(
      sameRowsElsewhere(atEdge, scope, rows, mine, { name: 'restock.csv', batch: '2026-12-01' }, T0),
    ).toBeUndefined();
    // A group of the same plan's rows a night ago, one of them recorded before records named their plan: not said.
    const older = atNight.map((r, i) => (i === 0 ? { ...r, plan: undefined } : r));
    expect(sameRowsElsewhere(older, scope, rows, mine, { name: 'restock.csv', batch: undefined }, T0)).toBeUndefined();
    // With a --batch, any record of the group without its plan says nothing of it: not said.
    const unnamed = named.map((r, i) => (i === 0 ? { ...r, plan: undefined } : r));
    expect(
      sameRowsElsewhere(unnamed, scope, rows, mine, { name: 'restock-v2.csv', batch: '2026-11-30' }, T0),
    ).toBeUndefined();
    // Named as a copy of restock.csv: the rows its records name lately are said (the copy-name rule below).
    expect(sameRowsElsewhere(unnamed, scope, rows, mine, batch, T0)).toHaveLength(2);
    // One row of that batch lately and the others a night ago: not the typo's plan run.
    const mixed = named.map((r, i) => (i === 0 ? r : atNight[i]!));
    expect(
      sameRowsElsewhere(mixed, scope, rows, mine, { name: 'restock.csv', batch: '2026-12-01' }, T0),
    ).toBeUndefined();
    expect(sameRowsElsewhere(delivered, scope, rows, mine, batch, T0)).toBeUndefined();
  });
});

// An adversarial review: a browser saves a second download as `restock (1).csv`, a person edits it, and the rows the
// original delivered were charged again without a word (the original delivered 1 of 2 rows; a quantity changed in a
// 3-row copy; `week (1).csv` keeping 2 of 3 rows): the copy rule needed every row of the other plan.
describe('sameRowsElsewhere: a plan named as a copy of another (` (1)`, ` - Copy`, `Copy of `…) that delivered rows lately', () => {
  const theirs = planFamily(scope, '/plans/restock.csv', undefined);
  const rows = [
    { productId: 'zalando-de-25', quantity: 2 },
    { productId: 'tesco-uk-20', quantity: 3 },
    { productId: 'steam-us-20', quantity: 1 },
  ];
  const of = (r: { productId: string; quantity: number }, o: Partial<OrderRecord> = {}) =>
    record(rowKey(theirs, { productId: r.productId, quantity: r.quantity, outCell: '', occurrence: 1 }), {
      productId: r.productId,
      quantity: r.quantity,
      plan: 'restock.csv',
      batch: null,
      ...o,
    });
  const delivered = rows.map((r) => of(r));
  const copy = (name: string, wanted: readonly { productId: string; quantity: number }[], records = delivered) =>
    sameRowsElsewhere(
      records,
      scope,
      wanted,
      planFamily(scope, `/plans/${name}`, undefined),
      { name, batch: undefined },
      T0,
    );

  it('named, for the rows the other plan delivered: one of two, a copy with a quantity changed, one with a row less', () => {
    // The original delivered 1 of 2 rows (the other refused for supply); the fixed plan saved as `restock (1).csv`.
    expect(copy('restock (1).csv', rows.slice(0, 2), delivered.slice(0, 1))).toEqual(delivered.slice(0, 1));
    // A row's quantity changed in the copy: the two rows it kept.
    const changed = [rows[0]!, { ...rows[1]!, quantity: 4 }, rows[2]!];
    expect(copy('restock (1).csv', changed)?.map((r) => r.productId)).toEqual(['zalando-de-25', 'steam-us-20']);
    // 2 of 3 rows kept, and another one added.
    expect(copy('restock (1).csv', [rows[0]!, rows[2]!, { productId: 'apple-us-50', quantity: 1 }])).toHaveLength(2);
    for (const name of [
      'restock (2).csv',
      'restock - Copy.csv',
      'Copy of restock.csv',
      'restock_copy.csv',
      'restock copy.csv',
      'restock (1) (1).csv',
    ])
      expect(copy(name, rows.slice(0, 2), delivered.slice(0, 1)), name).toHaveLength(1);
    // The other way round: the original run after its copy delivered.
    const copied = planFamily(scope, '/plans/restock (1).csv', undefined);
    const byCopy = [
      of(rows[0]!, {
        key: rowKey(copied, { productId: 'zalando-de-25', quantity: 2, outCell: '', occurrence: 1 }),
        plan: 'restock (1).csv',
      }),
    ];
    expect(
      sameRowsElsewhere(byCopy, scope, rows.slice(0, 2), theirs, { name: 'restock.csv', batch: undefined }, T0),
    ).toHaveLength(1);
  });

  it('not: a plan of another name sharing a row, rows delivered over BATCH_TYPO_MS ago, a record without its plan', () => {
    expect(copy('shop-b.csv', rows.slice(0, 2), delivered.slice(0, 1))).toBeUndefined();
    expect(copy('restocking (1).csv', rows.slice(0, 2), delivered.slice(0, 1))).toBeUndefined();
    const earlier = delivered.map((r) => ({ ...r, endedAt: new Date(T0 - BATCH_TYPO_MS - 1).toISOString() }));
    expect(copy('restock (1).csv', rows.slice(0, 2), earlier.slice(0, 1))).toBeUndefined();
    expect(copy('restock (1).csv', rows.slice(0, 2), [{ ...delivered[0]!, plan: undefined }])).toBeUndefined();
    // A row the copy changed is not said.
    expect(copy('restock (1).csv', [{ ...rows[0]!, quantity: 5 }], delivered.slice(0, 1))).toBeUndefined();
  });
});

// An adversarial review: a copy of the nightly plan run while the nightly job ran charged every row again without a
// word; the rows that job's process is placing now are named, and asked about at a terminal.
describe('sameRowsRunning: rows another plan is placing now', () => {
  const family = planFamily(scope, '/plans/copy.csv', undefined);
  const nightly = planFamily(scope, '/plans/nightly.csv', '2026-12-01');
  const keyIn = (fam: string, productId: string, quantity = 1): string =>
    rowKey(fam, { productId, quantity, outCell: '', occurrence: 1 });
  // Another live process: this test's parent, on this machine.
  const running = (key: string, o: Partial<Intent> = {}): Intent =>
    ({
      key,
      phase: 'prepared',
      profile: 'shop',
      ...scope,
      productId: 'p',
      quantity: 1,
      owner: { ...currentOwner(), pid: process.ppid, start: undefined },
      ...o,
    }) as Intent;
  const todo = [
    { productId: 'p', quantity: 1 },
    { productId: 'q', quantity: 2 },
  ];

  it("named: another plan's rows its live process is placing (sent or not yet), each matching a row of this run", () => {
    const a = running(keyIn(nightly, 'p'));
    const b = running(keyIn(nightly, 'q', 2), { productId: 'q', quantity: 2, phase: 'sending' });
    expect(sameRowsRunning([a, b], scope, todo, family)).toEqual([a, b]);
    // Only rows this run orders, and no more of one than it orders.
    expect(sameRowsRunning([a, running(keyIn(nightly, 'z'), { productId: 'z' })], scope, todo, family)).toEqual([a]);
    expect(sameRowsRunning([a, running(`${keyIn(nightly, 'p')}-g2`)], scope, todo, family)).toEqual([a]);
    // Another profile holding this key: one reseller to the API.
    expect(sameRowsRunning([{ ...a, profile: 'other' }], scope, todo, family)).toHaveLength(1);
  });

  it("not: its own rows, this process, a dead or another machine's run, another scope, a single order", () => {
    const a = running(keyIn(nightly, 'p'));
    expect(sameRowsRunning([running(keyIn(family, 'p'))], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, owner: currentOwner() }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, owner: dead() }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, owner: { ...a.owner, machine: 'elsewhere' } }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, environment: 'live' }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, keyId: 'another' }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([{ ...a, key: 'a-single-order-key' }], scope, todo, family)).toEqual([]);
    expect(sameRowsRunning([], scope, todo, family)).toEqual([]);
  });
});

// An adversarial review: two plans sharing two rows, the second's live question answered while the first ran to its
// end: both rows charged twice within a minute, without a word. Another: a single order, or the nightly job at
// another spelling of the address, placed meanwhile, was not counted.
describe('otherRunsNotes and rowsPlacedSince: rows another run placed while a question waited', () => {
  const family = planFamily(scope, '/plans/b.csv', undefined);
  const other = planFamily(scope, '/plans/a.csv', undefined);
  const keyIn = (fam: string, productId: string, quantity = 1): string =>
    rowKey(fam, { productId, quantity, outCell: '', occurrence: 1 });
  const note = (key: string, o: Partial<Intent> = {}): Intent =>
    ({ key, phase: 'sending', profile: 'shop', ...scope, productId: 'p', quantity: 1, owner: dead(), ...o }) as Intent;
  const todo = [
    { productId: 'p', quantity: 1 },
    { productId: 'q', quantity: 2 },
    { productId: 'r', quantity: 3 },
  ];
  const asked = (at = Date.now()): Footprint => ({
    notes: new Map<string, Intent>(),
    unsent: new Set<string>(),
    at: new Date(at).toISOString(),
  });
  const since = (intents: Intent[], records: OrderRecord[], before: Footprint = asked(), rows = todo) =>
    rowsPlacedSince({ intents, records: () => records }, before, scope, family, rows).since;
  // An hour ahead: computed as the tests are collected, and a loaded CI machine ran them more than a second later (2
  // failures in CI, 11:01 on 2026-12-01), when a second ahead had become the past.
  const later = new Date(Date.now() + 3_600_000).toISOString();

  it('a note sent or held by a live run, a record ended since; of another plan or a single order, any address', () => {
    const sent = note(keyIn(other, 'q', 2), { productId: 'q', quantity: 2 });
    const paused = note('single-order-key', {
      productId: 'r',
      quantity: 3,
      phase: 'prepared',
      owner: { ...currentOwner(), pid: process.ppid, start: undefined },
    });
    const placed = record(keyIn(other, 'p'), { productId: 'p', orderId: 'ord_p', endedAt: later, createdAt: later });
    expect(since([sent, paused], [placed])).toEqual([sent, paused, placed]);
    // Only what is new since the question, and only rows this run orders.
    const before = otherRunsNotes([sent], scope, family);
    expect(since([sent, paused], [placed], before)).toEqual([paused, placed]);
    expect(since([sent, paused], [placed], asked(), [{ productId: 'q', quantity: 2 }])).toEqual([sent]);
    // The nightly job at another spelling of the address, and a row sent and abandoned before its answer.
    const localhost = note(keyIn(other, 'p'), { baseUrl: 'http://localhost:4010' });
    expect(since([localhost], [])).toEqual([localhost]);
    const abandoned = record(keyIn(other, 'p'), {
      productId: 'p',
      orderId: undefined,
      outcome: 'abandoned',
      sent: true,
      endedAt: later,
      createdAt: later,
    });
    expect(since([], [abandoned])).toEqual([abandoned]);
    // A record from before key ids were kept is of any key; a note and its record (ended since) are one order.
    const { keyId: _keyId, ...unkeyed } = record(keyIn(other, 'q', 2), {
      productId: 'q',
      quantity: 2,
      orderId: 'ord_old',
      endedAt: later,
      createdAt: later,
    });
    expect(since([], [unkeyed as OrderRecord])).toHaveLength(1);
    expect(
      since(
        [sent],
        [record(sent.key, { productId: 'q', quantity: 2, orderId: 'ord_q', endedAt: later, createdAt: later })],
      ),
    ).toEqual([sent]);
  });

  it("not: this plan's rows, notes never sent of a dead run or this one, ended before the question, refused, another environment or key", () => {
    const notes = [
      note(keyIn(family, 'p')),
      note(keyIn(other, 'p'), { phase: 'prepared' }),
      note(keyIn(other, 'p'), { phase: 'prepared', owner: currentOwner() }),
      note(keyIn(other, 'q', 2), { productId: 'q', quantity: 2, environment: 'live' }),
      note(keyIn(other, 'q', 2), { productId: 'q', quantity: 2, keyId: 'rotated' }),
    ];
    const records = [
      record(keyIn(other, 'r', 3), {
        productId: 'r',
        quantity: 3,
        outcome: 'refused',
        orderId: undefined,
        sent: true,
        endedAt: later,
        createdAt: later,
      }),
      record(keyIn(other, 'p'), {
        productId: 'p',
        orderId: 'ord_old',
        endedAt: new Date(Date.now() - 60_000).toISOString(),
      }),
      record(keyIn(other, 'q', 2), {
        productId: 'q',
        quantity: 2,
        orderId: undefined,
        outcome: 'failed',
        endedAt: later,
        createdAt: later,
      }),
    ];
    expect(since(notes, records)).toEqual([]);
    // An older order's record ended since (an abandoned one delivered by codes get): placed before the question; the
    // same of a note never sent then was placed meanwhile.
    const fetched = record(keyIn(other, 'p'), { productId: 'p', orderId: 'ord_f', endedAt: later });
    expect(since([], [fetched])).toEqual([]);
    expect(since([], [fetched], { ...asked(), unsent: new Set([fetched.key]) })).toEqual([fetched]);
    // A note never sent then whose record ended before the question: nothing meanwhile.
    const endedBefore = record(keyIn(other, 'p'), { productId: 'p', orderId: 'ord_b' });
    expect(since([], [endedBefore], { ...asked(), unsent: new Set([endedBefore.key]) })).toEqual([]);
    expect(otherRunsNotes([note(keyIn(other, 'q', 2), { phase: 'prepared' })], scope, family).unsent).toEqual(
      new Set([keyIn(other, 'q', 2)]),
    );
    // A record of a note there as the question was asked was said by it then.
    const sent = note(keyIn(other, 'p'));
    expect(
      since(
        [],
        [record(sent.key, { productId: 'p', orderId: 'ord_s', endedAt: later, createdAt: later })],
        otherRunsNotes([sent], scope, family),
      ),
    ).toEqual([]);
  });
});

// An adversarial review: a row copied down by accident (dup.csv: 2 × amazon-us-10 on two lines, no out) was two orders,
// and neither the run nor its --dry-run said so.
describe('sameRowTwice: identical rows without an out file, each an order of its own', () => {
  const at = (n: number, o: Partial<PlanRow> = {}): PlanRow => ({ ...row(n, `k${n}`, `l${n}`), ...o });

  it('names the lines of each such row', () => {
    expect(sameRowTwice([at(2), at(3)])).toBe(
      'lines 2 and 3 are the same row (1 × amazon-us-25, no out file), an order each',
    );
    expect(sameRowTwice([at(2), at(3, { productId: 'steam-us-20' }), at(5), at(6, { productId: 'steam-us-20' })])).toBe(
      'lines 2 and 5 are the same row (1 × amazon-us-25, no out file), an order each; lines 3 and 6 are the same row (1 × steam-us-20, no out file), an order each',
    );
  });

  it('not: another quantity or product, rows with out files, one row', () => {
    expect(sameRowTwice([at(2), at(3, { quantity: 2 })])).toBeUndefined();
    expect(sameRowTwice([at(2), at(3, { productId: 'steam-us-20' })])).toBeUndefined();
    expect(sameRowTwice([at(2, { out: '/p/a.csv' }), at(3, { out: '/p/b.csv' })])).toBeUndefined();
    expect(sameRowTwice([at(2)])).toBeUndefined();
  });
});
