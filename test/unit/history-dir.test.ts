// The record's directory is made once per process (issue 33: a 1,000-row plan asked for it twice a row), and
// made again when it has gone since.
import * as fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { History, type OrderRecord, type Scope } from '../../src/journal/history.js';
import { recordAt } from '../helpers/journal.js';

vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return { ...actual, mkdirSync: vi.fn(actual.mkdirSync) };
});

const rec = (key: string): OrderRecord => recordAt(key, '2026-01-01T00:00:00.000Z');

/** Records written without a key id match any key id on their server and environment. */
const SCOPE: Scope = { baseUrl: 'http://127.0.0.1:1', environment: 'test', keyId: 'k1' };
const mkdirsOf = (dir: string): number => vi.mocked(fs.mkdirSync).mock.calls.filter(([path]) => path === dir).length;

describe("the record's directory", () => {
  it('is made once for many records, written one by one or in a batch', async () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    for (let i = 0; i < 5; i++) h.record(rec(`k${i}`));
    await Promise.all(Array.from({ length: 5 }, (_, i) => h.recordAll([rec(`b${i}`)])));
    await h.recordAll(Array.from({ length: 5 }, (_, i) => rec(`c${i}`)));
    expect(h.list()).toHaveLength(15);
    expect(mkdirsOf(h.dir)).toBe(1);
  });

  it('is made again when it was removed meanwhile, and the record is written', async () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record(rec('first'));
    rmSync(h.dir, { recursive: true });
    h.record(rec('second'));
    expect(h.get('second', SCOPE)?.key).toBe('second');
    rmSync(h.dir, { recursive: true });
    await h.recordAll([rec('third')]);
    expect(h.get('third', SCOPE)?.key).toBe('third');
    expect(mkdirsOf(h.dir)).toBe(3);
  });
});
