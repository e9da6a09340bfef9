// Which key, environment and base URL a command uses: flag, then environment variable, then profile, then default.
import { existsSync } from 'node:fs';
import { AuthError, UsageError } from '../errors.js';
import { environmentOfKey, otherEnvironment, type KeyEnvironment } from '../secrets.js';
import type { ConfigStore } from './store.js';
import { profileName } from '../commands/parse.js';
import { isLoopbackHost } from './same-api.js';

/**
 * An environment asked for against a key given for the run (--api-key, GIFTCODES_API_KEY) of the other one, exit 3
 * as the exit table's environment mismatch (docs/exit-codes.md; a cron wrapper read exit 2 as a mistyped flag): which
 * key it is and where it came from travel with the error, for a caller to say it in its own terms (orders/ref.ts,
 * reading an order placed in the environment the key is not for).
 */
export class EnvironmentConflict extends AuthError {
  constructor(
    wanted: string,
    readonly keyEnvironment: string,
    readonly keyFrom: 'GIFTCODES_API_KEY' | '--api-key',
  ) {
    super(`--env ${wanted} conflicts with the ${keyEnvironment} key in ${keyFrom}`, {
      code: 'environment_conflict',
      hint: `drop --env, or use a sc_${wanted}_ key`,
    });
  }
}

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';

export interface ConnectionFlags {
  profile?: string | undefined;
  env?: KeyEnvironment | 'all' | undefined;
  apiKey?: string | undefined;
  baseUrl?: string | undefined;
}

export interface Connection {
  profile: string;
  environment: KeyEnvironment;
  apiKey: string;
  baseUrl: string;
  /** Where the key came from, for error hints. */
  keySource: 'flag' | 'environment' | 'profile' | 'keyring';
  /** Where the base URL was set, as a hint names it (baseUrlSetting); --base-url when not said. */
  baseUrlFrom?: string;
  /** GIFTCODES_BASE_URL used instead of the profile's own base URL, which names another server (envBaseUrlOverride). */
  baseUrlOverride?: BaseUrlOverride;
  /** With keySource 'keyring': the credential-store account; apiKey is empty until loadStoredKey fills it. */
  keyringAccount?: string;
  /**
   * The reseller `login` learned for this key at this API (ConfigStore.resellerOf), once the key is read (withReseller);
   * undefined where none was learned (a key never logged in with, a ping that named none, a config from before).
   */
  resellerId?: string;
}

/** Fills in a key kept in the credential store (loading the native module only now), bounded by a timeout. */
export async function loadStoredKey(connection: Connection, env: NodeJS.ProcessEnv): Promise<Connection> {
  if (connection.keySource !== 'keyring' || connection.apiKey !== '' || !connection.keyringAccount) return connection;
  const { keyringGet } = await import('./keyring.js');
  const apiKey = await keyringGet(env, connection.keyringAccount);
  if (!apiKey || environmentOfKey(apiKey) !== connection.environment) {
    throw new AuthError(
      `the ${connection.environment} key of profile "${connection.profile}" is missing from the credential store`,
      {
        code: 'no_api_key',
        hint: `run: giftcodes login --profile ${connection.profile} --env ${connection.environment}`,
      },
    );
  }
  return { ...connection, apiKey };
}

/**
 * The connection with the reseller login learned for its key at its API, in any profile of the config (a key given in
 * GIFTCODES_API_KEY that a profile holds too). Read once the key is (loadStoredKey).
 */
export async function withReseller(connection: Connection, store: ConfigStore): Promise<Connection> {
  if (connection.apiKey === '') return connection;
  const [{ keyIdOf }, { sameApi }] = await Promise.all([import('../journal/intent.js'), import('./same-api.js')]);
  const resellerId = store.resellerOf(keyIdOf(connection.apiKey), connection.environment, connection.baseUrl, sameApi);
  return resellerId === undefined ? connection : { ...connection, resellerId };
}

