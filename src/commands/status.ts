// `giftcodes status`, as `gh auth status`: every key this machine can use, where it comes from, whose it is,
// and whether it works now (one ping each, all at once; --offline skips them).
import type { Command } from 'commander';
import { CliError, ExitCode, isCliError } from '../errors.js';
import { exportResult } from '../output/exporter.js';
import { wrapWords } from '../output/wrap.js';
import { environmentOfKey, maskKey, type KeyEnvironment } from '../secrets.js';
import type { BaseUrlOrigin } from '../config/resolve.js';
import { examples, type App } from './app.js';
import type { Deps, GlobalOptions } from './deps.js';

export interface StatusOptions extends Pick<GlobalOptions, 'profile' | 'env' | 'apiKey' | 'baseUrl'> {
  offline?: boolean;
}

/** Where a key comes from, in the words `status` prints (and --json keeps). */
export type KeySource = 'credential store' | 'config file' | 'GIFTCODES_API_KEY' | '--api-key';

export interface KeyStatus extends BaseUrlOrigin {
  profile: string;
  environment: KeyEnvironment;
  /** The key commands use when run as this one was (the profile's default environment, or the given key). */
  active: boolean;
  key: string | null;
  source: KeySource;
  baseUrl: string;
  resellerId: string | null;
  /** null with --offline, or when there is no key to try. */
  works: boolean | null;
  error?: { code: string; message: string; exitCode: number };
}

type StatusDeps = Pick<Deps, 'io' | 'config' | 'clientFor'>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('status')
    .description(
      'show every profile and key: where each comes from, whose it is, the base URL, and whether it works now',
    )
    .option('--offline', 'do not ping: show what is configured only')
    .action(async (flags: Pick<StatusOptions, 'offline'>, cmd: Command) => {
      const { globals, deps } = app.context(cmd);
      await run(
        { ...flags, profile: globals.profile, env: globals.env, apiKey: globals.apiKey, baseUrl: globals.baseUrl },
        deps,
      );
    });
  examples(command, [
    'giftcodes status',
    'giftcodes status --offline',
    'giftcodes status --json --query "[?works==\\`false\\`]"',
  ]);
}

