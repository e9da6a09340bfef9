// A status read of an order that ended (order show, watch, codes get, order list --refresh) is written under the
// journal's lock, as every record: its line file is shared with other orders, which another machine may be
// appending to (over NFS, O_APPEND is not atomic between machines), and prune rewrites the files under the lock.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
