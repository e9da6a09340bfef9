// A config directory that does not exist (a mistyped GIFTCODES_CONFIG_DIR) holds no order journal: the verbs that
// only read it say so, and never make it. Opening the journal made the directory, and a cron job's `order pending
// --json` or `order resume --all` answered an all-clear from an empty directory of its own (two reviews).
import type { Deps } from '../deps.js';

/** Whether the config directory is missing; if so, said as a warning (--json and --quiet keep their stdout). */
export async function journalMissing(deps: Pick<Deps, 'io'> & Partial<Pick<Deps, 'configDir'>>): Promise<boolean> {
  if (!(await configDirMissing(deps))) return false;
  deps.io.warn(`no order journal: the config directory ${deps.configDir} does not exist`);
  return true;
}

export async function configDirMissing(deps: Partial<Pick<Deps, 'configDir'>>): Promise<boolean> {
  if (deps.configDir === undefined) return false;
  const { existsSync } = await import('node:fs');
  return !existsSync(deps.configDir);
}
