// A config directory or file this user owns but may not use (chmod 000), and a directory where the config file
// should be: exit 8 with the chmod that mends it, from every command and from doctor. Before, `order list` said no
// order was ever placed there (exit 0), `ping` that the config file could not be read (exit 3, "fix or remove"),
// `order pending` "set GIFTCODES_CONFIG_DIR to a directory this user owns" of one this user owned, and doctor
// crashed (exit 1). Root may use any of these, so the refusals are shown with statSync and getuid made to answer
// as they do for another user.
import * as fs from 'node:fs';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { directoryCheck } from '../../src/commands/doctor-checks.js';
import { ensurePrivateDir, permissionHint } from '../../src/config/paths.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../helpers/e2e.js';

vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    statSync: vi.fn(actual.statSync),
    readFileSync: vi.fn(actual.readFileSync),
    accessSync: vi.fn(actual.accessSync),
  };
});

const USER = 4242;
const denied = (path: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`EACCES: permission denied, stat '${path}'`), { code: 'EACCES' });

/** Paths under `blocked` answer EACCES to statSync, as they do behind a directory this user may not enter. */
function behind(blocked: string): void {
  const real = vi.mocked(fs.statSync).getMockImplementation()!;
  vi.mocked(fs.statSync).mockImplementation(((path: fs.PathLike, o?: fs.StatSyncOptions) => {
    if (String(path).startsWith(`${blocked}/`)) throw denied(String(path));
    return real(path, o);
  }) as typeof fs.statSync);
}

afterEach(() => {
  vi.mocked(fs.accessSync).mockReset();
  vi.mocked(fs.statSync).mockReset();
  vi.mocked(fs.readFileSync).mockReset();
  vi.restoreAllMocks();
});

/** A directory owned by USER (this "user"), mode 000: access(2) refuses it, as it does to that user. */
function lockedOut(): string {
  const dir = join(tempDir(), 'cfg');
  mkdirSync(dir, { mode: 0o700 });
  chownSync(dir, USER, USER);
  chmodSync(dir, 0o000);
  vi.spyOn(process, 'getuid').mockReturnValue(USER);
  const real = vi.mocked(fs.accessSync).getMockImplementation()!;
  vi.mocked(fs.accessSync).mockImplementation(((path: fs.PathLike, mode?: number) => {
    if (String(path) === dir) throw denied(dir);
    return real(path, mode);
  }) as typeof fs.accessSync);
  return dir;
}

describe.skipIf(process.platform === 'win32' || process.getuid?.() !== 0)(
  'a config directory its owner may not use',
  () => {
    it('every command that opens it: exit 8, and the chmod that mends it', async () => {
      const dir = lockedOut();
      expect(() => ensurePrivateDir(dir)).toThrow(
        expect.objectContaining({
          exitCode: 8,
          message: `the config directory ${dir} cannot be read or entered by this user (mode 0000)`,
          hint: `run: chmod 700 ${dir}`,
        }),
      );
      await expect(ConfigStore.open(dir)).rejects.toMatchObject({ exitCode: 8, hint: `run: chmod 700 ${dir}` });
    });

    it('the journal inside it (order pending, order list): the chmod of the directory above, not another directory', () => {
      const dir = lockedOut();
      behind(dir);
      expect(permissionHint(join(dir, 'journal'))).toBe(`run: chmod 700 ${dir}`);
      expect(() => ensurePrivateDir(join(dir, 'journal'), 'journal directory')).toThrow(
        expect.objectContaining({ exitCode: 8, hint: `run: chmod 700 ${dir}` }),
      );
    });

    it('doctor: a failed journal check with the chmod, not a crash', () => {
      const dir = lockedOut();
      behind(dir);
      expect(directoryCheck('journal', join(dir, 'journal'))).toMatchObject({
        ok: false,
        exitCode: 8,
        detail: `cannot use the journal directory ${join(dir, 'journal')} (EACCES)`,
        hint: `run: chmod 700 ${dir}`,
      });
    });

    // A person's-day review: after login and config set, doctor still said of the journal "the first command that saves
    // there (login, config set, an order) makes it", and neither had: the journal is made by the order commands alone.
    it('doctor: a journal directory not made yet is said as the order commands make it, a config one as any save does', () => {
      const dir = tempDir();
      const journal = directoryCheck('journal', join(dir, 'journal'));
      expect(journal).toMatchObject({ ok: true });
      expect(journal.detail).toContain('does not exist yet; the first order placed here makes it');
      expect(journal.detail).not.toContain('login');
      expect(directoryCheck('config', join(dir, 'cfg')).detail).toContain('(login, config set, an order) makes it');
    });

    // A review: a root nightly job's 0555 config directory (root uses any) was refused, and the restock stopped.
    it('one the system lets this user use is used, whatever its mode (root, a 0555 directory)', async () => {
      const dir = join(tempDir(), 'cfg');
      mkdirSync(dir, { mode: 0o700 });
      chmodSync(dir, 0o555);
      // Used, with the warning any directory others can read gets.
      expect(ensurePrivateDir(dir)).toMatch(/is readable by other users/);
      chmodSync(dir, 0o000);
      expect(ensurePrivateDir(dir)).toBeUndefined();
      await expect(ConfigStore.open(dir)).resolves.toBeDefined();
      chmodSync(dir, 0o700);
    });

    it('a directory nobody here owns without rights: another directory, as before', () => {
      const dir = join(tempDir(), 'theirs');
      mkdirSync(dir);
      vi.spyOn(process, 'getuid').mockReturnValue(USER);
      behind(dir);
      expect(permissionHint(join(dir, 'journal'))).toBe('set GIFTCODES_CONFIG_DIR to a directory this user owns');
    });
  },
);

describe('a config file that cannot be read', () => {
  it('permission denied: exit 8 and the chmod, not exit 3 "fix or remove"', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, '{}', { mode: 0o600 });
    vi.mocked(fs.readFileSync).mockImplementation(((path: fs.PathOrFileDescriptor) => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${String(path)}'`), { code: 'EACCES' });
    }) as typeof fs.readFileSync);
    await expect(ConfigStore.open(dir)).rejects.toMatchObject({
      exitCode: 8,
      message: `cannot read the config file ${file}: permission denied (EACCES)`,
      hint: `run: chmod 600 ${file}`,
    });
  });

  it('a directory where the file should be: exit 8', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'config.json'));
    await expect(ConfigStore.open(dir)).rejects.toMatchObject({
      exitCode: 8,
      message: `the config file ${join(dir, 'config.json')} is not a regular file`,
    });
  });
});
