// A line file kept open whose fstat fails (ESTALE: on NFS, another machine's prune replaced the file) is let go
// and opened again, as one that has no name any more is; it never fails every later record of its file.
import * as fs from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { History, type OrderRecord } from '../../src/journal/history.js';

const stale = { fd: -1 };
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    fstatSync: vi.fn((fd: number, ...rest: unknown[]) => {
      if (fd === stale.fd) throw Object.assign(new Error('ESTALE: stale file handle'), { code: 'ESTALE' });
      return (actual.fstatSync as (fd: number, ...rest: unknown[]) => fs.Stats)(fd, ...rest);
    }),
  };
});

function rec(key: string, at: string, extra: Partial<OrderRecord> = {}): OrderRecord {
  return {
    key,
    productId: 'p1',
    quantity: 1,
    environment: 'test',
    profile: 'default',
    baseUrl: 'http://127.0.0.1:1',
    createdAt: at,
    updatedAt: at,
    endedAt: at,
    outcome: 'delivered',
    ...extra,
  };
}
const SCOPE = { baseUrl: 'http://127.0.0.1:1', environment: 'test' as const, keyId: 'k1' };

describe('a line file kept open whose fstat fails', () => {
  it('is let go and opened again: the next records of its file are written (sync and batched)', async () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    // The descriptor kept for a's line file: the last one fstat was asked about.
    stale.fd = vi.mocked(fs.fstatSync).mock.calls.at(-1)![0] as number;
    try {
      // A failure of this one record is acceptable; the file kept failing for the rest of the run is not.
      try {
        h.record(rec('a', '2026-01-02T00:00:00.000Z', { orderId: 'ord_1' }));
      } catch {
        // first use after the handle went stale
      }
      h.record(rec('a', '2026-01-03T00:00:00.000Z', { orderId: 'ord_2' }));
      await h.recordAll([rec('a', '2026-01-04T00:00:00.000Z', { orderId: 'ord_3' })]);
      expect(h.get('a', SCOPE)?.orderId).toBe('ord_3');
    } finally {
      stale.fd = -1;
    }
  });
});
