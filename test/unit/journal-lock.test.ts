// The journal lock goes by its holder's liveness, never a timer: a dead holder's lock is taken at once,
// a live (or stopped) holder keeps it as long as it runs. The lock is made whole under a temporary name
// and renamed into place; a maker or holder removes only what is its own (issue 21).
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { nextPoll, withDirLock } from '../../src/journal/lock.js';
import { currentOwner } from '../../src/journal/owner.js';
import { BIN, deadPid, ROOT, tempDir } from '../helpers/e2e.js';
import { gate, type Gate } from '../helpers/gate.js';
import { mountSupport, readOnlyDisk, unmountAll } from '../helpers/mounts.js';

/** Run by the lock's code just before it writes an owner file (into the dir being made), and just after it unlinks one. */
let beforeOwner: ((made: string) => void) | undefined;
let afterUnlink: ((path: string) => void) | undefined;
/** Run by the lock's code just before it renames a path (the take-over moving a dead lock aside). */
let beforeRename: ((from: string) => void) | undefined;

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    writeFileSync: (...args: Parameters<typeof real.writeFileSync>) => {
      const hook = beforeOwner;
      if (hook && typeof args[0] === 'string' && args[0].endsWith('/owner')) {
        beforeOwner = undefined;
        hook(real.realpathSync(args[0].slice(0, -'/owner'.length)));
      }
      real.writeFileSync(...args);
    },
    renameSync: (from: string, to: string) => {
      const hook = beforeRename;
      if (hook && to.includes('.lock.dead-')) {
        beforeRename = undefined;
        hook(from);
      }
      real.renameSync(from, to);
    },
    unlinkSync: (path: string) => {
      real.unlinkSync(path);
      const hook = afterUnlink;
      if (hook && path.endsWith('/owner')) {
        afterUnlink = undefined;
        hook(path);
      }
    },
  };
});

afterAll(unmountAll);

/** The other process is the built giftcodes (npm test builds it first). */
const noBuild = existsSync(join(ROOT, 'dist', 'start.js')) ? undefined : 'no dist/: run npm run build';
if (noBuild) console.log(`journal-lock: skipping the tests with another giftcodes process: ${noBuild}`);

function plant(dir: string, owner: object | undefined, ageS = 0): void {
  mkdirSync(join(dir, '.lock'));
  if (owner) writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify(owner));
  if (ageS) utimesSync(join(dir, '.lock'), new Date(Date.now() - ageS * 1000), new Date(Date.now() - ageS * 1000));
}

