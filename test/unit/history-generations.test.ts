// A plan row's later keys (-g2…) kept in its row key's record file and read back in one read (History.generations,
// orders/plan.ts sentAgainKey), and a key's records in every scope (History.everyScope, Journal.begin's refusal of a
// given key used at another address spelling). Mutants of both survived the tests that reach them through the plan.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { History, type OrderRecord, type Scope } from '../../src/journal/history.js';
import { tempDir } from '../helpers/e2e.js';

const scope: Scope = { baseUrl: 'http://127.0.0.1:4010', environment: 'test', keyId: 'k1' };
const ROW = `plan-${'a'.repeat(24)}`;

function history(): History {
  const dir = join(tempDir(), 'history');
  mkdirSync(dir, { recursive: true });
  return new History(dir);
}

const at = '2026-11-30T12:00:00.000Z';
const record = (key: string, o: Partial<OrderRecord> = {}): OrderRecord => ({
  key,
  keyId: scope.keyId,
  orderId: `ord_${key.slice(-3)}`,
  productId: 'amazon-us-10',
  quantity: 1,
  environment: scope.environment,
  profile: 'default',
  baseUrl: scope.baseUrl,
  createdAt: at,
  updatedAt: at,
  endedAt: at,
  outcome: 'delivered',
  ...o,
});

describe('History.generations: a plan row key and its later keys, from one file', () => {
  it("keeps a row's later keys in its row key's file, and gives back the last record of each in this scope", () => {
    const h = history();
    h.record(record(ROW, { outcome: 'refused', orderId: undefined }));
    h.record(record(`${ROW}-g2`, { outcome: 'failed' }));
    h.record(record(`${ROW}-g2`, { outcome: 'failed', status: 'failed' }));
    h.record(record(`${ROW}-g3`));
    // One file holds the three keys' records.
    const files = readdirSync(h.dir).filter((name) => name.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(h.dir, files[0]!), 'utf8').trim().split('\n')).toHaveLength(4);
    const found = h.generations(ROW, scope);
    expect([...found.keys()].sort()).toEqual([ROW, `${ROW}-g2`, `${ROW}-g3`]);
    expect(found.get(`${ROW}-g2`)?.status).toBe('failed');
  });

  it('leaves out other keys of the file, other scopes, and keys that only begin as the row key does', () => {
    const h = history();
    h.record(record(`${ROW}-g2`));
    h.record(record(`${ROW}-g2x`));
    h.record(record(`${ROW}-r4-g2`));
    h.record(record(`${ROW}-g3`, { environment: 'live' }));
    h.record(record(`${ROW}-g4`, { keyId: 'k2' }));
    expect([...h.generations(ROW, scope).keys()]).toEqual([`${ROW}-g2`]);
    // A legacy row key (its line number) has its later keys in its own file, read the same way.
    h.record(record(`${ROW}-r4`, { outcome: 'refused', orderId: undefined }));
    expect([...h.generations(`${ROW}-r4`, scope).keys()].sort()).toEqual([`${ROW}-r4`, `${ROW}-r4-g2`]);
    // Nothing recorded: nothing.
    expect(h.generations(`plan-${'b'.repeat(24)}`, scope).size).toBe(0);
  });

  it("a record of the scope's key id wins over an older version's without one, whichever comes last", () => {
    const h = history();
    h.record(record(`${ROW}-g2`, { outcome: 'refused', orderId: undefined }));
    h.record(record(`${ROW}-g2`, { keyId: undefined, outcome: 'delivered' }));
    expect(h.generations(ROW, scope).get(`${ROW}-g2`)?.outcome).toBe('refused');
    const k = history();
    k.record(record(`${ROW}-g2`, { keyId: undefined, outcome: 'delivered' }));
    expect(k.generations(ROW, scope).get(`${ROW}-g2`)?.outcome).toBe('delivered');
    k.record(record(`${ROW}-g2`, { keyId: undefined, outcome: 'failed' }));
    expect(k.generations(ROW, scope).get(`${ROW}-g2`)?.outcome).toBe('failed');
  });
});

describe('History.everyScope: a key in every scope', () => {
  it('the last record of each scope of the key, and none of another key in its file', () => {
    const h = history();
    h.record(record('inv-1'));
    h.record(record('inv-1', { outcome: 'abandoned' }));
    h.record(record('inv-1', { baseUrl: 'http://localhost:4010' }));
    h.record(record('inv-1', { keyId: 'k2' }));
    h.record(record('inv-1', { environment: 'live' }));
    h.record(record('inv-10'));
    const found = h.everyScope('inv-1');
    expect(found.map((r) => [r.baseUrl, r.environment, r.keyId, r.outcome])).toEqual([
      [scope.baseUrl, 'test', 'k1', 'abandoned'],
      ['http://localhost:4010', 'test', 'k1', 'delivered'],
      [scope.baseUrl, 'test', 'k2', 'delivered'],
      [scope.baseUrl, 'live', 'k1', 'delivered'],
    ]);
    expect(h.everyScope('inv-2')).toEqual([]);
    // A record without a key id is a scope of its own.
    h.record(record('inv-1', { keyId: undefined }));
    expect(h.everyScope('inv-1')).toHaveLength(5);
  });
});
