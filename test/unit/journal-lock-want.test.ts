// The journal lock's dealings with other processes, shown in this process, where a mutation run sees them: the
// waiter file (.lock.want) a waiter writes and takes back, a holder that lets go for another process's waiter
// and waits its turn after it, a dead or unreadable waiter's file, the exit hook that lets go of a kept lock,
// and the one sweep per directory. The two-process tests (journal-lock-handoff.test.ts) run the built dist/,
// which a mutant never reaches. "Another process" is this one's parent: alive for the whole test, and not us.
import * as fs from 'node:fs';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { letGoOfKept, withDirLock } from '../../src/journal/lock.js';
import { deadPid, journalDir } from '../helpers/e2e.js';

vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return { ...actual, writeFileSync: vi.fn(actual.writeFileSync) };
});

const other = { pid: process.ppid };
const wantOf = (dir: string): string => join(dir, '.lock.want');
const held = (dir: string): boolean => existsSync(join(dir, '.lock', 'owner'));
const wanter = (dir: string): number | undefined =>
  existsSync(wantOf(dir)) ? (JSON.parse(readFileSync(wantOf(dir), 'utf8')) as { pid?: number }).pid : undefined;

/** A lock held by another live process. */
function heldByOther(dir: string): void {
  mkdirSync(join(dir, '.lock'));
  writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify(other));
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

// First in this file: no lock of this process has been kept before it.
describe('the exit hook', () => {
  it('the first kept lock registers one exit listener for the whole process, and it lets go of every kept lock', async () => {
    const exitHooks = (): number => process.listeners('exit').filter((listener) => listener === letGoOfKept).length;
    expect(exitHooks()).toBe(0);
    const one = journalDir();
    const two = journalDir();
    await withDirLock(one, () => undefined, undefined, { linger: true });
    await withDirLock(one, () => undefined, undefined, { linger: true });
    await withDirLock(two, () => undefined, undefined, { linger: true });
    expect(exitHooks()).toBe(1);
    expect(held(one) && held(two)).toBe(true);
    letGoOfKept();
    expect(existsSync(join(one, '.lock'))).toBe(false);
    expect(existsSync(join(two, '.lock'))).toBe(false);
  });
});

describe("a waiter's .lock.want", () => {
  // A holder that read it between its create and its write found it empty, took it for nobody's and kept the lock
  // another turn (journal-lock-handoff.test.ts failed so under the whole suite's load).
  it('appears whole: written under a name of its own, then renamed into place', async () => {
    const dir = journalDir();
    heldByOther(dir);
    vi.mocked(fs.writeFileSync).mockClear();
    const turn = withDirLock(dir, () => undefined, 30_000);
    await until(() => wanter(dir) === process.pid);
    const wrote = vi
      .mocked(fs.writeFileSync)
      .mock.calls.map(([path]) => String(path))
      .filter((path) => path.startsWith(join(dir, '.lock.want')));
    expect(wrote.length).toBeGreaterThan(0);
    expect(wrote.every((path) => new RegExp(`/\\.lock\\.want-${process.pid}-[0-9a-z]+$`).test(path))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.startsWith('.lock.want-'))).toEqual([]);
    rmSync(join(dir, '.lock'), { recursive: true });
    await turn;
  });

  it('names this process (0600) while it waits for a live holder, and is gone once it holds the lock', async () => {
    const dir = journalDir();
    heldByOther(dir);
    let inside: number | undefined = -1;
    const turn = withDirLock(dir, () => void (inside = wanter(dir)), 30_000);
    await until(() => wanter(dir) === process.pid);
    expect(statSync(wantOf(dir)).mode & 0o777).toBe(0o600);
    rmSync(join(dir, '.lock'), { recursive: true });
    await turn;
    expect(inside).toBeUndefined();
    expect(existsSync(wantOf(dir))).toBe(false);
  });

  it("is left as it is when another waiter's replaced it by the time this one gets the lock", async () => {
    const dir = journalDir();
    heldByOther(dir);
    const turn = withDirLock(dir, () => undefined, 30_000);
    await until(() => wanter(dir) === process.pid);
    // Another process now waits too, and the holder lets go: this one gets the lock, the other's WANT stays.
    writeFileSync(wantOf(dir), JSON.stringify(other));
    rmSync(join(dir, '.lock'), { recursive: true });
    await turn;
    expect(wanter(dir)).toBe(other.pid);
  });

  it('once gone by the time this one gets the lock (another waiter took it back), is not missed', async () => {
    const dir = journalDir();
    heldByOther(dir);
    const turn = withDirLock(dir, () => 'ran', 30_000);
    await until(() => wanter(dir) === process.pid);
    unlinkSync(wantOf(dir));
    rmSync(join(dir, '.lock'), { recursive: true });
    await expect(turn).resolves.toBe('ran');
    expect(existsSync(wantOf(dir))).toBe(false);
  });

  it('is taken back by a waiter that gives up', async () => {
    const dir = journalDir();
    heldByOther(dir);
    await expect(withDirLock(dir, () => undefined, 50)).rejects.toMatchObject({ code: 'journal_locked' });
    expect(existsSync(wantOf(dir))).toBe(false);
    expect(held(dir)).toBe(true);
  });
});