/** `--env all` names both keys: only logout takes it. */
export function refuseAllEnvironments(env: KeyEnvironment | 'all' | undefined): KeyEnvironment | undefined {
  if (env === 'all') throw new UsageError('--env all goes only with logout', { hint: 'use --env test or --env live' });
  return env;
}

export function resolveProfileName(flags: ConnectionFlags, env: NodeJS.ProcessEnv, store: ConfigStore): string {
  return flags.profile || envProfile(env) || store.defaultProfile;
}

/**
 * GIFTCODES_PROFILE, held to --profile's rule (commands/parse.ts profileName): `a b` made a profile no flag could
 * name, whose hints (`login --profile a b`) failed when pasted, and `__proto__` a config entry no read could find.
 */
export function envProfile(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.GIFTCODES_PROFILE;
  if (!value) return undefined;
  try {
    return profileName(value);
  } catch (error) {
    throw new UsageError(`GIFTCODES_PROFILE: ${(error as Error).message}`, {
      code: 'invalid_profile',
      hint: 'set GIFTCODES_PROFILE to a profile name (giftcodes config show lists them), or unset it',
    });
  }
}

export function resolveBaseUrl(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  profile: string,
): string {
  return normaliseBaseUrl(
    flags.baseUrl || env.GIFTCODES_BASE_URL || store.profile(profile).baseUrl || DEFAULT_BASE_URL,
  );
}

/** The base URL GIFTCODES_BASE_URL gives a run (`used`), and the profile's own, another one (`saved`). */
export interface BaseUrlOverride {
  used: string;
  saved: string;
}

/**
 * GIFTCODES_BASE_URL (no --base-url) naming another server than the profile's saved base URL. The variable wins
 * (docs/global-options.md, "Precedence"), unseen: left in a shell from the serve banner, it had status call the
 * profile's working key refused, and say to replace it (a person's day). Commands say it; they do not change it.
 */
export function envBaseUrlOverride(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  profile: string,
): BaseUrlOverride | undefined {
  const saved = store.profile(profile).baseUrl;
  if (flags.baseUrl || !env.GIFTCODES_BASE_URL || !saved) return undefined;
  const used = resolveBaseUrl(flags, env, store, profile);
  return used === sameForm(saved) ? undefined : { used, saved };
}

/** A saved base URL as resolveBaseUrl gives it (a config file edited by hand may end in /), else as it is. */
function sameForm(baseUrl: string): string {
  try {
    return normaliseBaseUrl(baseUrl);
  } catch {
    return baseUrl;
  }
}

/**
 * Where a base URL a command shows (status, config show) came from when GIFTCODES_BASE_URL gave it, and the profile's
 * own when that differs: fields their --json keeps, and baseUrlNote says. Nothing for a flag or the profile's.
 */
export interface BaseUrlOrigin {
  baseUrlFrom?: 'GIFTCODES_BASE_URL';
  profileBaseUrl?: string;
}

export function baseUrlOrigin(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  profile: string,
): BaseUrlOrigin {
  if (flags.baseUrl || !env.GIFTCODES_BASE_URL) return {};
  const override = envBaseUrlOverride(flags, env, store, profile);
  return { baseUrlFrom: 'GIFTCODES_BASE_URL', ...(override ? { profileBaseUrl: override.saved } : {}) };
}

/**
 * baseUrlOrigin in words: after the base URL, where it came from; on a line of its own, the profile's it overrides
 * (one line held both, past 80 columns, which status keeps to).
 */
export function baseUrlNote(origin: BaseUrlOrigin): { from: string; profile?: string } {
  if (!origin.baseUrlFrom) return { from: '' };
  const from = ` (from ${origin.baseUrlFrom})`;
  return origin.profileBaseUrl ? { from, profile: `the profile's: ${origin.profileBaseUrl}, overridden` } : { from };
}

/** First in the hint of a profile's key refused at the base URL GIFTCODES_BASE_URL gives: `login` saves another. */
export function overrideHint(override: BaseUrlOverride, login: string): string {
  return `GIFTCODES_BASE_URL (${override.used}) overrides the profile's base URL (${override.saved}): unset it to use the profile's, or save a key of ${override.used} with: ${login}`;
}

