// An independent reader of workbooks for the XLSX tests: Python's openpyxl, Debian's python3-openpyxl, installed when
// missing (as root, the way CI images run the tests; `npm test` installs it before any file runs). Every file that
// reads a workbook calls ensureOpenpyxl() first: which file of the suite runs first is not fixed.
import { execFileSync } from 'node:child_process';

/** Debian's Python, the one python3-openpyxl installs for (a python3 earlier on PATH may be another). */
export const PYTHON = '/usr/bin/python3';

/** openpyxl importable by PYTHON, installed from Debian when missing; a machine that cannot install it fails. */
export function ensureOpenpyxl(): void {
  const has = (): boolean => {
    try {
      execFileSync(PYTHON, ['-c', 'import openpyxl'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (has()) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): void => {
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'python3-openpyxl'], {
      stdio: 'ignore',
      env,
    });
  };
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    install();
  }
  if (!has())
    throw new Error('openpyxl (Debian package python3-openpyxl) is needed by these tests and could not be installed');
}
