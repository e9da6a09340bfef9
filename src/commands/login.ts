import type { Command } from 'commander';
import { pingFacts } from '../api/outcome.js';
import { AuthError, UsageError, isCliError } from '../errors.js';
import type { ConfigStore, ResellerSeen } from '../config/store.js';
import { pinnedHint } from '../output/pinned-hint.js';
import { exportResult } from '../output/exporter.js';
import { environmentOfKey, maskKey, otherEnvironment, type KeyEnvironment } from '../secrets.js';
import { examples, type App } from './app.js';
import type { Deps, GlobalOptions } from './deps.js';

/** Its own flags, and the profile, --env, --api-key and --base-url the run names. */
export interface LoginOptions extends Pick<GlobalOptions, 'profile' | 'env' | 'apiKey' | 'baseUrl'> {
  apiKeyStdin?: boolean;
  insecureStorage?: boolean;
  /** Save a key of another reseller than the profile's other key without asking. */
  force?: boolean;
}

type LoginDeps = Pick<Deps, 'io' | 'config' | 'clientFor'>;

const MAX_PROMPT_TRIES = 3;

/** A key the API accepted: its environment, its reseller as said (`unknown` where unnamed), and as stated, if it was. */
interface Verified {
  environment: KeyEnvironment;
  resellerId: string;
  stated?: string;
}

export function register(parent: Command, app: App): void {
  const command = parent
    .command('login')
    .description('store an API key in the profile, verified with ping first')
    .option('--api-key-stdin', 'read the key from stdin instead of prompting')
    .option('--insecure-storage', 'keep the key in the 0600 config file, not the credential store')
    .option('--force', "save a key of another reseller than the profile's other key without asking")
    .action(async (flags: Pick<LoginOptions, 'apiKeyStdin' | 'insecureStorage' | 'force'>, cmd: Command) => {
      const { globals, deps } = app.context(cmd);
      await run(
        { ...flags, profile: globals.profile, env: globals.env, apiKey: globals.apiKey, baseUrl: globals.baseUrl },
        deps,
      );
    });
  examples(command, [
    'giftcodes login',
    'giftcodes login --env live --profile shop-eu',
    'printf %s "$KEY" | giftcodes login --api-key-stdin --base-url "$API_URL"',
  ]);
}