export async function run(options: StatusOptions, deps: StatusDeps): Promise<void> {
  const [resolve, store] = await Promise.all([import('../config/resolve.js'), deps.config()]);
  const { resolveProfileName, resolveBaseUrl, assertSafeTransport, baseUrlSetting, configDirMissing } = resolve;
  const { env } = deps.io;
  const current = resolveProfileName(options, env, store);
  const wantedEnv = options.env === 'all' ? undefined : options.env;
  const rows: { status: KeyStatus; apiKey: string | undefined }[] = [];
  /**
   * The hint of each key's failed check, right for its cause (a server out of reach is not fixed by a new key); a
   * refused key's, only where GIFTCODES_BASE_URL sent it elsewhere than its profile's base URL (else replaceKey's).
   */
  const hints = new Map<KeyStatus, string>();
  /** A profile's key sent where GIFTCODES_BASE_URL says, not to the profile's base URL: its refusal says so first. */
  const overridden = new Map<KeyStatus, string>();

  // A key given on the command line or in the environment is what every command uses: it comes first.
  const given = options.apiKey || env.GIFTCODES_API_KEY;
  if (given) {
    deps.io.addSecret(given);
    const environment = environmentOfKey(given) ?? wantedEnv ?? 'test';
    const source: KeySource = options.apiKey ? '--api-key' : 'GIFTCODES_API_KEY';
    const status = row(current, environment, true, given, source, resolveBaseUrl(options, env, store, current));
    rows.push({ status: { ...status, ...resolve.baseUrlOrigin(options, env, store, current) }, apiKey: given });
  }
  const profiles = store.profileNames();
  if (!profiles.includes(current)) profiles.unshift(current);
  for (const profile of profiles) {
    const stored = store.profile(profile);
    const defaultEnv = wantedEnv ?? stored.defaultEnv ?? 'test';
    const baseUrl = resolveBaseUrl(options, env, store, profile);
    const origin = resolve.baseUrlOrigin(options, env, store, profile);
    const override = resolve.envBaseUrlOverride(options, env, store, profile);
    const profileRow = (status: KeyStatus, apiKey: string | undefined): void => {
      const shown = { ...status, ...origin };
      rows.push({ status: shown, apiKey });
      if (override) overridden.set(shown, resolve.overrideHint(override, loginFor(shown)));
    };
    for (const environment of ['test', 'live'] as const) {
      const active = !given && profile === current && environment === defaultEnv;
      const inFile = stored.keys?.[environment];
      const account = stored.keyring?.[environment];
      if (inFile) {
        deps.io.addSecret(inFile);
        profileRow(row(profile, environment, active, inFile, 'config file', baseUrl), inFile);
      } else if (account) {
        const { keyringGet } = await import('../config/keyring.js');
        const key = await keyringGet(env, account).catch(() => undefined);
        if (key) deps.io.addSecret(key);
        const status = row(profile, environment, active, key, 'credential store', baseUrl);
        if (!key)
          status.error = {
            code: 'no_api_key',
            message: 'the key is missing from the credential store',
            exitCode: ExitCode.auth,
          };
        profileRow(status, key);
      }
    }
  }
  if (rows.length === 0) {
    // A config directory that is not there is likelier a mistyped GIFTCODES_CONFIG_DIR than no login, as every other
    // command says (config/resolve.ts): status alone said "not logged in", and a login as told stored into the typo.
    const missing = configDirMissing(env, store, 'no API key', 'giftcodes login');
    if (missing) throw missing;
    throw new CliError(ExitCode.auth, 'no API key: not logged in to any profile', {
      code: 'no_api_key',
      hint: 'set GIFTCODES_API_KEY, or run: giftcodes login',
    });
  }

  // The reseller login learned for each key at its base URL (the profile field `resellers`): said where no ping
  // says it now (--offline, a server out of reach), as `config show` does. Not in --json, whose resellerId is the
  // ping's answer.
  const learned = new Map<KeyStatus, string>();
  {
    const [{ keyIdOf }, { sameApi }] = await Promise.all([
      import('../journal/intent.js'),
      import('../config/same-api.js'),
    ]);
    for (const { status, apiKey } of rows) {
      const id = apiKey ? store.resellerOf(keyIdOf(apiKey), status.environment, status.baseUrl, sameApi) : undefined;
      if (id !== undefined) learned.set(status, id);
    }
  }

  if (!options.offline) {
    // A key whose server does not answer holds the table for a whole request timeout: on a terminal a spinner says so.
    const tried = rows.filter(({ status, apiKey }) => apiKey && !status.error).length;
    const spinner = await deps.io.spinner(`checking ${tried === 1 ? 'the key' : `${tried} keys`} (GET /v1/ping)`);
    await Promise.all(
      rows.map(async ({ status, apiKey }) => {
        if (!apiKey || status.error) return;
        try {
          assertSafeTransport(status.baseUrl);
          // One attempt each: status says how things are now, it does not wait for them to get better.
          // Its hints name where the base URL came from (GIFTCODES_BASE_URL, the profile's), as ping's do.
          const api = await deps.clientFor(
            status.baseUrl,
            apiKey,
            0,
            undefined,
            baseUrlSetting(options, env, store, status.profile),
          );
          const { pingFacts } = await import('../api/outcome.js');
          const facts = pingFacts(await api.ping());
          status.resellerId = facts.resellerId || null;
          status.works = true;
        } catch (error) {
          if (!isCliError(error) || error.exitCode === ExitCode.interrupted) throw error;
          status.works = false;
          status.error = { code: error.code, message: error.message, exitCode: error.exitCode };
          const refused = error.exitCode === ExitCode.auth ? overridden.get(status) : error.hint;
          if (refused) hints.set(status, refused);
        }
      }),
    ).finally(() => spinner.stop());
  }

  const statuses = rows.map((r) => r.status);
  const { io } = deps;
  await exportResult(io, statuses, {
    text: (data) => text(io.c, data, options.offline === true, resolve.baseUrlNote, learned, io.terminalWidth),
  });
  // A --profile (or GIFTCODES_PROFILE) that names no profile: every command run so fails for want of a key, where
  // status listed the others and exited 0, none of them "used by commands run now" (a walkthrough's typo). The
  // listing stays; the error is the one those commands give.
  if (!given && (options.profile || resolve.envProfile(env)) && !store.hasProfile(current))
    throw resolve.profileNotFound(current, store);
  const failed = statuses.filter((s) => s.works === false || (s.error && s.works !== true));
  if (failed.length > 0) {
    const first = failed.find((s) => s.active) ?? failed[0]!;
    // A server out of reach says nothing of a key: never checked, not "does not work" (a person's day).
    const unreached = failed.every((s) => unchecked(s));
    throw new CliError(
      (first.error?.exitCode ?? ExitCode.auth) as typeof ExitCode.auth,
      unreached
        ? `${statuses.length === 1 ? 'the key' : `${failed.length} of ${statuses.length} keys`} could not be checked: the API could not be reached`
        : statuses.length === 1
          ? 'the key does not work'
          : `${failed.length} of ${statuses.length} keys ${failed.length === 1 ? 'does' : 'do'} not work`,
      {
        code: first.error?.code ?? 'key_not_working',
        // With --json the rows are the document on stdout, each with its error: no lines above (a support review).
        hint: `${deps.io.json ? "each key's error is in the document on stdout" : 'see the lines above'}; ${hints.get(first) ?? replaceKey(first)}`,
      },
    );
  }
}

