// The journal's lock passes from one turn of a process to its next without being released while turns are
// queued (a plan's rows): taking and releasing it is six metadata calls, one rmdir of which took 5 ms on a
// shared disk (issue 33). Another process still gets its turn: its waiter says so (.lock.want), and the
// holder then lets go and waits until that waiter has had the lock.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const made: string[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const mkdirSync = ((path: unknown, ...rest: unknown[]) => {
    if (typeof path === 'string') made.push(path);
    return (fs.mkdirSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.mkdirSync;
  return { ...fs, default: { ...fs, mkdirSync }, mkdirSync };
});

const { withDirLock } = await import('../../src/journal/lock.js');
const { BIN, ROOT, journalDir } = await import('../helpers/e2e.js');

/** How many times this process made the lock (each a fresh take of it: mkdir of a `.lock.new-…` dir). */
const takes = (dir: string): number => made.filter((path) => path.startsWith(join(dir, '.lock.new-'))).length;
const noBuild = existsSync(join(ROOT, 'dist', 'start.js')) ? undefined : 'no dist/: run npm run build';

describe("the journal lock between one process's turns", () => {
  it('is handed from turn to turn while turns are queued, and released after the last', async () => {
    const dir = journalDir();
    made.length = 0;
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 50 }, () =>
        withDirLock(dir, async () => {
          most = Math.max(most, ++inside);
          expect(existsSync(join(dir, '.lock', 'owner'))).toBe(true);
          await new Promise((resolve) => setImmediate(resolve));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    // Taken once (or again after HAND_OFF_MS on a slow machine), not 50 times.
    expect(takes(dir)).toBeGreaterThanOrEqual(1);
    expect(takes(dir)).toBeLessThan(10);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('is handed on for HAND_OFF_MS (250 ms) at most: a turn after that takes it afresh', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const dir = journalDir();
      made.length = 0;
      const first = withDirLock(dir, () => void vi.advanceTimersByTime(300));
      const second = withDirLock(dir, () => undefined);
      await Promise.all([first, second]);
      expect(takes(dir)).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("is kept a moment after a journal's turn: turns a few milliseconds apart take it once, and it goes after", async () => {
    // On a clock of the test's own (setTimeout and Date): the turns are a millisecond apart however slowly a loaded
    // machine runs them. In real time the lock is let go LINGER_MS (100 ms) after the series' first lingering turn and
    // taken anew, so 20 turns of 45 ms or more took it 10 times (a 60 ms pause per turn fails "fewer than 10"), and
    // under `nice -n 19` beside two busy loops a turn that ended HAND_OFF_MS (250 ms) after its take released it,
    // failing "kept after the turn".
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const dir = journalDir();
      made.length = 0;
      for (let turn = 0; turn < 20; turn++) {
        await withDirLock(dir, () => undefined, undefined, { linger: true });
        expect(existsSync(join(dir, '.lock', 'owner'))).toBe(true);
        await vi.advanceTimersByTimeAsync(1);
      }
      // Taken once.
      expect(takes(dir)).toBe(1);
      // Let go of soon after the last turn, with no other turn to hand it to.
      for (let waited = 0; existsSync(join(dir, '.lock')) && waited < 5_000; waited += 5)
        await vi.advanceTimersByTimeAsync(5);
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("kept after a journal's turn, it goes within 100 ms, and within a look (10 ms) once another process says it waits", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const alone = journalDir();
      await withDirLock(alone, () => undefined, undefined, { linger: true });
      await vi.advanceTimersByTimeAsync(60);
      expect(existsSync(join(alone, '.lock', 'owner'))).toBe(true);
      await vi.advanceTimersByTimeAsync(60);
      expect(existsSync(join(alone, '.lock'))).toBe(false);

      const wanted = journalDir();
      await withDirLock(wanted, () => undefined, undefined, { linger: true });
      // Another live process (this one's parent) waits for it.
      writeFileSync(join(wanted, '.lock.want'), JSON.stringify({ pid: process.ppid }));
      await vi.advanceTimersByTimeAsync(15);
      expect(existsSync(join(wanted, '.lock'))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it.skipIf(noBuild)('a process that exits while it keeps the lock lets go of it', () => {
    const dir = journalDir();
    // order abandon takes the journal's lock for its turn (refused: no such order), and exits right after it.
    const run = spawnSync(process.execPath, [BIN, 'order', 'abandon', 'no-such-key'], {
      env: { ...process.env, GIFTCODES_CONFIG_DIR: dirname(dir) },
      encoding: 'utf8',
    });
    expect(run.stderr).toContain('no unresolved order with the key no-such-key');
    expect(run.status).toBe(2);
    expect(existsSync(dir)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(noBuild)(
    'another process waiting for it gets its turn while this one still has turns queued, and leaves no .lock.want',
    async () => {
      const dir = journalDir();
      made.length = 0;
      let turns = 0;
      /** Turns of this process begun while the other process's waiter said it waits. */
      let turnsWhileWanted = 0;
      const child: { exit?: number | null; stderr: string } = { stderr: '' };
      const proc = spawn(process.execPath, [BIN, 'order', 'abandon', 'no-such-key'], {
        env: { ...process.env, GIFTCODES_CONFIG_DIR: dirname(dir) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      proc.stderr.on('data', (chunk: Buffer) => (child.stderr += chunk.toString()));
      const exited = new Promise<void>((resolve) =>
        proc.on('close', (code) => {
          child.exit = code;
          resolve();
        }),
      );
      const deadline = Date.now() + 60_000;
      // One turn after another, each queued before the last ends (as a plan's rows are), until the other
      // process has had its turn and exited (or a safety net of a minute).
      const turn = async (): Promise<void> => {
        turns++;
        if (existsSync(join(dir, '.lock.want'))) turnsWhileWanted++;
        const next = child.exit === undefined && Date.now() < deadline ? withDirLock(dir, turn) : undefined;
        await new Promise((resolve) => setTimeout(resolve, 1));
        void next;
      };
      await withDirLock(dir, turn);
      await exited;
      // The queue drains: the last turn queued no other.
      await withDirLock(dir, () => undefined);
      expect(child.stderr).toContain('no unresolved order with the key no-such-key');
      expect(child.exit).toBe(2);
      expect(Date.now()).toBeLessThan(deadline);
      // Once the other process said it waits, this one let go within a turn or two and waited for it.
      expect(turnsWhileWanted).toBeLessThanOrEqual(2);
      // And until then the lock went from turn to turn: taken far fewer times than there were turns.
      expect(turns).toBeGreaterThan(10);
      expect(takes(dir)).toBeLessThan(turns / 2);
      expect(existsSync(join(dir, '.lock.want'))).toBe(false);
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    },
    90_000,
  );
});
