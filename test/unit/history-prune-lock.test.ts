// Prune rewrites a line file whole, and is safe only while no other process appends to it: it relies on the
// journal's lock. A lock held by another machine (or a container sharing the config directory: another pid
// namespace) is taken over once it is 5 s old (lock.ts byAge), and the holder never renews it. A prune turn that
// lasts longer (up to 256 files rewritten, each fsynced with its directory, on a slow or network disk) lets the
// other machine in: its delivery record, appended between prune's read and its rename, is lost.
import * as fs from 'node:fs';
import { mkdirSync, utimesSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { tempDir } from '../helpers/e2e.js';
import { recordAt as rec } from '../helpers/journal.js';

/** Run once, at prune's rename of a line file: the other machine's turn, as it would come meanwhile. */
const atRename: { hook?: (() => void) | undefined } = {};
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    renameSync: vi.fn((from: fs.PathLike, to: fs.PathLike) => {
      if (String(to).endsWith('.jsonl') && atRename.hook) {
        const hook = atRename.hook;
        atRename.hook = undefined;
        hook();
      }
      return actual.renameSync(from, to);
    }),
  };
});

const bucket = (k: string): string => createHash('sha256').update(k).digest('hex').slice(0, 2);
const DAY = 86_400_000;

describe("prune and another machine's delivery record", () => {
  it("a delivery recorded by another machine (or container) while a prune's turn is older than 5 s is never lost", async () => {
    const config = tempDir();
    const dir = join(config, 'journal');
    mkdirSync(dir, { recursive: true });
    // The other machine: Journal.recordDelivery, as lifecycle.ts deliver calls it, in a process of its own.
    const child = join(config, 'other-machine.mjs');
    buildSync({
      stdin: {
        contents: `import { Journal } from ${JSON.stringify(resolve('src/journal/journal.ts'))};
          await new Journal(process.argv[2]).recordDelivery([JSON.parse(process.argv[3])]);`,
        resolveDir: resolve('.'),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: child,
      logLevel: 'silent',
    });
    const now = Date.now();
    const [old, recent, delivered] = Array.from({ length: 3000 }, (_, i) => `k${i}`).filter(
      (k) => bucket(k) === bucket('k0'),
    );
    const journal = new Journal(dir, { historyDays: 30 });
    journal.history.record(rec(old!, new Date(now - 40 * DAY).toISOString(), { orderId: 'ord_old' }));
    journal.history.record(rec(recent!, new Date(now - DAY).toISOString(), { orderId: 'ord_recent' }));
    const theirs = rec(delivered!, new Date(now).toISOString(), { orderId: 'ord_theirs', keyId: 'k1' });
    const seen: { status?: number | null; stderr?: string; written?: boolean } = {};
    atRename.hook = () => {
      // This prune's turn has lasted 6 s by now (the lock dir's age is all the other machine can judge it by).
      const lock = join(dir, '.lock');
      utimesSync(lock, (now - 6000) / 1000, (now - 6000) / 1000);
      const run = spawnSync(process.execPath, [child, dir, JSON.stringify(theirs)], {
        env: { ...process.env, GIFTCODES_MACHINE_ID: 'the-other-machine' },
        encoding: 'utf8',
        timeout: 60_000,
      });
      // Caught by prune (it swallows every failure of a file): kept for the assertions below.
      Object.assign(seen, {
        status: run.status,
        stderr: run.stderr,
        written: fs.readFileSync(join(config, 'history', `${bucket('k0')}.jsonl`), 'utf8').includes('ord_theirs'),
      });
    };
    // An end of this machine's (no intent needed): its first turn prunes, under the lock.
    await journal.end([], 'abandoned', { now });
    // The other machine took the lock (5 s old, its owner not checkable from there) and recorded its delivery.
    expect(seen.status, seen.stderr).toBe(0);
    expect(seen.written).toBe(true);
    expect(
      journal.history.get(delivered!, { baseUrl: 'http://127.0.0.1:1', environment: 'test', keyId: 'k1' })?.orderId,
    ).toBe('ord_theirs');
  });
});
