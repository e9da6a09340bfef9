// The commands a hint names must reach the config directory, profile and server the failing run used: a cron job's
// GIFTCODES_CONFIG_DIR, its --profile, and the --env and --base-url it was given as flags. Used by the error printer
// (cli.ts) and by doctor's per-check hints.
import { resolve as resolvePath } from 'node:path';

/** What the failing run used where it is not the default: a command in a hint must land in the same place. */
export interface RunPlace {
  configDir?: string | undefined;
  profile?: string | undefined;
  /** --env, when given as a flag (a profile's default needs no pinning). */
  env?: string | undefined;
  /** --base-url, when given as a flag: without it, the hint's `giftcodes catalog list` asks the profile's server. */
  baseUrl?: string | undefined;
  /**
   * GIFTCODES_BASE_URL, pinned as --base-url in a hint's `order place` only: a new order goes where the failing run's
   * went. A cron job's environment is not the shell its log's hint is pasted in, and "to order it anew: giftcodes order
   * place …" went to the profile's own server (a review). Elsewhere the hint reads where the person's shell points.
   */
  envBaseUrl?: string | undefined;
  /**
   * The run's API key came from GIFTCODES_API_KEY: a hint's `order` and `codes` commands need that key too, and pasted
   * in a shell without it they were refused (exit 3, "no test key"), or asked with the profile's own key (a person's
   * day, with the cron docs' GIFTCODES_API_KEY). The key itself is never printed: the hint says where it was.
   */
  keyFromEnv?: boolean | undefined;
  /**
   * GIFTCODES_PROFILE, where it chose the run's profile (no --profile). Said, with GIFTCODES_CONFIG_DIR and
   * GIFTCODES_BASE_URL, beside a hint's "the same command again": the same words in a shell without them reach
   * another journal, profile or server, where the interrupted order is not found and a new one is placed (an
   * adversarial review: a cron job's hint run in the person's own shell charged its order twice).
   */
  envProfile?: string | undefined;
}

/** What a hint with `order`/`codes` commands says of a key read from GIFTCODES_API_KEY. */
export const ENV_KEY_NOTE = ' (run with the API key this run read from GIFTCODES_API_KEY)';

/**
 * A hint's `giftcodes …` commands, run as the hint says, must reach the config directory, profile, environment and
 * server the failing run used (a cron job's GIFTCODES_CONFIG_DIR, its --profile, --env and --base-url), not the
 * person's own defaults.
 */
export function pinnedHint(hint: string, place: RunPlace): string {
  const pinned = sameRunAgain(pinnedCommands(hint, place), place);
  return place.keyFromEnv &&
    /(^|[\s(:|`])giftcodes (--[a-z-]+ \S+ )*(order|codes) /.test(pinned) &&
    !pinned.endsWith(ENV_KEY_NOTE)
    ? `${pinned}${ENV_KEY_NOTE}`
    : pinned;
}

/** A hint's "run the same command (or plan) again": the run's own words, which need its environment too. */
const SAME_AGAIN = /\bthe same (command|plan) (run )?again\b/;
const AS_THIS_RUN = ' in its environment, as this run had)';

/**
 * "the same command again" followed by the variables that chose this run's config directory, profile and server,
 * once (the first such words). The command line carries its flags; these it does not.
 */
function sameRunAgain(hint: string, place: RunPlace): string {
  const vars = [
    place.configDir ? `GIFTCODES_CONFIG_DIR=${shellWord(resolvePath(place.configDir))}` : '',
    place.envProfile ? `GIFTCODES_PROFILE=${shellWord(place.envProfile)}` : '',
    place.envBaseUrl && place.baseUrl === undefined ? `GIFTCODES_BASE_URL=${shellWord(place.envBaseUrl)}` : '',
  ].filter(Boolean);
  const found = SAME_AGAIN.exec(hint);
  if (vars.length === 0 || !found || hint.includes(AS_THIS_RUN)) return hint;
  // At the end of its clause (the words after it up to a comma, colon or semicolon), so that a "--batch" or "to
  // finish them (…)" said after it stays with it.
  const from = found.index + found[0].length;
  const end = /[,:;](\s|$)|$/.exec(hint.slice(from))!.index + from;
  return `${hint.slice(0, end)} (with ${vars.join(' ')}${AS_THIS_RUN}${hint.slice(end)}`;
}

function pinnedCommands(hint: string, place: RunPlace): string {
  const dir = place.configDir ? `GIFTCODES_CONFIG_DIR=${shellWord(resolvePath(place.configDir))} ` : '';
  const flag = (name: string, value: string | undefined): string =>
    value && !hint.includes(`--${name}`) ? `--${name} ${shellWord(value)} ` : '';
  const flags = `${flag('profile', place.profile)}${flag('env', place.env)}${flag('base-url', place.baseUrl)}`;
  const placing = place.baseUrl === undefined ? flag('base-url', place.envBaseUrl) : '';
  if (!dir && !flags && !placing) return hint;
  // An order's resume or abandon by key goes where the order was made (its note's profile, server and environment):
  // this run's --base-url there read as the way to it, when it was the very mismatch refused (a docs review), and
  // its --profile as the profile the order was in (a review).
  const byKey = `${dir}giftcodes `;
  // A command pinned already (the hint went through here before) is left as it is, not given a second prefix; so is
  // `giftcodes serve`, which reads no config directory or profile (a review was told to start the reference server
  // with `GIFTCODES_CONFIG_DIR=… giftcodes --profile small serve`).
  return hint.replace(/(^|[\s(:|`])giftcodes (?=[a-z-])/g, (match, before: string, at: number) =>
    /GIFTCODES_CONFIG_DIR=\S+ $/.test(hint.slice(0, at + before.length)) || hint.startsWith('serve', at + match.length)
      ? match
      : // `order pending`, the safety net, lists every unfinished order: --profile and --env would narrow it now
        // (commands/order/scope.ts), and a hint's list hid the orders it was about (a review).
        /^order (resume|abandon|pending)\b/.test(hint.slice(at + match.length))
        ? `${before}${byKey}`
        : `${before}${dir}giftcodes ${flags}${/^order place\b/.test(hint.slice(at + match.length)) ? placing : ''}`,
  );
}

/** A word the shell reads as it is: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * A plan run's batch as its command line gives it: `--batch 2026-12-01` (quoted as a shell reads it: `--batch x $HOME`
 * pasted unquoted is another batch, new keys: a review), or `no --batch` for a run without one.
 */
export function batchFlag(batch: string | null): string {
  return batch === null ? 'no --batch' : `--batch ${shellWord(batch)}`;
}

/**
 * The `order place` that orders the same again: always with its --env, test too (pasted in a profile whose default is
 * live, a hint without it placed a live order: reviews), and its codes file where it had one (without it, the codes
 * went to stdout). `environment` undefined only where the order's environment is not known.
 */
export function placeCommand(o: {
  environment?: string | undefined;
  productId: string;
  quantity: number;
  out?: string | undefined;
}): string {
  return `giftcodes order place${o.environment !== undefined ? ` --env ${o.environment}` : ''} --product ${o.productId} --quantity ${o.quantity}${o.out !== undefined ? ` --out ${shellWord(o.out)}` : ''}`;
}