const ownerPid = (dir: string): number | undefined => {
  try {
    return (JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
};

/** Ages a directory's mtime as if its maker had paused that long since making it. */
const age = (dir: string, seconds: number): void =>
  utimesSync(dir, new Date(Date.now() - seconds * 1000), new Date(Date.now() - seconds * 1000));

/** Blocks this whole process (as a paused maker would be) until `condition` holds. */
function blockUntil(condition: () => boolean, ms = 10_000): void {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}

/** Another giftcodes process that takes the journal lock of `configDir` (order pending), holding it `hold` ms or until a gate opens. */
const otherProcessEnv = (configDir: string, hold: number | Gate): NodeJS.ProcessEnv => ({
  ...process.env,
  GIFTCODES_CONFIG_DIR: configDir,
  GIFTCODES_FAILPOINTS: typeof hold === 'number' ? `journal.locked=pause:${hold}` : hold.at('journal.locked'),
  NO_COLOR: '1',
  CI: 'true',
});

function journalIn(configDir: string): string {
  const dir = join(configDir, 'journal');
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('journal lock', () => {
  it('takes over at once a lock whose holder is dead, and removes it after', async () => {
    const dir = tempDir();
    plant(dir, { pid: deadPid(), boot: currentOwner().boot });
    await expect(withDirLock(dir, () => 'ran', 1)).resolves.toBe('ran');
    expect(existsSync(join(dir, '.lock'))).toBe(false);
    // The dead lock was moved aside, then removed: nothing of it is left.
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a waiter gets the lock once its live holder lets it go, within the wait', async () => {
    const dir = tempDir();
    plant(dir, { pid: process.ppid, boot: currentOwner().boot });
    setTimeout(() => rmSync(join(dir, '.lock'), { recursive: true }), 150);
    await expect(withDirLock(dir, () => 'ran', 60_000)).resolves.toBe('ran');
  });

  it('holds the lock, with this process as its owner, while the work runs', async () => {
    const dir = tempDir();
    const seen = await withDirLock(
      dir,
      () => JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8')) as { pid: number },
    );
    expect(seen.pid).toBe(process.pid);
    expect(existsSync(join(dir, '.lock'))).toBe(false);
  });

  it('never removes a lock that names another process when the work ends (it was taken over meanwhile)', async () => {
    const dir = tempDir();
    const other = { pid: process.ppid, boot: currentOwner().boot };
    await withDirLock(dir, () => writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify(other)));
    expect(JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8'))).toEqual(other);
  });

  it('a lock whose owner file vanished while held is left as it is, and the work still succeeds', async () => {
    const dir = tempDir();
    await expect(withDirLock(dir, () => (unlinkSync(join(dir, '.lock', 'owner')), 'ran'))).resolves.toBe('ran');
    expect(existsSync(join(dir, '.lock'))).toBe(true);
  });

  it('takes over a lock held on another boot', async () => {
    const dir = tempDir();
    plant(dir, { pid: process.ppid, boot: 'another-boot' });
    await expect(withDirLock(dir, () => 'ran', 1)).resolves.toBe('ran');
  });

  it('never takes a lock from a live holder: waits, then exit 2 journal_locked', async () => {
    const dir = tempDir();
    plant(dir, { pid: process.ppid, boot: currentOwner().boot }, 3600);
    const error = await withDirLock(dir, () => 'ran', 50).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 2, code: 'journal_locked' });
    expect(existsSync(join(dir, '.lock', 'owner'))).toBe(true);
  });

  it('a lock without an owner is being made: kept while young, taken once older than 5 s', async () => {
    const young = tempDir();
    plant(young, undefined);
    await expect(withDirLock(young, () => 'ran', 50)).rejects.toMatchObject({ code: 'journal_locked' });
    const old = tempDir();
    plant(old, undefined, 6);
    await expect(withDirLock(old, () => 'ran', 1)).resolves.toBe('ran');
  });

  it.skipIf(noBuild)(
    'a maker paused over 5 s before writing its owner holds nothing yet: another process takes the free lock meanwhile, then the maker gets its own',
    async () => {
      const configDir = tempDir();
      const dir = journalIn(configDir);
      const seen: { made?: string; lockExisted?: boolean; other?: ReturnType<typeof spawnSync> } = {};
      beforeOwner = (made) => {
        seen.made = made;
        seen.lockExisted = existsSync(join(dir, '.lock'));
        age(made, 6);
        seen.other = spawnSync(process.execPath, [BIN, 'order', 'pending', '--json'], {
          env: otherProcessEnv(configDir, 0),
          encoding: 'utf8',
        });
      };
      await expect(withDirLock(dir, () => ownerPid(dir))).resolves.toBe(process.pid);
      // The owner is written into a directory of its own, never into the lock at its real path.
      expect(seen.made).not.toBe(join(dir, '.lock'));
      expect(dirname(seen.made!)).toBe(dir);
      expect(seen.lockExisted).toBe(false);
      expect(seen.other?.status, String(seen.other?.stderr)).toBe(0);
      expect(String(seen.other?.stderr)).toContain('failpoint journal.locked');
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it.skipIf(noBuild)(
    'a maker whose owner write fails removes only the directory it made, never the lock another process holds',
    async () => {
      const configDir = tempDir();
      const dir = journalIn(configDir);
      const other = { proc: undefined as ReturnType<typeof spawn> | undefined };
      // The other process holds the lock until the test has looked (a 1.5 s hold could end first on a loaded machine).
      const held = gate();
      beforeOwner = (made) => {
        age(made, 6);
        const proc = spawn(process.execPath, [BIN, 'order', 'pending', '--json'], {
          env: otherProcessEnv(configDir, held),
          stdio: 'ignore',
        });
        other.proc = proc;
        blockUntil(() => ownerPid(dir) === proc.pid, 60_000);
        throw Object.assign(new Error('EIO: simulated'), { code: 'EIO' });
      };
      const exited = new Promise<number | null>((resolve) => {
        const wait = (): void => void (other.proc ? other.proc.once('exit', resolve) : setTimeout(wait, 10));
        wait();
      });
      await expect(withDirLock(dir, () => 'ran', 1)).rejects.toMatchObject({ exitCode: 8, code: 'journal_unwritable' });
      expect(ownerPid(dir)).toBe(other.proc?.pid);
      held.open();
      expect(await exited).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('a lock naming this pid with another start time (the pid reused) is another process: left at release', async () => {
    const dir = tempDir();
    const reused = { ...currentOwner(), start: '1' };
    await withDirLock(dir, () => writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify(reused)));
    expect(JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8'))).toEqual(reused);
  });

  it('a release that meets a lock another maker renamed into place between its two steps leaves that lock', async () => {
    const dir = tempDir();
    const racer = { pid: process.ppid, boot: currentOwner().boot };
    afterUnlink = () => {
      // Our emptied lock dir is replaced by the racer's whole one: rename(2) replaces an empty directory.
      const made = join(dir, '.lock.new-racer');
      mkdirSync(made);
      writeFileSync(join(made, 'owner'), JSON.stringify(racer));
      renameSync(made, join(dir, '.lock'));
    };
    await expect(withDirLock(dir, () => 'ran')).resolves.toBe('ran');
    expect(afterUnlink).toBeUndefined();
    expect(JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8'))).toEqual(racer);
  });

  it('sweeps the temporary lock dirs processes killed meanwhile left, never one a live process is making', async () => {
    const dir = tempDir();
    const dead = deadPid();
    for (const name of [`.lock.new-${dead}-a`, `.lock.dead-${dead}-b`]) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'owner'), JSON.stringify({ pid: dead, boot: currentOwner().boot }));
    }
    // A live process's (the parent's), this process's own, and a name that is none of these.
    const kept = [`.lock.new-${process.ppid}-c`, `.lock.new-${process.pid}-d`, '.lock.new-x-e'];
    for (const name of kept) mkdirSync(join(dir, name));
    await withDirLock(dir, () => 'ran');
    expect(readdirSync(dir).sort()).toEqual(kept.sort());
  });

  it.skipIf(mountSupport())(
    'a journal on a read-only disk: exit 8 journal_unwritable at once, naming the lock',
    async () => {
      const dir = readOnlyDisk();
      const started = Date.now();
      await expect(withDirLock(dir, () => 'ran')).rejects.toMatchObject({
        exitCode: 8,
        code: 'journal_unwritable',
        message: expect.stringContaining(join(dir, '.lock')),
      });
      // At once: not after the lock's wait (60 s by default), whatever a loaded machine makes of the rest.
      expect(Date.now() - started).toBeLessThan(30_000);
    },
  );

  // A release that failed (the disk turned read-only or failed under the holder) leaves the lock naming this
  // process. The next turn of this process waited on it as on any live holder: on itself, 60 s, then exit 2
  // journal_locked "by a running giftcodes process" (exactly-once-overlap.test.ts's read-only plan, under load).
  it('a lock this process was left holding, with no turn of it inside, is its own: the next turn takes it at once', async () => {
    const dir = tempDir();
    plant(dir, currentOwner());
    const started = Date.now();
    await expect(withDirLock(dir, () => ownerPid(dir), 20_000)).resolves.toBe(process.pid);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock naming only this pid (no start time: perhaps another container numbering alike) is not provably ours: waited for', async () => {
    const dir = tempDir();
    plant(dir, { pid: process.pid, boot: currentOwner().boot });
    await expect(withDirLock(dir, () => 'ran', 300)).rejects.toMatchObject({ code: 'journal_locked' });
    expect(ownerPid(dir)).toBe(process.pid);
  });

  it.skipIf(mountSupport())(
    'such a lock on a disk turned read-only: exit 8 journal_unwritable at once, not a wait on this process',
    async () => {
      const dir = readOnlyDisk((d) => plant(d, currentOwner()));
      const started = Date.now();
      await expect(withDirLock(dir, () => 'ran', 20_000)).rejects.toMatchObject({
        exitCode: 8,
        code: 'journal_unwritable',
        message: `cannot write the order journal lock ${join(dir, '.lock')}: the file system is read-only (EROFS)`,
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );

  it.skipIf(mountSupport())(
    "a dead holder's lock on a read-only disk: exit 8 journal_unwritable at once (the take-over cannot move it)",
    async () => {
      const dir = readOnlyDisk((d) => plant(d, { pid: deadPid(), boot: currentOwner().boot }));
      const started = Date.now();
      await expect(withDirLock(dir, () => 'ran', 20_000)).rejects.toMatchObject({
        exitCode: 8,
        code: 'journal_unwritable',
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );

  it("a dead holder's lock another waiter takes over first (gone at the rename): no error, this turn gets the lock after", async () => {
    const dir = tempDir();
    plant(dir, { pid: deadPid(), boot: currentOwner().boot });
    // The other waiter: moves the dead lock away in the instant between this waiter's look and its rename.
    beforeRename = (from) => rmSync(from, { recursive: true });
    await expect(withDirLock(dir, () => ownerPid(dir), 20_000)).resolves.toBe(process.pid);
    expect(beforeRename).toBeUndefined();
  });

  it('holders of one directory named two ways still run one at a time: a lock naming this process while a turn of it is inside is waited for', async () => {
    const dir = tempDir();
    let inside = 0;
    let most = 0;
    const turn = async (): Promise<void> => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inside--;
    };
    // Two queues (two names), one lock file: only the lock file keeps them apart.
    await Promise.all([withDirLock(dir, turn), withDirLock(join(dir, '.', ''), turn), withDirLock(`${dir}/.`, turn)]);
    expect(most).toBe(1);
  });

  it('holders run one at a time', async () => {
    const dir = tempDir();
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 12 }, () =>
        withDirLock(dir, async () => {
          inside++;
          most = Math.max(most, inside);
          await new Promise((resolve) => setImmediate(resolve));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
  });
});

describe('a waiter polls the lock', () => {
  it('soon at first, then half as long again each time, never more than 100 ms apart', () => {
    const waits = [5];
    while (waits.length < 11) waits.push(nextPoll(waits.at(-1)!));
    expect(waits).toEqual([5, 8, 12, 18, 27, 41, 62, 93, 100, 100, 100]);
  });
});

describe('one deadline per run behind a live holder (issue 29)', () => {
  it('after one waiter gives up, the next waiters of this process end at once; a waiter that gets the lock starts the clock again', async () => {
    const dir = tempDir();
    plant(dir, { pid: process.ppid, boot: currentOwner().boot }, 3600);
    vi.useFakeTimers();
    try {
      const first = withDirLock(dir, () => 'ran', 60_000).catch((e: unknown) => e);
      // The rows queued behind it: each would have waited its own 60 s (241 s for 4 rows).
      const rest = [1, 2, 3].map(() => withDirLock(dir, () => 'ran', 60_000).catch((e: unknown) => e));
      await vi.advanceTimersByTimeAsync(61_000);
      expect(await first).toMatchObject({ code: 'journal_locked', message: expect.stringContaining('for 60s') });
      let settled = 0;
      for (const p of rest) void p.then(() => settled++);
      // No more waiting: not a second of the clock passes before every one has ended.
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(3);
      for (const error of await Promise.all(rest))
        expect(error).toMatchObject({
          exitCode: 2,
          code: 'journal_locked',
          message: expect.stringContaining('this run already waited for it'),
        });
      // Once the holder is gone, the lock is taken at once, and the next wait is a whole one again.
      rmSync(join(dir, '.lock'), { recursive: true });
      expect(await withDirLock(dir, () => 'ran', 60_000)).toBe('ran');
      plant(dir, { pid: process.ppid, boot: currentOwner().boot }, 3600);
      let waited = false;
      const later = withDirLock(dir, () => 'ran', 60_000)
        .catch((e: unknown) => e)
        .finally(() => (waited = true));
      await vi.advanceTimersByTimeAsync(30_000);
      expect(waited).toBe(false);
      await vi.advanceTimersByTimeAsync(31_000);
      expect(await later).toMatchObject({ code: 'journal_locked', message: expect.stringContaining('for 60s') });
    } finally {
      vi.useRealTimers();
    }
  });
});
