// Where the config and the order journal live, and the permission rules for them.
import { accessSync, constants, statSync, type Stats } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LocalError } from '../errors.js';
import { errnoMeaning } from '../files/errno.js';
import { makeDirs } from '../files/make-dirs.js';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GIFTCODES_CONFIG_DIR) return env.GIFTCODES_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'giftcodes');
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'giftcodes');
}

/** The config file in a config directory (conf names it so: configName 'config'). */
export function configFile(dir: string): string {
  return join(dir, 'config.json');
}

/**
 * Creates the directory 0700 when missing; returns a warning when an existing one is looser. Exit 8 (LocalError)
 * when it cannot be made or used, in the words doctor's config check uses (src/commands/doctor-checks.ts).
 */
export function ensurePrivateDir(dir: string, what = 'config directory'): string | undefined {
  try {
    // mkdir on a file answers EEXIST, on a path through a file ENOTDIR: the file is named instead.
    const found = statSync(dir, { throwIfNoEntry: false });
    if (found && !found.isDirectory()) throw notADirectory(dir, what);
    makeDirs(dir, 0o700);
    const stats = statSync(dir);
    if (!stats.isDirectory()) throw notADirectory(dir, what);
    const warning = checkOwnership(dir, stats, 'directory');
    // Its owner's own rights to read and enter it taken away (chmod 000): every file in it read as missing, and
    // `order list` said no order was ever placed here (exit 0), `ping` that the config file could not be read (exit
    // 3). Asked of the system, not read from the mode: root uses any directory (a nightly job's 0555 one, a review).
    if (process.platform !== 'win32' && !usable(dir))
      throw new LocalError(`the ${what} ${dir} cannot be read or entered by this user (mode ${modeText(stats.mode)})`, {
        code: 'config_unwritable',
        hint: stats.uid === process.getuid?.() ? `run: chmod 700 ${dir}` : OTHER_CONFIG_DIR,
      });
    return warning;
  } catch (error) {
    if (error instanceof LocalError) throw error;
    const errno = (error as NodeJS.ErrnoException).code;
    // With the directory: an ENOENT where its parent is there is said as that parent refusing it (/proc: "does not
    // exist, create it first" of what it had just failed to create, a fourth review).
    const meaning = errnoMeaning(errno, dir);
    // A permission is mended where it was taken away; a full or read-only disk by its own hint.
    const permission = errno === 'EACCES' || errno === 'EPERM';
    throw new LocalError(`cannot make the ${what} ${dir}: ${meaning.reason}${errno ? ` (${errno})` : ''}`, {
      code: 'config_unwritable',
      hint: permission ? permissionHint(dir) : meaning.hint,
      cause: error,
    });
  }
}

/** Whether this user may list and enter `dir` (writes fail, where they do, with their own words). */
function usable(dir: string): boolean {
  try {
    accessSync(dir, constants.R_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The way on from a permission refused on `dir`: `chmod 700` of the nearest directory above it (itself included)
 * that this user owns without its owner's rights, else another directory. A config directory made `chmod 000`
 * was told "set GIFTCODES_CONFIG_DIR to a directory this user owns", of a directory this user owned.
 */
export function permissionHint(dir: string): string {
  const uid = process.getuid?.();
  for (let path = resolve(dir); ; path = dirname(path)) {
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      // Behind a directory this user cannot enter: the one above says which.
    }
    if (stats && stats.uid === uid && (stats.mode & 0o700) !== 0o700) return `run: chmod 700 ${path}`;
    if (dirname(path) === path) return OTHER_CONFIG_DIR;
  }
}

/** The way on from a config or journal directory that cannot be used: one sentence, for every command and doctor. */
export const OTHER_CONFIG_DIR = 'set GIFTCODES_CONFIG_DIR to a directory this user owns';

/** A config or journal directory that is a file (exit 8): the same words from every command and from doctor. */
export function notADirectory(dir: string, what: string): LocalError {
  return new LocalError(`the ${what} ${dir} is a file, not a directory`, {
    code: 'config_unwritable',
    hint: `move that file away, or ${OTHER_CONFIG_DIR}`,
  });
}

export function looseModeWarning(path: string, mode: number, what: string, wanted: number): string | undefined {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return undefined;
  const shown = (mode & 0o777).toString(8).padStart(4, '0');
  return `the ${what} ${path} is readable by other users (mode ${shown}); run: chmod ${wanted.toString(8)} ${path}`;
}

/**
 * The ssh rule for a directory or file that holds or points at secrets: one that another user owns, or that
 * the group or others can write, is refused (LocalError, exit 8) with the exact command that fixes it, since
 * anyone who can write it can plant a key or a base URL; one that others can only read gives a warning
 * (returned, for the caller to print once). Files owned by root are accepted, as ssh accepts them.
 */
export function checkOwnership(path: string, stats: Stats, what: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  const wanted = stats.isDirectory() ? 0o700 : 0o600;
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid && stats.uid !== 0) {
    throw new LocalError(`the ${what} ${path} belongs to another user (uid ${stats.uid}): refusing to use it`, {
      code: 'unsafe_permissions',
      hint: `run: chown ${ownerName(uid)} ${path} && chmod ${wanted.toString(8)} ${path}`,
    });
  }
  if ((stats.mode & 0o022) !== 0) {
    throw new LocalError(
      `the ${what} ${path} can be written by other users (mode ${modeText(stats.mode)}): refusing to use it`,
      {
        code: 'unsafe_permissions',
        hint: `run: chmod ${wanted.toString(8)} ${path}`,
      },
    );
  }
  return looseModeWarning(path, stats.mode, what, wanted);
}

/**
 * For files named on the command line that hold or vouch for secrets (`--ca-file`, `--secret-file`):
 * refused with exit 8 when another user owns it or can write it, a warning returned when others can read it.
 * A missing file is left to the caller's own error.
 */
export function assertPrivateFile(path: string, what: string): string | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return undefined;
  return checkOwnership(path, stats, what);
}

function modeText(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

function ownerName(uid: number): string {
  try {
    return userInfo().username;
  } catch {
    return String(uid);
  }
}
