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

/**
 * For a verb that reads orders from the API and would only note them here (order show, codes get, order watch):
 * where the config directory is missing, the journal of the whole run is the read-only one that is never made
 * (deps.journal's `read`), and `say` warns `no order record: the config directory … does not exist; <what>`, when
 * the verb has something to show. Made by a run that then failed, or wrote the codes, the directory turned the next
 * `order pending` into "every order placed from here reached you" (a desk review).
 */
export async function recordless(
  deps: Pick<Deps, 'io' | 'journal'> & Partial<Pick<Deps, 'configDir'>>,
): Promise<{ missing: boolean; say: (what: string) => void }> {
  const missing = await configDirMissing(deps);
  if (missing) await deps.journal({ read: true });
  return {
    missing,
    say: (what) => {
      if (missing) deps.io.warn(`no order record: the config directory ${deps.configDir} does not exist; ${what}`);
    },
  };
}