/**
 * Where the base URL in use was set, in the words a hint uses to say what to check: the flag, the variable (a
 * cron job's GIFTCODES_BASE_URL is not fixed by a --base-url it never passed), or the profile's field and the
 * command that changes it. The default is changed with --base-url.
 */
export function baseUrlSetting(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
  store: ConfigStore,
  profile: string,
  /**
   * Of a login (its flags to keep, `--env live`, or ''): it saves the base URL it is given, so its own --base-url is
   * the way on.
   */
  o: { login?: string } = {},
): string {
  if (flags.baseUrl) return '--base-url';
  if (env.GIFTCODES_BASE_URL) return 'GIFTCODES_BASE_URL';
  const profileFlag = profile === store.defaultProfile ? '' : ` --profile ${profile}`;
  if (store.profile(profile).baseUrl)
    return `the base URL of profile "${profile}" (giftcodes config set base-url URL${profileFlag})`;
  // None saved: the default was used. A profile logged in without --base-url beside one that has it tried 4010, and
  // its hint said only "check --base-url" (a person's day); another profile's base URL is named, as the likely one.
  const other = store
    .profileNames()
    .map((name) => ({ name, baseUrl: store.profile(name).baseUrl }))
    .find((p) => p.name !== profile && p.baseUrl);
  // Of a login, its own --base-url, which saves it: a reseller's first login against their server was told to run
  // config set first (a person's day).
  const change =
    o.login !== undefined
      ? `giftcodes login --base-url URL${o.login ? ` ${o.login}` : ''}${profileFlag}`
      : `giftcodes config set base-url URL${profileFlag}`;
  return `--base-url (profile "${profile}" has none saved, so ${DEFAULT_BASE_URL} was used${other ? `; profile "${other.name}" uses ${other.baseUrl}` : ''}: ${change})`;
}

/**
 * ` --insecure-storage` where this run has no credential store to read (Linux without a D-Bus session: cron, a
 * service), else nothing: the login a hint names must save the key where this run finds it; a desktop login put it
 * in the store, and the job still found none, or its refused key was never replaced for it (reviews).
 */
export function storageFlag(env: NodeJS.ProcessEnv): string {
  return process.platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS ? ' --insecure-storage' : '';
}

/**
 * A config directory GIFTCODES_CONFIG_DIR names that is not there, said where a key was looked for: likelier a typo
 * than a key never saved, and a login as told stored the key into the typo (a desk review). `what`: what was not found
 * (`no test key`); `login`: the login command its hint offers. Undefined where the directory is there or not named.
 */
export function configDirMissing(
  env: NodeJS.ProcessEnv,
  store: Pick<ConfigStore, 'dir'>,
  what: string,
  login: string,
): AuthError | undefined {
  if (!env.GIFTCODES_CONFIG_DIR || existsSync(store.dir)) return undefined;
  return new AuthError(`${what}: the config directory ${store.dir} does not exist`, {
    code: 'no_api_key',
    hint: `check GIFTCODES_CONFIG_DIR for a typo; else set GIFTCODES_API_KEY, or run: ${login}`,
  });
}

/**
 * A profile named by --profile or GIFTCODES_PROFILE that is not saved (a typo): the error every command that reads
 * its key gives, and status after its table. The profiles saved, never the missing one (profileNames adds the
 * default profile, saved or not: the hint read `no profile named "default"` … `(profiles: default)`). An order placed
 * with a key given for its run is recorded under the run's profile, which may not be saved: that key, given again,
 * reads it (a support review).
 */
export function profileNotFound(profile: string, store: ConfigStore): AuthError {
  const saved = store.profileNames().filter((name) => store.hasProfile(name));
  return new AuthError(`no profile named "${profile}" in ${store.dir}`, {
    code: 'profile_not_found',
    hint: `create it with: giftcodes login --profile ${profile}${saved.length > 0 ? ` (profiles here: ${saved.join(', ')})` : ' (no profile is saved here)'}; or give the key for this run in GIFTCODES_API_KEY`,
  });
}

