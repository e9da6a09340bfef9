// Second review of the line files (history/<xx>.jsonl): prune's own writes. Its once-a-day mark is a file in
// history/ like the line files, and is never written through a link planted at its name (the line files are
// opened O_NOFOLLOW for that reason); lines prune carries over into a line file it had removed make that file
// again, and its directory entry is made durable before a delivery record is trusted to it.
import * as fs from 'node:fs';
import { appendFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as atomic from '../../src/files/atomic.js';
import { History } from '../../src/journal/history.js';
import { tempDir } from '../helpers/e2e.js';
import { recordAt as rec } from '../helpers/journal.js';

/** Run once, just before prune unlinks a line file: another process's append, as it would come meanwhile. */
const atUnlink: { hook?: ((file: string) => void) | undefined } = {};
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    unlinkSync: vi.fn((path: fs.PathLike) => {
      if (String(path).endsWith('.jsonl') && atUnlink.hook) {
        const hook = atUnlink.hook;
        atUnlink.hook = undefined;
        hook(String(path));
      }
      return actual.unlinkSync(path);
    }),
  };
});
vi.mock('../../src/files/atomic.js', async (original) => {
  const actual = await original<typeof import('../../src/files/atomic.js')>();
  return {
    ...actual,
    fsyncDirectory: vi.fn(actual.fsyncDirectory),
    syncDirectory: vi.fn(actual.syncDirectory),
  };
});

const DAY = 86_400_000;
const NOW = Date.parse('2026-04-01T00:00:00.000Z');
const bucket = (k: string): string => createHash('sha256').update(k).digest('hex').slice(0, 2);
const dirSyncs = (dir: string): number =>
  [...vi.mocked(atomic.fsyncDirectory).mock.calls, ...vi.mocked(atomic.syncDirectory).mock.calls].filter(
    ([path]) => path === dir,
  ).length;

beforeEach(() => {
  atUnlink.hook = undefined;
  vi.mocked(atomic.fsyncDirectory).mockClear();
  vi.mocked(atomic.syncDirectory).mockClear();
});

describe("prune's once-a-day mark and a link planted at its name", () => {
  it('a codes file that history/.pruned links to keeps its codes (the mark is never written through a link)', () => {
    const config = tempDir();
    const dir = join(config, 'history');
    const codes = join(config, 'codes-ord_1.csv');
    writeFileSync(codes, 'code\nAAAA-BBBB-CCCC\n');
    const h = new History(dir);
    h.record(rec('seed', new Date(NOW).toISOString()));
    symlinkSync(codes, join(dir, '.pruned'));
    h.prune(90, NOW);
    expect(readFileSync(codes, 'utf8')).toBe('code\nAAAA-BBBB-CCCC\n');
  });
});

describe('lines prune carries over into a line file it had removed', () => {
  it('make the file again with its directory entry fsynced: a delivery record appended to it later is not lost with the entry', async () => {
    const dir = join(tempDir(), 'history');
    mkdirSync(dir, { recursive: true });
    const h = new History(dir);
    const [old, noted, delivered] = Array.from({ length: 3000 }, (_, i) => `k${i}`).filter(
      (k) => bucket(k) === bucket('k0'),
    );
    const file = join(dir, `${bucket('k0')}.jsonl`);
    h.record(rec(old!, new Date(NOW - 100 * DAY).toISOString()));
    // Every record of the file is old: prune removes it. Just before, `order show` (no lock) notes a status.
    atUnlink.hook = (path) =>
      appendFileSync(
        path,
        `${JSON.stringify(rec(noted!, new Date(NOW - DAY).toISOString(), { orderId: 'ord_n', status: 'completed' }))}\n`,
      );
    vi.mocked(atomic.fsyncDirectory).mockClear();
    h.prune(90, NOW);
    expect(existsSync(file)).toBe(true); // made again by the carried-over line
    // The next delivery record of that file, under the lock: appended and fdatasynced, the file's entry already there.
    await h.recordAll([rec(delivered!, new Date(NOW).toISOString(), { orderId: 'ord_d' })]);
    expect(
      new History(dir).get(delivered!, { baseUrl: 'http://127.0.0.1:1', environment: 'test', keyId: 'x' })?.orderId,
    ).toBe('ord_d');
    // The file was made after prune's unlink, and no fsync of history/ followed: a power cut loses it, and with it
    // the delivery record the journal has already ended on.
    expect(dirSyncs(dir)).toBeGreaterThan(0);
  });
});