describe('a holder with turns of its own queued, and another process waiting', () => {
  it('lets go for the other process, and its next turn waits until that waiter has had the lock', async () => {
    const dir = journalDir();
    let second = false;
    const first = withDirLock(dir, () => writeFileSync(wantOf(dir), JSON.stringify(other)));
    const next = withDirLock(dir, () => void (second = true));
    await first;
    await until(() => !existsSync(join(dir, '.lock')));
    // The other process has not taken it yet (its WANT is there): this process waits, and says nothing over it.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(second).toBe(false);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    expect(wanter(dir)).toBe(other.pid);
    unlinkSync(wantOf(dir));
    await next;
    expect(second).toBe(true);
  });
});

describe('a turn with none of its own queued, and another process waiting', () => {
  it("releases the lock, and this process's later turns take it at once: they do not wait for that waiter", async () => {
    const dir = journalDir();
    writeFileSync(wantOf(dir), JSON.stringify(other));
    for (let turn = 0; turn < 3; turn++) {
      await expect(withDirLock(dir, () => held(dir), 200)).resolves.toBe(true);
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    }
    expect(wanter(dir)).toBe(other.pid);
  });
});

describe("a lingering lock and another process's .lock.want", () => {
  it('stays kept for a dead waiter, whose WANT goes, and for a WANT that names no process, which stays', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const dir = journalDir();
      await withDirLock(dir, () => undefined, undefined, { linger: true });
      writeFileSync(wantOf(dir), JSON.stringify({ pid: deadPid() }));
      await vi.advanceTimersByTimeAsync(15);
      expect(held(dir)).toBe(true);
      expect(existsSync(wantOf(dir))).toBe(false);
      for (const text of ['{"note":"no pid"}', 'not json']) {
        writeFileSync(wantOf(dir), text);
        await vi.advanceTimersByTimeAsync(15);
        expect(held(dir), text).toBe(true);
        expect(readFileSync(wantOf(dir), 'utf8')).toBe(text);
      }
      await vi.advanceTimersByTimeAsync(100);
      expect(existsSync(join(dir, '.lock'))).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it("is never let go of by the linger's look while a later turn of this process holds it", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'Date'] });
    try {
      const dir = journalDir();
      await withDirLock(dir, () => undefined, undefined, { linger: true });
      let inside = false;
      await withDirLock(dir, async () => {
        await vi.advanceTimersByTimeAsync(150);
        inside = held(dir);
      });
      expect(inside).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a dead holder', () => {
  it('its lock is taken over, and during the turn the lock names this process, not the dead one', async () => {
    const dir = journalDir();
    mkdirSync(join(dir, '.lock'));
    writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify({ pid: deadPid() }));
    const owner = await withDirLock(
      dir,
      () => (JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8')) as { pid: number }).pid,
      1,
    );
    expect(owner).toBe(process.pid);
  });
});

describe("another machine's lock (its pid means nothing here)", () => {
  it('is waited for while young, never taken over by its pid', async () => {
    const dir = journalDir();
    mkdirSync(join(dir, '.lock'));
    writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify({ pid: deadPid(), machine: 'another-machine' }));
    await expect(withDirLock(dir, () => undefined, 50)).rejects.toMatchObject({ code: 'journal_locked' });
    expect(held(dir)).toBe(true);
  });
});

describe('a lock whose owner file names no process (damaged)', () => {
  it('is waited for while young and taken over once older than 5 s, as a lock without an owner is', async () => {
    for (const text of ['{}', 'null', '{"pid":"12"}', '[]']) {
      const dir = journalDir();
      mkdirSync(join(dir, '.lock'));
      writeFileSync(join(dir, '.lock', 'owner'), text);
      await expect(
        withDirLock(dir, () => undefined, 50),
        text,
      ).rejects.toMatchObject({ code: 'journal_locked' });
      const old = new Date(Date.now() - 6_000);
      utimesSync(join(dir, '.lock'), old, old);
      await expect(
        withDirLock(dir, () => 'ran', 50),
        text,
      ).resolves.toBe('ran');
    }
  });
});

describe('the sweep of temporary lock dirs', () => {
  it('runs at the first turn in a directory only, and takes only names that begin as its own', async () => {
    const dir = journalDir();
    const dead = deadPid();
    mkdirSync(join(dir, `.lock.new-${dead}-a`));
    mkdirSync(join(dir, `keep.lock.new-${dead}-c`));
    await withDirLock(dir, () => undefined);
    expect(existsSync(join(dir, `.lock.new-${dead}-a`))).toBe(false);
    expect(existsSync(join(dir, `keep.lock.new-${dead}-c`))).toBe(true);
    // A dead waiter's file, made and never renamed into place, goes too; a live process's stays.
    writeFileSync(join(dir, `.lock.want-${dead}-w`), '{}');
    writeFileSync(join(dir, `.lock.want-${process.ppid}-w`), '{}');
    const again = journalDir();
    writeFileSync(join(again, `.lock.want-${dead}-w`), '{}');
    writeFileSync(join(again, `.lock.want-${process.ppid}-w`), '{}');
    await withDirLock(again, () => undefined);
    expect(existsSync(join(again, `.lock.want-${dead}-w`))).toBe(false);
    expect(existsSync(join(again, `.lock.want-${process.ppid}-w`))).toBe(true);
    // Left by a process killed after this one's first turn: the next process's first turn sweeps it.
    mkdirSync(join(dir, `.lock.dead-${dead}-b`));
    await withDirLock(dir, () => undefined);
    expect(existsSync(join(dir, `.lock.dead-${dead}-b`))).toBe(true);
  });
});
