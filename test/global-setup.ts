// Once per vitest run, before any test file: one temporary directory for the whole run, made the TMPDIR of every
// worker and of every process they start (the CLI, the reference server, git, age). Everything a test makes with
// tmpdir() lands inside it, and so does what a CLI killed by a failpoint leaves (its spool, a half-written file), and
// the run's end removes it whole. Without it every run of the suite left about 4,000 directories in /tmp. The
// same directory holds the run's XDG_CACHE_HOME: the CLIs a test starts from a copy of dist/ would otherwise
// leave their compile caches in the home directory of whoever runs the suite (156 MB here after three days).
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The environment variable that names the run's directory (test/unit/suite-tmp.test.ts reads it). */
export const SUITE_TMP = 'GIFTCODES_TEST_TMP';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'giftcodes-suite-'));
  process.env.TMPDIR = root;
  process.env.XDG_CACHE_HOME = join(root, 'cache');
  process.env[SUITE_TMP] = root;
  return () => removeRun(root);
}

function removeRun(root: string): void {
  // A tmpfs a test mounted (test/helpers/mounts.ts) and left mounted would stop the removal with EBUSY halfway.
  for (const dir of mountsUnder(root).reverse()) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    } catch {
      // Then the removal below says so.
    }
  }
  try {
    rmSync(root, { recursive: true, force: true });
  } catch {
    // A directory a test made unreadable or unwritable (chmod 000) stops a removal without root: open them, again.
    try {
      openUp(root);
      rmSync(root, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`test/global-setup.ts: could not remove ${root}: ${(error as Error).message}\n`);
    }
  }
}

function mountsUnder(root: string): string[] {
  try {
    return readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((dir) => dir.startsWith(`${root}/`));
  } catch {
    return [];
  }
}

function openUp(dir: string): void {
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) openUp(path);
  }
}