export async function run(options: LoginOptions, deps: LoginDeps): Promise<void> {
  const [
    {
      resolveProfileName,
      resolveBaseUrl,
      baseUrlSetting,
      assertSafeTransport,
      refuseAllEnvironments,
      baseUrlWarning,
      envBaseUrlOverride,
    },
    store,
  ] = await Promise.all([import('../config/resolve.js'), deps.config()]);
  const profile = resolveProfileName(options, deps.io.env, store);
  const baseUrl = resolveBaseUrl(options, deps.io.env, store, profile);
  const wanted = refuseAllEnvironments(options.env);
  assertSafeTransport(baseUrl);
  // Login saves: a directory that cannot be made is said before the key is sent and before "stored" is said.
  store.makeDir();
  const v1 = baseUrlWarning(baseUrl);
  if (v1) deps.io.warn(v1);

  const verify = async (key: string): Promise<Verified> => {
    const environment = checkPrefix(key, wanted);
    // Login's own hint for a refused key: "save a valid one with giftcodes login" tells someone in login nothing.
    const refused = `the ${environment} key was refused by ${baseUrl}: check it was copied whole and is not revoked, and that it is a ${environment} key of that server (another server: --base-url <url>)`;
    const api = await deps.clientFor(
      baseUrl,
      key,
      undefined,
      refused,
      baseUrlSetting(options, deps.io.env, store, profile, { login: options.env ? `--env ${options.env}` : '' }),
    );
    const spinner = await deps.io.spinner(`verifying the key with ${baseUrl}`, { elapsed: true });
    try {
      const ping = await api.ping();
      const facts = pingFacts(ping);
      if (facts.known && facts.environment !== environment) {
        throw new AuthError(`the API says this key is for "${facts.environment}", but its prefix says ${environment}`, {
          code: 'environment_mismatch',
        });
      }
      // The reseller as the API named it, kept with the key (ResellerSeen); none where the ping named none.
      const stated = ping.resellerId ?? ping.reseller_id;
      return { environment, resellerId: facts.resellerId, ...(stated ? { stated } : {}) };
    } finally {
      spinner.stop();
    }
  };

  let key: string;
  let verified: Verified;
  const given = options.apiKey || (options.apiKeyStdin ? await readStdin(deps) : undefined);
  if (given !== undefined) {
    key = given;
    verified = await verify(key);
  } else {
    // A person at a terminal may mistype: ask again, up to a few times.
    for (let attempt = 1; ; attempt++) {
      key = (await deps.io.password(`API key${wanted ? ` (${wanted})` : ''}`, '--api-key-stdin')).trim();
      deps.io.addSecret(key);
      try {
        verified = await verify(key);
        break;
      } catch (error) {
        const retryable = isCliError(error) && (error.exitCode === 3 || error.exitCode === 2);
        if (!retryable || attempt >= MAX_PROMPT_TRIES) throw error;
        deps.io.errRaw(`${deps.io.ce.red('✗')} ${error.message}; try again\n`);
      }
    }
  }

  await checkSameReseller(deps, store, profile, baseUrl, verified, options.force === true);
  const explicitBaseUrl = Boolean(options.baseUrl || deps.io.env.GIFTCODES_BASE_URL);
  // The reseller the API stated for this key, kept beside it: another key of the same reseller (another profile, a
  // key rotated) is one wallet, and an order interrupted under one is not placed again under the other without a word
  // (a review: two keys of one reseller in two profiles, an interrupted order charged twice).
  const { keyIdOf } = await import('../journal/intent.js');
  const reseller = verified.stated !== undefined ? { id: verified.stated, keyId: keyIdOf(key), baseUrl } : undefined;
  const storage = await storeKey(
    deps,
    store,
    profile,
    verified.environment,
    key,
    explicitBaseUrl ? baseUrl : undefined,
    options.insecureStorage === true,
    reseller,
  );
  const result = {
    profile,
    environment: verified.environment,
    resellerId: verified.resellerId,
    key: maskKey(key),
    baseUrl,
    storage,
    configFile: store.path,
  };
  const { io } = deps;
  await exportResult(io, result, {
    text: () => {
      const where = storage === 'keyring' ? 'the credential store' : `the config file ${store.path}`;
      // The server it was verified against, and saved for the profile, is named: taken from GIFTCODES_BASE_URL left in
      // the shell (another session's server), it was saved without a word (a person's-day review).
      const server = explicitBaseUrl
        ? ` at ${baseUrl} (from ${options.baseUrl ? '--base-url' : 'GIFTCODES_BASE_URL'}, saved as the profile's base URL)`
        : ` at ${baseUrl}`;
      return `${io.c.green('✓')} saved the ${verified.environment} key ${result.key} for reseller ${verified.resellerId}${server} in profile "${profile}" (${where})`;
    },
    wrap: 2,
    notes: () => {
      const defaultEnv = store.profile(profile).defaultEnv ?? 'test';
      return defaultEnv === verified.environment
        ? []
        : [
            pinnedHint(
              `commands use the ${defaultEnv} key by default: add --env ${verified.environment}, or run: giftcodes config set default-env ${verified.environment}`,
              { configDir: io.env.GIFTCODES_CONFIG_DIR, ...(profile !== 'default' ? { profile } : {}) },
            ),
          ];
    },
  });
  // GIFTCODES_BASE_URL left in the shell wins over the base URL just saved (docs/global-options.md, "Precedence"):
  // the next command sent the key there, and status called it refused (a person's day). A variable that is no URL
  // is not this login's to refuse: the next command says so.
  const override = (() => {
    try {
      return envBaseUrlOverride({ profile }, deps.io.env, store, profile);
    } catch {
      return undefined;
    }
  })();
  if (override) {
    io.warn(
      `GIFTCODES_BASE_URL (${override.used}) overrides the profile's base URL (${override.saved}) in every command run with it: unset it, or set it to ${override.saved}`,
    );
  }
}

/**
 * A profile's test and live keys belong to one reseller: a key of another one is most likely pasted into the
 * wrong profile. Warned naming both; a person at a terminal is asked (default no), elsewhere --force says so.
 * The other key is read and pinged once; when it cannot be (missing, refused, offline) there is nothing to compare.
 */
