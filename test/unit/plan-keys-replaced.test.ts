// The never-sent notes of rows an edited plan no longer has (plan.ts replacedUnsent): a plan stopped by Ctrl-C leaves
// the row behind the one out `prepared`; the person edits that row (or removes it) and runs the plan again. That run
// drops each such note (Journal.settleWhere, its record saying why), so that `order pending` and `order resume --all`
// do not place it beside the edited row (an adversarial review: one row ordered twice). Nothing of them was sent, so
// nothing is lost; a row whose request may have gone out keeps the edited plan's rules (interruptedGone).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { scopeOf, type Scope } from '../../src/journal/history.js';
import type { Intent } from '../../src/journal/intent.js';
import { currentOwner } from '../../src/journal/owner.js';
import { planFamily, replacedUnsent, rowKey, type PlanRow } from '../../src/orders/plan.js';
import { dead, journal, spec } from '../helpers/journal.js';

const scope: Scope = { baseUrl: spec.baseUrl, environment: spec.environment, keyId: spec.keyId };
const family = planFamily(scope, '/plans/restock.csv', undefined);
const keyOf = (productId: string, quantity: number): string =>
  rowKey(family, { productId, quantity, outCell: '', occurrence: 1 });
const row = (n: number, productId: string, quantity: number): PlanRow => ({
  row: n,
  productId,
  quantity,
  key: keyOf(productId, quantity),
  legacyKey: `plan-${'0'.repeat(24)}-r${n}`,
});
const note = (key: string, o: Partial<Intent> = {}): Intent =>
  ({ key, phase: 'prepared', owner: dead(), planDir: '/plans', ...o }) as Intent;

describe('replacedUnsent: the never-sent notes of rows the plan no longer has', () => {
  const rows = [row(2, 'amazon-us-100', 5), row(3, 'steam-us-50', 4)];

  it('a row edited (3 → 4) or removed, never sent: dropped; one the plan still has is sent under its key instead', () => {
    const edited = note(keyOf('steam-us-50', 3));
    const removed = note(keyOf('apple-us-25', 1));
    const kept = note(keyOf('steam-us-50', 4));
    expect(replacedUnsent(rows, [edited, removed, kept], family, '/plans')).toEqual([edited, removed]);
  });

  it('one whose request may have gone out (sending, accepted, or a key sent before an abandon): not dropped', () => {
    const gone = keyOf('steam-us-50', 3);
    expect(
      replacedUnsent(
        rows,
        [
          note(gone, { phase: 'sending' }),
          note(gone, { phase: 'accepted', orderId: 'ord_1' }),
          note(gone, { keySince: '2026-12-01T00:00:00.000Z' }),
        ],
        family,
        '/plans',
      ),
    ).toEqual([]);
  });

  it("a live run's (about to send), another machine's, another directory's plan of this name, another plan's: not dropped", () => {
    const gone = keyOf('steam-us-50', 3);
    const other = planFamily(scope, '/plans/weekly.csv', undefined);
    expect(
      replacedUnsent(
        rows,
        [
          note(gone, { owner: { ...currentOwner(), pid: process.ppid, start: undefined } }),
          note(gone, { owner: { ...dead(), machine: 'another-host' } }),
          note(gone, { planDir: '/elsewhere' }),
          note(rowKey(other, { productId: 'steam-us-50', quantity: 3, outCell: '', occurrence: 1 })),
          note('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d'),
        ],
        family,
        '/plans',
      ),
    ).toEqual([]);
    // A note from before the plan's directory was kept is this plan's.
    const older = note(gone, { planDir: undefined });
    expect(replacedUnsent(rows, [older], family, '/plans')).toEqual([older]);
  });
});

describe('Journal.settleWhere with a reason: the dropped note ends abandoned, its record saying why', () => {
  it('the record keeps the reason; the note is gone from the journal', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: keyOf('steam-us-50', 3) });
    j.save({ ...intent, owner: dead() });
    const reason = new UsageError('never sent (nothing was charged): the plan restock.csv no longer has this row', {
      code: 'replaced_by_plan',
    });
    const dropped = await j.settleWhere((i) => (i.key === intent.key ? 'abandoned' : undefined), Date.now(), {
      error: reason,
    });
    expect(dropped.map((i) => i.key)).toEqual([intent.key]);
    expect(j.find(intent.key)).toBeUndefined();
    const record = j.history.get(intent.key, scopeOf(spec));
    expect(record).toMatchObject({ outcome: 'abandoned', error: { code: 'replaced_by_plan' } });
    expect(record?.sent).toBeUndefined();
  });
});