/**
 * A profile a command shows or changes (config show, config unset, logout), refused when it is not saved: the default
 * one exists implicitly (a fresh install); any other name, a typo, must not read as empty or as "nothing to remove".
 * `after`: what the refusal adds to "no profile named …"; `create`: the hint offers its login.
 */
export function refuseUnsavedProfile(
  store: ConfigStore,
  profile: string,
  o: { after?: string; create?: boolean } = {},
): void {
  if (profile === store.defaultProfile || store.hasProfile(profile)) return;
  throw new UsageError(`no profile named "${profile}"${o.after ?? ''}`, {
    hint: `profiles: ${store.profileNames().join(', ')}${o.create ? `; create one with: giftcodes login --profile ${profile}` : ''}`,
  });
}

export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv, store: ConfigStore): Connection {
  const wantedEnv = refuseAllEnvironments(flags.env);
  const profile = resolveProfileName(flags, env, store);
  const explicitProfile = Boolean(flags.profile || envProfile(env));
  const baseUrl = resolveBaseUrl(flags, env, store, profile);
  const baseUrlFrom = baseUrlSetting(flags, env, store, profile);
  const baseUrlOverride = envBaseUrlOverride(flags, env, store, profile);

  const givenKey = flags.apiKey || env.GIFTCODES_API_KEY;
  if (givenKey) {
    const keySource = flags.apiKey ? 'flag' : 'environment';
    const where = keySource === 'flag' ? '--api-key' : 'GIFTCODES_API_KEY';
    // A key read from a file saved with Windows line endings ends in a carriage return: HTTP allows none in a header,
    // so the request was never sent, yet each attempt failed as if the network had, and the order was left "may have
    // been placed" (a review). Said here, before anything is sent, without the key.
    const stray = /[^\x21-\x7e]/.exec(givenKey)?.[0];
    if (stray !== undefined) {
      throw new AuthError(
        `the key in ${where} holds ${stray === '\r' ? 'a carriage return' : stray === '\n' ? 'a line break' : /\s/.test(stray) ? 'a space' : `the character U+${stray.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`}, which no API key has`,
        {
          code: 'invalid_api_key_format',
          hint:
            stray === '\r'
              ? `a key file saved with Windows line endings ends so: strip it (tr -d '\\r' < key.txt) before setting ${where}`
              : 'copy the whole key from the dashboard, and nothing around it',
        },
      );
    }
    const keyEnv = environmentOfKey(givenKey);
    if (!keyEnv) {
      throw new AuthError(
        `the key in ${where} does not look like an API key (it must begin with sc_test_ or sc_live_)`,
        {
          code: 'invalid_api_key_format',
          hint: 'copy the whole key from the dashboard',
        },
      );
    }
    if (wantedEnv && wantedEnv !== keyEnv) throw new EnvironmentConflict(wantedEnv, keyEnv, where);
    return checked({ profile, environment: keyEnv, apiKey: givenKey, baseUrl, baseUrlFrom, keySource });
  }

  if (explicitProfile && !store.hasProfile(profile)) throw profileNotFound(profile, store);
  const stored = store.profile(profile);
  const environment: KeyEnvironment = wantedEnv ?? stored.defaultEnv ?? 'test';
  const apiKey = stored.keys?.[environment];
  const keyringAccount = stored.keyring?.[environment];
  if (!apiKey && keyringAccount) {
    return checked({
      profile,
      environment,
      apiKey: '',
      baseUrl,
      baseUrlFrom,
      baseUrlOverride,
      keySource: 'keyring',
      keyringAccount,
    });
  }
  if (!apiKey) {
    const profileFlag = profile === store.defaultProfile ? '' : ` --profile ${profile}`;
    // A run with no D-Bus session (cron, a service) cannot read a key a desktop login put in the credential store:
    // the login it is told to run keeps the key in the config file (a review logged in as told, and the job still
    // found no key).
    const login = `giftcodes login${profileFlag} --env ${environment}${storageFlag(env)}`;
    // No --env given, and the profile holds the other one's key (a live-only cron directory, `doctor` run there
    // by hand): that key is the likely one, named first (a person's day read "FAIL key no test key").
    const other = otherEnvironment(environment);
    const holdsOther = wantedEnv === undefined && (stored.keys?.[other] ?? stored.keyring?.[other]) !== undefined;
    if (!explicitProfile) {
      const missing = configDirMissing(env, store, `no ${environment} key`, login);
      if (missing) throw missing;
    }
    throw new AuthError(`no ${environment} key in profile "${profile}"`, {
      code: 'no_api_key',
      hint: holdsOther
        ? `the profile holds a ${other} key: add --env ${other}, or make ${other} its default (giftcodes config set default-env ${other}${profileFlag}); for a ${environment} key: ${login}`
        : `set GIFTCODES_API_KEY, or run: ${login}`,
    });
  }
  if (environmentOfKey(apiKey) !== environment) {
    throw new AuthError(`the ${environment} key stored in profile "${profile}" is not a ${environment} key`, {
      code: 'environment_mismatch',
      hint: `run: giftcodes login --profile ${profile} --env ${environment}`,
    });
  }
  return checked({ profile, environment, apiKey, baseUrl, baseUrlFrom, baseUrlOverride, keySource: 'profile' });
}

function checked(connection: Connection): Connection {
  assertSafeTransport(connection.baseUrl);
  return connection;
}

/**
 * The client puts /v1 before every path itself (/v1/ping, /v1/orders): a base URL that already ends in /v1
 * sends /v1/v1/ping, which a server answers 404. Said as a warning with the URL to use instead.
 */
export function baseUrlWarning(baseUrl: string): string | undefined {
  if (!/\/v1$/i.test(baseUrl)) return undefined;
  return `the base URL ${baseUrl} ends in /v1, but the client adds the /v1 prefix itself (requests would go to ${baseUrl}/v1/…): use --base-url ${baseUrl.replace(/\/v1$/i, '')}`;
}

export function normaliseBaseUrl(raw: string): string {
  // `127.0.0.1:4010` or `localhost:4010` (no scheme: the second reads as the scheme `localhost:`) is said with the
  // URLs it likely meant, built from what was typed; http first for this machine, as the reference server speaks it.
  const schemeless = !raw.includes('//') && /^[\w.-]+(?::\d+)?(?:\/|$)/.test(raw);
  const withScheme = (): string => {
    const host = /^[^:/]+/.exec(raw)?.[0] ?? '';
    const [first, second] = isLoopbackHost(host) ? ['http', 'https'] : ['https', 'http'];
    return `add the scheme: ${first}://${raw}, or ${second}://${raw}`;
  };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the base URL "${raw}" is not a valid URL`, {
      code: 'invalid_base_url',
      hint: schemeless ? withScheme() : 'for example: --base-url https://api.example.com',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`the base URL must use http or https, not ${url.protocol}`, {
      code: 'invalid_base_url',
      hint: schemeless ? withScheme() : 'the API speaks HTTPS: for example --base-url https://api.example.com',
    });
  }
  if (url.username || url.password) {
    throw new UsageError('the base URL must not carry credentials', {
      code: 'invalid_base_url',
      hint: 'leave out the user and password: the API key is what signs in (giftcodes login)',
    });
  }
  url.search = '';
  url.hash = '';
  return url.toString().replace(/\/+$/, '');
}

/** A key never travels over plain http except to this machine. */
export function assertSafeTransport(baseUrl: string): void {
  const url = new URL(baseUrl);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new AuthError(`refusing to send an API key over plain http to ${url.host}`, {
      code: 'insecure_base_url',
      hint: `use https://${url.host}${url.pathname === '/' ? '' : url.pathname}`,
    });
  }
}