async function checkSameReseller(
  deps: LoginDeps,
  store: ConfigStore,
  profile: string,
  baseUrl: string,
  verified: Verified,
  force: boolean,
): Promise<void> {
  const other = otherEnvironment(verified.environment);
  const stored = store.profile(profile);
  let otherKey = stored.keys?.[other];
  if (!otherKey && stored.keyring?.[other]) {
    const { keyringGet } = await import('../config/keyring.js');
    otherKey = await keyringGet(deps.io.env, stored.keyring[other]).catch(() => undefined);
  }
  if (!otherKey || environmentOfKey(otherKey) !== other) return;
  deps.io.addSecret(otherKey);
  let otherReseller: string;
  try {
    otherReseller = pingFacts(await (await deps.clientFor(baseUrl, otherKey, 0)).ping()).resellerId;
  } catch {
    return;
  }
  if (!otherReseller || otherReseller === verified.resellerId) return;
  const what = `this ${verified.environment} key belongs to reseller ${verified.resellerId}, but the ${other} key of profile "${profile}" belongs to reseller ${otherReseller}`;
  if (force) {
    deps.io.warn(`${what}; saved anyway (--force)`);
    return;
  }
  if (!deps.io.canPrompt) {
    throw new UsageError(what, {
      code: 'reseller_mismatch',
      hint: `save it in another profile (--profile <name>), or pass --force to save it in "${profile}" anyway`,
    });
  }
  deps.io.warn(what);
  if (!(await deps.io.confirm(`Save it in profile "${profile}" anyway?`, '--force', 'a key of another reseller'))) {
    throw new UsageError('the key was not saved', {
      code: 'reseller_mismatch',
      hint: 'save it in another profile with: giftcodes login --profile NAME',
    });
  }
}

/**
 * Into the credential store when one is usable (live keys and test keys alike); into the 0600 config file
 * with --insecure-storage, or, said plainly on stderr, when no store is usable or it failed.
 */
async function storeKey(
  deps: LoginDeps,
  store: ConfigStore,
  profile: string,
  environment: KeyEnvironment,
  key: string,
  baseUrl: string | undefined,
  insecure: boolean,
  reseller: ResellerSeen | undefined,
): Promise<'keyring' | 'file'> {
  if (!insecure) {
    const { keyringStatus, keyringSet, keyringAccount } = await import('../config/keyring.js');
    const status = await keyringStatus(deps.io.env);
    let reason = status.usable ? '' : status.reason;
    if (status.usable) {
      const account = keyringAccount(profile, environment);
      try {
        await keyringSet(deps.io.env, account, key);
        await store.setKeyringReference(profile, environment, account, baseUrl, reseller);
        return 'keyring';
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
    }
    deps.io.warn(
      `no usable credential store (${reason}): the key is stored in the config file ${store.path} (mode 0600)`,
    );
  }
  await store.setKey(profile, environment, key, baseUrl, reseller);
  return 'file';
}

function checkPrefix(key: string, wanted: KeyEnvironment | undefined): KeyEnvironment {
  const environment = environmentOfKey(key);
  // The key itself is never echoed back: it may be a real key with a typo.
  if (environment && !/^sc_(test|live)_[A-Za-z0-9_]{8,}$/.test(key)) {
    // The prefix is right: saying what a key starts with would point at the wrong part.
    throw new UsageError(
      `that does not look like a whole API key: after sc_${environment}_ come at least 8 letters, digits or _, and nothing else`,
      {
        code: 'invalid_api_key_format',
        hint: 'copy the whole key from the dashboard, without spaces or quotes',
      },
    );
  }
  if (!environment) {
    throw new UsageError(
      'that does not look like an API key: it must be sc_test_ or sc_live_ followed by letters, digits and _',
      {
        code: 'invalid_api_key_format',
        hint: 'copy the whole key from the dashboard',
      },
    );
  }
  if (wanted && wanted !== environment) {
    throw new UsageError(`a ${environment} key cannot be saved as the ${wanted} key`, {
      code: 'environment_mismatch',
      hint: `use a sc_${wanted}_ key, or drop --env`,
    });
  }
  return environment;
}

async function readStdin(deps: LoginDeps): Promise<string> {
  if (deps.io.stdinIsTTY) {
    throw new UsageError('--api-key-stdin reads the key from a pipe, but stdin is a terminal', {
      hint: 'printf %s "$KEY" | giftcodes login --api-key-stdin',
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of deps.io.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > 4096) throw new UsageError('stdin holds more than an API key', { hint: 'pipe just the key' });
    chunks.push(buffer);
  }
  const key = Buffer.concat(chunks).toString('utf8').trim();
  if (key === '')
    throw new UsageError('stdin was empty: no key to save', {
      hint: 'printf %s "$KEY" | giftcodes login --api-key-stdin',
    });
  deps.io.addSecret(key);
  return key;
}
