// A status read of an order that ended (order show, watch, codes get, order list --refresh) is written under the
// journal's lock, as every record: its line file is shared with other orders, which another machine may be
// appending to (over NFS, O_APPEND is not atomic between machines), and prune rewrites the files under the lock.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { currentOwner } from '../../src/journal/owner.js';
import { noteStatus, type OrderRef } from '../../src/orders/ref.js';
import { tempDir } from '../helpers/e2e.js';
import { recordAt } from '../helpers/journal.js';

const SCOPE = { baseUrl: 'http://127.0.0.1:1', environment: 'test' as const, keyId: 'k1' };

/** A journal whose lock another running process holds (this one's parent, in this boot), and an order it recorded. */
function locked() {
  const journal = new Journal(join(tempDir(), 'journal'));
  const record = recordAt('k', '2026-01-01T00:00:00.000Z', { orderId: 'ord_k', status: 'processing' });
  journal.history.record(record);
  const lock = join(journal.dir, '.lock');
  mkdirSync(lock, { recursive: true });
  writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: process.ppid, boot: currentOwner().boot }));
  return { journal, record, release: () => rmSync(lock, { recursive: true }) };
}

describe('a status noted of an ended order', () => {
  it('is written only once the lock is free, and then read back', async () => {
    const { journal, record, release } = locked();
    const noted = journal.recordStatuses([{ ...record, status: 'completed' }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(journal.history.get('k', SCOPE)?.status).toBe('processing');
    release();
    await noted;
    expect(journal.history.get('k', SCOPE)?.status).toBe('completed');
  });

  it('by a read command waits for the lock briefly, then leaves the note without failing the command', async () => {
    const { journal, record, release } = locked();
    const started = Date.now();
    await noteStatus(journal, { record } as OrderRef, 'completed', Date.now());
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(1_500);
    expect(waited).toBeLessThan(10_000);
    expect(journal.history.get('k', SCOPE)?.status).toBe('processing');
    release();
  }, 20_000);
});

describe('no status to note', () => {
  it('takes no turn of the lock: a read command with nothing to write never waits for it', async () => {
    const { journal, release } = locked();
    // A turn of the lock another process holds would end in journal_locked after a wait of 1 ms: none is taken. (Said
    // by that refusal, not by the time the call took, which a loaded machine can stretch past any bound.)
    await expect(journal.recordStatuses([], 1)).resolves.toBeUndefined();
    expect(existsSync(join(journal.dir, '.lock.want'))).toBe(false);
    release();
  });
});

describe("a key's record of the order it placed", () => {
  // A key the user reuses for another order, refused (422) or abandoned before anything was sent, ends without an
  // order id. Its line would be the key's last, and stand for the order that key placed: the plan's re-run check
  // and the journal's key check would no longer see it was delivered.
  it('is not replaced by the record of a later use of the key that placed nothing', async () => {
    const journal = new Journal(join(tempDir(), 'journal'));
    mkdirSync(journal.dir, { recursive: true });
    const spec = { profile: 'default', environment: 'test' as const, baseUrl: 'http://127.0.0.1:1', keyId: 'k1' };
    journal.history.record(
      recordAt('K', new Date().toISOString(), { ...spec, productId: 'p1', quantity: 2, orderId: 'ord_placed' }),
    );
    const { intent } = await journal.begin({ ...spec, key: 'K', productId: 'p1', quantity: 9 });
    await journal.end([intent], 'refused');
    expect(journal.history.get('K', SCOPE)?.orderId).toBe('ord_placed');
    // One that did place an order is its record.
    const { intent: placed } = await journal.begin({ ...spec, key: 'L', productId: 'p1', quantity: 1 });
    journal.history.record(recordAt('L', new Date().toISOString(), { ...spec, orderId: 'ord_old' }));
    await journal.end([{ ...placed, orderId: 'ord_new' }], 'abandoned');
    expect(journal.history.get('L', SCOPE)?.orderId).toBe('ord_new');
  });

  it('abandoned (an order may have been placed) is not replaced by a later refusal that placed nothing', async () => {
    // A review: abandon after a kill, an outage (connection refused: refused, nothing sent), then the plan again:
    // the refusal had replaced the abandoned record, and the replay of this directory's own order was refused as
    // placed elsewhere.
    const journal = new Journal(join(tempDir(), 'journal'));
    mkdirSync(journal.dir, { recursive: true });
    const spec = { profile: 'default', environment: 'test' as const, baseUrl: 'http://127.0.0.1:1', keyId: 'k1' };
    const { intent } = await journal.begin({ ...spec, key: 'M', productId: 'p1', quantity: 2 });
    await journal.end([intent], 'abandoned');
    const { intent: again } = await journal.begin({ ...spec, key: 'M', productId: 'p1', quantity: 2 });
    await journal.end([again], 'refused');
    expect(journal.history.get('M', SCOPE)?.outcome).toBe('abandoned');
    // A refusal with nothing before it is the record.
    const { intent: fresh } = await journal.begin({ ...spec, key: 'N', productId: 'p1', quantity: 2 });
    await journal.end([fresh], 'refused');
    expect(journal.history.get('N', SCOPE)?.outcome).toBe('refused');
  });
});
