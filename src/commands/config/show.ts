import type { Command } from 'commander';
import { exportResult } from '../../output/exporter.js';
import { maskKey, maskedKeys } from '../../secrets.js';
import { addVerb, type App } from '../app.js';
import type { Deps, GlobalOptions } from '../deps.js';
import { DEFAULT_HISTORY_DAYS } from '../../config/fields.js';
import { counted } from '../../output/words.js';

/** The profile and base URL the run names (flags; the environment and the config fill in the rest). */
export type ShowOptions = Pick<GlobalOptions, 'profile' | 'baseUrl'>;

export function register(parent: Command, app: App): void {
  const help = {
    description: 'show the profile in use: base URL, default environment, masked keys, the reseller login learned',
    examples: ['giftcodes config show', 'giftcodes config show --profile shop-eu --json'],
  };
  addVerb(parent, app, 'show', help, ({ globals, deps }) =>
    run({ profile: globals.profile, baseUrl: globals.baseUrl }, deps),
  );
}

export async function run(options: ShowOptions, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const [{ resolveProfileName, resolveBaseUrl, baseUrlOrigin, baseUrlNote, refuseUnsavedProfile }, store] =
    await Promise.all([import('../../config/resolve.js'), deps.config()]);
  const name = resolveProfileName(options, deps.io.env, store);
  // Any other name than the default shown empty would mislead.
  refuseUnsavedProfile(store, name, { create: true });
  const profile = store.profile(name);
  // The proxy only when the profile has one, and never its credentials.
  const proxy = profile.proxy ? (await import('../../api/transport.js')).displayProxy(profile.proxy) : undefined;
  const keys = maskedKeys(profile.keys);
  // The keys themselves, only to match each with the reseller login learned for it (never shown).
  const whole: { test?: string | undefined; live?: string | undefined } = { ...profile.keys };
  const storage = { test: store.keyLocation(name, 'test') ?? null, live: store.keyLocation(name, 'live') ?? null };
  // A key in the credential store is read (bounded by a timeout) only to show its last four characters.
  for (const env of ['test', 'live'] as const) {
    const account = profile.keyring?.[env];
    if (!account) continue;
    const { keyringGet } = await import('../../config/keyring.js');
    const key = await keyringGet(deps.io.env, account).catch((error: unknown) => {
      deps.io.warn(error instanceof Error ? error.message : String(error));
      return undefined;
    });
    if (key) deps.io.addSecret(key);
    whole[env] = key;
    keys[env] = key ? maskKey(key) : '(missing from the credential store)';
  }
  const shown = {
    profile: name,
    default: name === store.defaultProfile,
    baseUrl: resolveBaseUrl(options, deps.io.env, store, name),
    // GIFTCODES_BASE_URL in the shell, and what the profile holds when the variable overrides it (config list shows
    // the profile's alone): the two disagreed without a word (a person's day).
    ...baseUrlOrigin(options, deps.io.env, store, name),
    defaultEnv: profile.defaultEnv ?? 'test',
    keys,
    keyStorage: storage,
    ...(proxy ? { proxy } : {}),
    ...(profile.encryptTo?.length ? { encryptTo: profile.encryptTo } : {}),
    // Settable with config set, so shown: it was nowhere to be seen once set (a review).
    historyDays: profile.historyDays ?? DEFAULT_HISTORY_DAYS,
    configFile: store.path,
  };
  const { io } = deps;
  const none = io.c.dim('(none)');
  const reseller = await resellerWords(store, whole, shown.baseUrl);
  const note = baseUrlNote(shown);
  await exportResult(io, shown, {
    pager: false,
    text: () =>
      [
        `profile      ${shown.profile}${shown.default ? io.c.dim(' (default)') : ''}`,
        `base URL     ${shown.baseUrl}${note.from}`,
        ...(note.profile ? [`             ${note.profile}`] : []),
        `default env  ${shown.defaultEnv}`,
        `test key     ${shown.keys.test ?? none}${where(shown.keyStorage.test)}`,
        `live key     ${shown.keys.live ?? none}${where(shown.keyStorage.live)}`,
        ...(reseller ? [`reseller     ${reseller}`] : []),
        ...(proxy ? [`proxy        ${proxy}`] : []),
        ...(shown.encryptTo ? [`encrypt to   ${shown.encryptTo.join(' ')}`] : []),
        `history      ${counted(shown.historyDays, 'day')} of order records kept${profile.historyDays === undefined ? io.c.dim(' (the default)') : ''}`,
        `config file  ${shown.configFile}`,
      ].join('\n'),
  });
}

/**
 * The reseller login learned for the profile's keys at this base URL (the profile field `resellers`), for people:
 * `rs_demo`, or per key where they differ or only one is known (`rs_demo (test key)`). A support desk asked "whose
 * key is this?" had to ping for it, or read the config file. Undefined where login learned none. Not in --json.
 */
async function resellerWords(
  store: Awaited<ReturnType<Deps['config']>>,
  keys: { test?: string | undefined; live?: string | undefined },
  baseUrl: string,
): Promise<string | undefined> {
  const [{ keyIdOf }, { sameApi }] = await Promise.all([
    import('../../journal/intent.js'),
    import('../../config/same-api.js'),
  ]);
  const held = (['test', 'live'] as const).filter((env) => keys[env]);
  const learned = held.map((env) => ({ env, id: store.resellerOf(keyIdOf(keys[env]!), env, baseUrl, sameApi) }));
  const known = learned.filter((l): l is { env: 'test' | 'live'; id: string } => l.id !== undefined);
  if (known.length === 0) return undefined;
  if (known.length === held.length && known.every((l) => l.id === known[0]!.id)) return known[0]!.id;
  return known.map((l) => `${l.id} (${l.env} key)`).join(', ');
}

function where(location: 'keyring' | 'file' | null): string {
  if (location === 'keyring') return '  (in the credential store)';
  if (location === 'file') return '  (in the config file)';
  return '';
}
