// The journal lock goes by its holder's liveness, never a timer: a dead holder's lock is taken at once,
// a live (or stopped) holder keeps it as long as it runs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDirLock } from '../../src/journal/lock.js';
import { currentOwner } from '../../src/journal/owner.js';
import { tempDir } from '../helpers/e2e.js';

function plant(dir: string, owner: object | undefined, ageS = 0): void {
  mkdirSync(join(dir, '.lock'));
  if (owner) writeFileSync(join(dir, '.lock', 'owner'), JSON.stringify(owner));
  if (ageS) utimesSync(join(dir, '.lock'), new Date(Date.now() - ageS * 1000), new Date(Date.now() - ageS * 1000));
}

const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

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
    await expect(withDirLock(dir, () => 'ran', 10_000)).resolves.toBe('ran');
  });

  it('holds the lock, with this process as its owner, while the work runs', async () => {
    const dir = tempDir();
    const seen = await withDirLock(dir, () => JSON.parse(readFileSync(join(dir, '.lock', 'owner'), 'utf8')) as { pid: number });
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
