// The journal lock's races, played in one process by acting just before a rename the lock makes: another
// maker's lock renamed into place first, another waiter taking a dead lock over first, or replacing it with
// its own live lock between our look and our rename. Each time: no second holder, nothing of ours left behind,
// and the other's lock untouched.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { withDirLock } from '../../src/journal/lock.js';
import { currentOwner } from '../../src/journal/owner.js';
import { deadPid, tempDir } from '../helpers/e2e.js';

/** Run once, just before the lock's next renameSync(from, to). */
const hook = vi.hoisted(() => ({ beforeRename: undefined as ((from: string, to: string) => void) | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    renameSync: (from: string, to: string) => {
      const run = hook.beforeRename;
      hook.beforeRename = undefined;
      run?.(from, to);
      real.renameSync(from, to);
    },
  };
});

const live = () => ({ pid: process.ppid, boot: currentOwner().boot });

function plant(lock: string, owner: object): void {
  mkdirSync(lock);
  writeFileSync(join(lock, 'owner'), JSON.stringify(owner));
}

describe('journal lock races', () => {
  it("another maker's lock renamed into place first: ours is not placed, our temporary dir is removed, we wait for theirs", async () => {
    const dir = tempDir();
    const lock = join(dir, '.lock');
    hook.beforeRename = (from, to) => {
      expect(from).toMatch(/\/\.lock\.new-\d+-[0-9a-z]+$/);
      expect(to).toBe(lock);
      plant(lock, live());
      setTimeout(() => rmSync(lock, { recursive: true }), 100);
    };
    // Once theirs is gone, the lock the work runs under is ours, whole with its owner.
    let holder: number | undefined;
    const ran = await withDirLock(
      dir,
      () => {
        holder = (JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as { pid: number }).pid;
        return 'ran';
      },
      10_000,
    );
    expect(ran).toBe('ran');
    expect(holder).toBe(process.pid);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('another waiter took the dead lock over first: we do not remove anything, and take the lock once it is free', async () => {
    const dir = tempDir();
    const lock = join(dir, '.lock');
    plant(lock, { pid: deadPid(), boot: currentOwner().boot });
    hook.beforeRename = (from) => {
      expect(from).toBe(lock);
      // The other waiter moved it aside and is now the holder.
      rmSync(lock, { recursive: true });
      plant(lock, live());
      setTimeout(() => rmSync(lock, { recursive: true }), 100);
    };
    const holders: number[] = [];
    await expect(
      withDirLock(
        dir,
        () => holders.push((JSON.parse(readFileSync(join(lock, 'owner'), 'utf8')) as { pid: number }).pid),
        10_000,
      ),
    ).resolves.toBe(1);
    expect(holders).toEqual([process.pid]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a dead lock replaced by a live one between our look and our rename: the live lock is put back, never removed', async () => {
    const dir = tempDir();
    const lock = join(dir, '.lock');
    plant(lock, { pid: deadPid(), boot: currentOwner().boot });
    const theirs = live();
    let putBack = false;
    hook.beforeRename = (from, to) => {
      expect(from).toBe(lock);
      expect(to).toMatch(/\/\.lock\.dead-\d+-[0-9a-z]+$/);
      writeFileSync(join(lock, 'owner'), JSON.stringify(theirs));
      hook.beforeRename = (back, into) => {
        putBack = back === to && into === lock;
      };
    };
    const error = await withDirLock(dir, () => 'ran', 60).catch((e: unknown) => e);
    expect(putBack).toBe(true);
    expect(error).toMatchObject({ code: 'journal_locked' });
    expect(JSON.parse(readFileSync(join(lock, 'owner'), 'utf8'))).toEqual(theirs);
    expect(readdirSync(dir)).toEqual(['.lock']);
    // Its holder lets it go: ours now.
    rmSync(lock, { recursive: true });
    await expect(withDirLock(dir, () => 'ran', 10_000)).resolves.toBe('ran');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a lock that cannot be made is exit 8 naming the lock and the reason', async () => {
    const dir = join(tempDir(), 'missing');
    await expect(withDirLock(dir, () => 'ran', 10)).rejects.toMatchObject({
      exitCode: 8,
      code: 'journal_unwritable',
      message: expect.stringMatching(
        new RegExp(`^cannot write the order journal lock ${dir}/\\.lock: the directory does not exist \\(ENOENT\\)$`),
      ),
    });
  });
});
