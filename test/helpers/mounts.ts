// Small tmpfs mounts for local-resource failures: a full disk (size=64k, then filled) and a read-only one.
// Needs root; `mountSupport()` says why not otherwise, and the suites skip with that reason printed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const mounted: string[] = [];

/** undefined when tmpfs mounts work here, else the reason they do not. */
export function mountSupport(): string | undefined {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'tmpfs mounts need root';
  const probe = mkdtempSync(join(tmpdir(), 'giftcodes-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    rmdirSync(probe);
  }
}

/** A 64 KiB tmpfs (mode 0700), with `prepare` run on it, then filled to the last byte but `leave` bytes. */
export function fullDisk(prepare: (dir: string) => void = () => undefined, leave = 0): string {
  const dir = mount(['size=64k', 'mode=0700']);
  prepare(dir);
  try {
    const { bavail, bsize } = statfsSync(dir);
    writeFileSync(join(dir, 'filler'), Buffer.alloc(leave > 0 ? bavail * bsize - leave : 128 * 1024));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
  return dir;
}

/** A tmpfs (mode 0700) with `prepare` run on it, then remounted read-only. */
export function readOnlyDisk(prepare: (dir: string) => void = () => undefined): string {
  const dir = mount(['size=1m', 'mode=0700']);
  prepare(dir);
  execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' });
  return dir;
}

export function unmountAll(): void {
  for (const dir of mounted.splice(0)) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmdirSync(dir);
    } catch {
      // Left for the system's tmp cleaner; the next run mounts fresh directories.
    }
  }
}

function mount(options: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'giftcodes-mount-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', dir], { stdio: 'pipe' });
  mounted.push(dir);
  return dir;
}