/** A key whose check never reached the API (exit 5): nothing is known of the key itself. */
function unchecked(status: KeyStatus): boolean {
  return status.error?.exitCode === ExitCode.network;
}

/**
 * How to replace a key that does not work. One from GIFTCODES_API_KEY or --api-key overrides the profile's: a new
 * login would change nothing until it is unset.
 */
function replaceKey(status: KeyStatus): string {
  if (status.source === 'GIFTCODES_API_KEY')
    return "the key in GIFTCODES_API_KEY overrides the profile's: set it to a key that works, or unset it to use the profile's";
  if (status.source === '--api-key') return "give --api-key a key that works, or leave it out to use the profile's";
  return `replace a key with: ${loginFor(status)}`;
}

function loginFor(status: KeyStatus): string {
  return `giftcodes login --profile ${status.profile} --env ${status.environment}`;
}

function row(
  profile: string,
  environment: KeyEnvironment,
  active: boolean,
  key: string | undefined,
  source: KeySource,
  baseUrl: string,
): KeyStatus {
  return {
    profile,
    environment,
    active,
    key: key ? maskKey(key) : null,
    source,
    baseUrl,
    resellerId: null,
    works: null,
  };
}

type Colors = App['io']['c'];

/** gh's layout: one block per profile, one line per key, its facts indented below (fits 80 columns). */
function text(
  c: Colors,
  statuses: readonly KeyStatus[],
  offline: boolean,
  baseUrlNote: (origin: BaseUrlOrigin) => { from: string; profile?: string },
  learned: ReadonlyMap<KeyStatus, string> = new Map(),
  columns?: number,
): string {
  // At a terminal a key's line longer than it is broken at its spaces, under its words (the terminal cut
  // `https://api.reseller-platf` / `orm.example…` at column 0: a person's day); a pipe or a file keeps one line.
  const fit = (line: string): string => (columns === undefined ? line : wrapWords(line, columns, 4, 4));
  const lines: string[] = [];
  let profile: string | undefined;
  for (const s of statuses) {
    if (s.profile !== profile || s.source === 'GIFTCODES_API_KEY' || s.source === '--api-key') {
      if (lines.length > 0) lines.push('');
      lines.push(
        c.bold(
          s.source === 'GIFTCODES_API_KEY' || s.source === '--api-key'
            ? `key from ${s.source} (profile "${s.profile}")`
            : `profile "${s.profile}"`,
        ),
      );
      profile = s.source === 'config file' || s.source === 'credential store' ? s.profile : undefined;
    }
    const mark = s.works === true ? c.green('✓') : s.works === false || s.error ? c.red('✗') : c.dim('-');
    const whose = s.resellerId ? `, reseller ${s.resellerId}` : '';
    const state =
      s.works === true
        ? `works${whose}`
        : s.error
          ? `${unchecked(s) ? 'not checked' : 'does not work'}: ${s.error.message}`
          : offline
            ? 'not checked (--offline)'
            : 'not checked';
    lines.push(`  ${mark} ${fit(`${s.environment} key ${s.key ?? '(missing)'}: ${state}`)}`);
    lines.push(`    - from: ${s.source}`);
    // Where the ping did not name the reseller now, the one login learned for this key there.
    const seen = learned.get(s);
    if (seen !== undefined && !(s.works === true && s.resellerId))
      lines.push(`    - reseller: ${seen} (as login learned it)`);
    const note = baseUrlNote(s);
    lines.push(`    - base URL: ${s.baseUrl}${note.from}`);
    if (note.profile) lines.push(`    - ${note.profile}`);
    if (s.active) lines.push('    - used by commands run now');
  }
  return lines.join('\n');
}
