// An order placed here without --out is `delivered` (its id reached the user); the API may fail it afterwards. The
// status a later read gives it makes order list read its outcome as failed: `order list --status delivered` listed
// such an order, its CSV said `failed,delivered`, and at 80 columns (STATUS left out) its row read "order placed".
// The stored outcome stays delivered: a plan's re-run and the codes-file check read it (history.ts outcomeOf).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outcomeWords } from '../../src/commands/order/list.js';
import { outcomeOf, withStatus } from '../../src/journal/history.js';
import { Journal } from '../../src/journal/journal.js';
import { allRecords, filterRecords } from '../../src/orders/history-query.js';
import { noteStatus, type OrderRef } from '../../src/orders/ref.js';
import { tempDir } from '../helpers/e2e.js';
import { recordAt } from '../helpers/journal.js';

const AT = '2026-01-01T00:00:00.000Z';
const SCOPE = { baseUrl: 'http://127.0.0.1:1', environment: 'test' as const, keyId: 'k1' };

/** A journal's directory, as a command finds it, and the record of one order it placed. */
function journalWith(status: string): { journal: Journal; record: ReturnType<typeof recordAt> } {
  const journal = new Journal(join(tempDir(), 'journal'));
  mkdirSync(journal.dir, { recursive: true });
  const record = recordAt('k', AT, { orderId: 'ord_k', keyId: 'k1', status });
  journal.history.record(record);
  return { journal, record };
}

describe('outcomeOf', () => {
  it('a delivered order the API reports failed, in any of its words and cases, is failed', () => {
    for (const status of ['failed', 'FAILED', 'DECLINED', 'cancelled', 'refunded', 'expired'])
      expect(outcomeOf(recordAt('k', AT, { orderId: 'ord_k', status })), status).toBe('failed');
  });

  it('a delivered order still in progress or completed stays delivered, as does one without a status', () => {
    for (const status of ['pending', 'processing', 'completed', 'COMPLETE'])
      expect(outcomeOf(recordAt('k', AT, { orderId: 'ord_k', status })), status).toBe('delivered');
    expect(outcomeOf(recordAt('k', AT, { orderId: 'ord_k' }))).toBe('delivered');
  });

  it('an order whose codes reached the user (a codes file, or stdout) stays delivered, refunded or not', () => {
    for (const out of ['/srv/codes.csv', '-'])
      expect(outcomeOf(recordAt('k', AT, { orderId: 'ord_k', status: 'refunded', out }))).toBe('delivered');
  });

  it('the other outcomes are their own, whatever the status', () => {
    for (const outcome of ['failed', 'refused', 'abandoned', 'pending'] as const)
      expect(outcomeOf(recordAt('k', AT, { outcome, status: 'failed' }))).toBe(outcome);
    expect(outcomeOf(recordAt('k', AT, { outcome: 'abandoned', status: 'completed' }))).toBe('abandoned');
  });
});

describe('withStatus', () => {
  it('sets the status and when it was read; the stored outcome stays (a plan re-run reads it)', () => {
    const now = Date.parse('2026-01-02T03:04:05.000Z');
    const placed = recordAt('k', AT, { orderId: 'ord_k', status: 'pending' });
    expect(withStatus(placed, 'failed', now)).toEqual({
      ...placed,
      status: 'failed',
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(withStatus(placed, 'processing', now)).toEqual({
      ...placed,
      status: 'processing',
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
    // The time the order ended here is kept: it is when its run ended, not when the failure was read.
    expect(withStatus(placed, 'failed', now).endedAt).toBe(AT);
  });
});

describe('a failed status noted of a delivered order (order show, watch, codes get)', () => {
  it('is written, and order list reads, filters and words it as failed; the record itself stays delivered', async () => {
    const { journal, record } = journalWith('pending');
    await noteStatus(journal, { record } as OrderRef, 'failed', Date.now());
    expect(journal.history.get('k', SCOPE)).toMatchObject({ status: 'failed', outcome: 'delivered' });
    const records = allRecords(journal.history, []);
    expect(filterRecords(records, { status: 'delivered' })).toEqual([]);
    expect(filterRecords(records, { status: 'failed' }).map((r) => r.orderId)).toEqual(['ord_k']);
    expect(outcomeWords(records[0]!)).toBe('order failed');
  });

  it('a record noted failed before is read as failed too', () => {
    const { journal } = journalWith('failed');
    const [read] = allRecords(journal.history, []);
    expect(read).toMatchObject({ status: 'failed', outcome: 'failed' });
  });

  it('a status that moves nothing is not written again', async () => {
    const { journal, record } = journalWith('completed');
    await noteStatus(journal, { record } as OrderRef, 'completed', Date.now());
    expect(journal.history.get('k', SCOPE)?.updatedAt).toBe(AT);
  });
});
