// Where the config and the order journal live, and the permission rules for them.
import { mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AuthError } from '../errors.js';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GIFTCODES_CONFIG_DIR) return env.GIFTCODES_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'giftcodes');
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'giftcodes');
}

/** Creates the directory 0700 when missing; returns a warning when an existing one is looser. */
export function ensurePrivateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stats = statSync(dir);
    if (!stats.isDirectory()) throw new AuthError(`${dir} is not a directory`, { code: 'config_invalid' });
    return looseModeWarning(dir, stats.mode, 'directory', 0o700);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
    throw new AuthError(`cannot use the config directory ${dir} (${code})`, {
      code: 'config_unreadable',
      hint: 'set GIFTCODES_CONFIG_DIR to a directory you own',
      cause: error,
    });
  }
}

export function looseModeWarning(path: string, mode: number, what: string, wanted: number): string | undefined {
  if (process.platform === 'win32' || (mode & 0o077) === 0) return undefined;
  const shown = (mode & 0o777).toString(8).padStart(4, '0');
  return `the ${what} ${path} is readable by other users (mode ${shown}); run: chmod ${wanted.toString(8)} ${path}`;
}
