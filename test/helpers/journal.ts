// The fixtures the journal's unit tests share: one order's spec, an owner that is dead, an --out, and a journal
// in a fresh directory of its own.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrderRecord } from '../../src/journal/history.js';
import type { Intent, OrderSpec, OutSpec } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { logOf, type LogSync } from '../../src/journal/log.js';
import { currentOwner } from '../../src/journal/owner.js';
import { deadPid, tempDir } from './e2e.js';

export const spec: OrderSpec = {
  profile: 'default',
  environment: 'test',
  baseUrl: 'http://127.0.0.1:4010',
  keyId: 'k1',
  productId: 'amazon-us-25',
  quantity: 3,
};

/** A smaller order, for tests where only its shape matters: a key id, product and server of one letter. */
export const smallSpec: OrderSpec = {
  profile: 'default',
  environment: 'test',
  baseUrl: 'http://x',
  keyId: 'k',
  productId: 'p',
  quantity: 1,
};

/** An order on a server no test listens on (port 1), for tests that only read the journal. */
export const localOrder: OrderSpec = { ...smallSpec, baseUrl: 'http://127.0.0.1:1', productId: 'amazon-us-10' };

/** The owner of a run that was killed: a pid no process has, in this boot. */
export const dead = (): Intent['owner'] => ({ pid: deadPid(), boot: currentOwner().boot });

export const outTo = (path: string): OutSpec => ({ path, force: false, csvRaw: false, format: 'json' });

export function journal(): Journal {
  const dir = join(tempDir(), 'journal');
  mkdirSync(dir, { recursive: true });
  return new Journal(dir);
}

/** This process's log of `dir`, its fsync failing (EIO) from when `failing.now` is set. */
export function failingLog(dir: string): { file: () => string; failing: { now: boolean } } {
  const log = logOf(dir) as unknown as { sync: LogSync; file: string };
  const failing = { now: false };
  const real = log.sync;
  const eio = (): Error => Object.assign(new Error('EIO'), { code: 'EIO' });
  log.sync = {
    ...real,
    datasync: (fd) => (failing.now ? Promise.reject(eio()) : real.datasync(fd)),
    datasyncSync: (fd) => {
      if (failing.now) throw eio();
      real.datasyncSync(fd);
    },
  };
  return { file: () => log.file, failing };
}

/**
 * The records a history directory holds, read from the disk itself rather than through History, as giftcodes
 * reads them: one per key in its scope (server, environment, API key id), the last line of it in its line file
 * (history/<xx>.jsonl) over an older version's file (history/<40 hex>.json); a line that is not JSON (cut short by
 * a crash) is skipped. Empty when there is no directory.
 */
export function storedRecords(historyDir: string): Record<string, unknown>[] {
  if (!existsSync(historyDir)) return [];
  const byIdentity = new Map<string, Record<string, unknown>>();
  const add = (text: string): void => {
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    byIdentity.set(JSON.stringify([record.key, record.baseUrl, record.environment, record.keyId ?? null]), record);
  };
  const names = readdirSync(historyDir).sort();
  for (const name of names) if (name.endsWith('.json')) add(readFileSync(join(historyDir, name), 'utf8'));
  for (const name of names)
    if (name.endsWith('.jsonl'))
      for (const line of readFileSync(join(historyDir, name), 'utf8').split('\n')) if (line) add(line);
  return [...byIdentity.values()];
}

/** An order record that ended at `at` (created and updated then too): 2 × p1, delivered, under test, with `extra` over it. */
export function recordAt(key: string, at: string, extra: Partial<OrderRecord> = {}): OrderRecord {
  return {
    key,
    productId: 'p1',
    quantity: 2,
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
