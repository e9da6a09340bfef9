// Profiles on disk (conf, 0600 in a 0700 directory), parsed once into plain types.
// Reading is plain JSON, read as conf reads it; conf (with the JSON-schema compiler it loads) is imported
// only to write: most commands just read a profile, and loading conf cost them about 20 ms.
import { existsSync, readFileSync, statSync } from 'node:fs';
import type Conf from 'conf';
import { AuthError, LocalError, UsageError } from '../errors.js';
import { localError } from '../files/atomic.js';
import { environmentOfKey, type KeyEnvironment } from '../secrets.js';
import { defaultEnvironment, type SettableField } from './fields.js';
import { checkOwnership, configFile, ensurePrivateDir } from './paths.js';

export interface Profile {
  baseUrl?: string | undefined;
  defaultEnv?: KeyEnvironment | undefined;
  /** A forward proxy for this profile's API, used when HTTPS_PROXY/HTTP_PROXY are unset. */
  proxy?: string | undefined;
  /** Days the local order record keeps an ended order (default 90). */
  historyDays?: number | undefined;
  /** age recipients every codes file of this profile is encrypted to (docs/codes-and-exports.md). */
  encryptTo?: string[] | undefined;
  keys?: { test?: string | undefined; live?: string | undefined } | undefined;
  /** Keys kept in the credential store: the account each is filed under (a reference, never the key). */
  keyring?: { test?: string | undefined; live?: string | undefined } | undefined;
  /**
   * The reseller the API stated for the profile's key of each environment when `login` verified it (ResellerSeen):
   * two keys of one reseller are one wallet, so an order interrupted under one is not placed again under the other
   * (docs/exactly-once.md). Absent in configs written before, and for a key whose ping named no reseller.
   */
  resellers?: { test?: ResellerSeen | undefined; live?: ResellerSeen | undefined } | undefined;
}

/** The reseller a ping stated for a key: bound to that key (by its id, never the key) and the address it was asked at. */
export interface ResellerSeen {
  /** The reseller id the API answered `ping` with. */
  id: string;
  /** The key's id (journal/intent.ts keyIdOf): the entry speaks for that key only, not one saved since without login. */
  keyId: string;
  /** The base URL the ping went to: the same reseller id on another server is another reseller. */
  baseUrl: string;
}

export interface ConfigData {
  defaultProfile?: string | undefined;
  profiles?: Record<string, Profile> | undefined;
}

export const DEFAULT_PROFILE = 'default';

export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  readonly warnings: readonly string[];
  private conf: Conf<ConfigData> | undefined;
  private data: ConfigData;

  private constructor(dir: string, path: string, data: ConfigData, warnings: string[]) {
    this.dir = dir;
    this.path = path;
    this.data = data;
    this.warnings = warnings;
  }

  /**
   * Reads and checks the config file in `dir` (none yet is an empty config). A directory that is not there is
   * read as empty and made only by what writes into it (save, the journal, the catalog cache): a mistyped
   * GIFTCODES_CONFIG_DIR with the key in GIFTCODES_API_KEY left an empty directory behind every command.
   */
  static async open(dir: string): Promise<ConfigStore> {
    const path = configFile(dir);
    const warnings: string[] = [];
    const dirWarning = existsSync(dir) ? ensurePrivateDir(dir) : undefined;
    if (dirWarning) warnings.push(dirWarning);
    let stored: unknown;
    try {
      const stats = statSync(path, { throwIfNoEntry: false });
      // A local resource, exit 8 (docs/exit-codes.md): a directory where the file should be, or a file this user
      // may not read. Both read as a config to fix with login (exit 3), which cannot mend either.
      if (stats && !stats.isFile())
        throw new LocalError(`the config file ${path} is not a regular file`, {
          code: 'config_unreadable',
          hint: `move it away, then run: giftcodes login`,
        });
      if (stats) {
        const fileWarning = checkOwnership(path, stats, 'config file');
        if (fileWarning) warnings.push(fileWarning);
      }
      stored = stats ? readStored(path) : {};
    } catch (error) {
      if (error instanceof LocalError) throw error;
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno === 'EACCES' || errno === 'EPERM')
        throw new LocalError(`cannot read the config file ${path}: permission denied (${errno})`, {
          code: 'config_unreadable',
          hint: `run: chmod 600 ${path}`,
          cause: error,
        });
      throw new AuthError(`cannot read the config file ${path}: ${shortReason(error)}`, {
        code: 'config_invalid',
        hint: `fix or remove ${path}, then run: giftcodes login`,
        cause: error,
      });
    }
    return new ConfigStore(dir, path, plainConfig(stored) ?? (await checkedConfig(stored, path)), warnings);
  }

  get defaultProfile(): string {
    return this.data.defaultProfile ?? DEFAULT_PROFILE;
  }

  profileNames(): string[] {
    const names = Object.keys(this.data.profiles ?? {});
    if (!names.includes(this.defaultProfile)) names.unshift(this.defaultProfile);
    return names;
  }

  hasProfile(name: string): boolean {
    return Object.hasOwn(this.data.profiles ?? {}, name);
  }

  profile(name: string): Profile {
    return this.data.profiles?.[name] ?? {};
  }

  /**
   * Saves the profile's key for `env` in the file; `reseller`, the reseller its ping stated (login), replaces what was
   * known of the old key's, and none forgets it.
   */
  async setKey(
    profileName: string,
    env: KeyEnvironment,
    key: string,
    baseUrl?: string,
    reseller?: ResellerSeen,
  ): Promise<void> {
    if (environmentOfKey(key) !== env) throw new UsageError(`a ${env} key must begin with sc_${env}_`);
    await this.updateProfile(profileName, (profile) => {
      const keyring = { ...profile.keyring };
      delete keyring[env];
      return withReseller(
        { ...profile, ...(baseUrl ? { baseUrl } : {}), keys: { ...profile.keys, [env]: key }, keyring },
        env,
        reseller,
      );
    });
  }

  /** Records that the profile's key for `env` is in the credential store under `account`; the file keeps no key. */
  async setKeyringReference(
    profileName: string,
    env: KeyEnvironment,
    account: string,
    baseUrl?: string,
    reseller?: ResellerSeen,
  ): Promise<void> {
    await this.updateProfile(profileName, (profile) => {
      const keys = { ...profile.keys };
      delete keys[env];
      return withReseller(
        { ...profile, ...(baseUrl ? { baseUrl } : {}), keys, keyring: { ...profile.keyring, [env]: account } },
        env,
        reseller,
      );
    });
  }

  /**
   * The reseller login learned for the key `keyId` of `env` at the API of `baseUrl` (`sameApi`), in any profile of this
   * config (a key given in GIFTCODES_API_KEY that a profile holds too); undefined where none was learned.
   */
  resellerOf(
    keyId: string,
    env: KeyEnvironment,
    baseUrl: string,
    sameApi: (a: string, b: string) => boolean,
  ): string | undefined {
    for (const profile of Object.values(this.data.profiles ?? {})) {
      const seen = profile.resellers?.[env];
      if (seen !== undefined && seen.keyId === keyId && sameApi(seen.baseUrl, baseUrl)) return seen.id;
    }
    return undefined;
  }

  /** Where the profile's key for `env` lives, if anywhere. */
  keyLocation(profileName: string, env: KeyEnvironment): 'keyring' | 'file' | undefined {
    const profile = this.profile(profileName);
    if (profile.keyring?.[env] !== undefined) return 'keyring';
    return profile.keys?.[env] !== undefined ? 'file' : undefined;
  }

  async removeKeys(profileName: string, envs: readonly KeyEnvironment[]): Promise<KeyEnvironment[]> {
    const keys = { ...this.profile(profileName).keys };
    const keyring = { ...this.profile(profileName).keyring };
    const removed = envs.filter((env) => keys[env] !== undefined || keyring[env] !== undefined);
    for (const env of envs) {
      delete keys[env];
      delete keyring[env];
    }
    if (removed.length > 0)
      await this.updateProfile(profileName, (profile) =>
        envs.reduce<Profile>((kept, env) => withReseller(kept, env, undefined), { ...profile, keys, keyring }),
      );
    return removed;
  }

  async setField(profileName: string, field: SettableField, value: string): Promise<void> {
    await this.updateProfile(profileName, (profile) =>
      field === 'base-url'
        ? { ...profile, baseUrl: value }
        : field === 'proxy'
          ? { ...profile, proxy: value }
          : field === 'history-days'
            ? { ...profile, historyDays: Number(value) }
            : field === 'encrypt-to'
              ? withEncryptTo(profile, value)
              : { ...profile, defaultEnv: defaultEnvironment(value) },
    );
  }

  /** Removes a field from the profile (its default applies again); false when it was not set, and nothing is written. */
  async unsetField(profileName: string, field: SettableField): Promise<boolean> {
    const property = PROPERTY_OF[field];
    if (this.profile(profileName)[property] === undefined) return false;
    await this.updateProfile(profileName, (profile) => {
      const copy = { ...profile };
      delete copy[property];
      return copy;
    });
    return true;
  }

  async useProfile(name: string): Promise<void> {
    this.data = { ...this.data, defaultProfile: name };
    await this.save();
  }

  private async updateProfile(name: string, change: (profile: Profile) => Profile): Promise<void> {
    const profiles = { ...this.data.profiles, [name]: change(this.profile(name)) };
    this.data = { ...this.data, profiles };
    await this.save();
  }

  /** Makes the config directory (0700) where it is missing, or throws exit 8: what a command that will save asks first. */
  makeDir(): void {
    ensurePrivateDir(this.dir);
  }

  private async save(): Promise<void> {
    this.makeDir();
    try {
      if (!this.conf) {
        const { default: Conf } = await import('conf');
        this.conf = new Conf<ConfigData>({
          cwd: this.dir,
          configName: 'config',
          projectName: 'giftcodes',
          configFileMode: 0o600,
          clearInvalidConfig: false,
          accessPropertiesByDotNotation: false,
        });
      }
      this.conf.store = this.data;
    } catch (error) {
      // The disk refused (full, read-only, permission): a local resource failed (exit 8), not the configuration.
      if (typeof (error as NodeJS.ErrnoException).code === 'string')
        throw localError(error, this.path, 'config file', 'config_unwritable');
      throw new AuthError(`cannot write the config file ${this.path}: ${shortReason(error)}`, {
        code: 'config_unwritable',
        cause: error,
      });
    }
  }
}

/** Where each settable field is kept in a profile. */
const PROPERTY_OF = {
  'base-url': 'baseUrl',
  'default-env': 'defaultEnv',
  'encrypt-to': 'encryptTo',
  'history-days': 'historyDays',
  proxy: 'proxy',
} as const satisfies Record<SettableField, keyof Profile>;

/** The profile with `reseller` as its key's of `env` (none: forgotten; the field goes once it holds nothing). */
function withReseller(profile: Profile, env: KeyEnvironment, reseller: ResellerSeen | undefined): Profile {
  const { resellers: old, ...rest } = profile;
  const resellers = { ...old };
  delete resellers[env];
  if (reseller !== undefined) resellers[env] = { id: reseller.id, keyId: reseller.keyId, baseUrl: reseller.baseUrl };
  return Object.keys(resellers).length > 0 ? { ...rest, resellers } : rest;
}

/** `encrypt-to none` removes the setting; otherwise the recipients, separated by commas or spaces. */
function withEncryptTo(profile: Profile, value: string): Profile {
  const { encryptTo: _old, ...rest } = profile;
  const recipients = encryptToList(value);
  return recipients.length === 0 ? rest : { ...rest, encryptTo: recipients };
}

/** The recipients of an `encrypt-to` value: split at commas and spaces; `none` is none. */
export function encryptToList(value: string): string[] {
  const trimmed = value.trim();
  if (trimmed.toLowerCase() === 'none') return [];
  return trimmed.split(/[\s,]+/).filter((r) => r !== '');
}

/** The file as zod checks it (config/schema.ts), with zod's message for the first thing wrong in it. */
async function checkedConfig(stored: unknown, path: string): Promise<ConfigData> {
  const { configSchema } = await import('./schema.js');
  const parsed = configSchema.safeParse(stored);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join('.') || 'top level' : 'top level';
    throw new AuthError(`the config file ${path} is invalid at ${where}: ${issue?.message ?? 'unexpected shape'}`, {
      code: 'config_invalid',
      hint: `fix or remove ${path}, then run: giftcodes login`,
    });
  }
  return parsed.data;
}

/**
 * The config as zod's schema would return it, for a file with nothing unusual in it: only the known fields, of
 * their types, plain objects, no `__proto__`. Anything else is undefined, and goes to zod (checkedConfig),
 * which has the last word and the messages; test/unit/config-check.test.ts holds the two equal.
 */
export function plainConfig(stored: unknown): ConfigData | undefined {
  return plainFields(stored, CONFIG) as ConfigData | undefined;
}

/** The profiles by name, each plain; none named `__proto__`. */
function plainProfiles(value: unknown): Record<string, Profile> | undefined {
  if (!plainObject(value)) return undefined;
  const out: Record<string, Profile> = {};
  for (const name of Object.keys(value)) {
    const profile = plainFields(value[name], PROFILE) as Profile | undefined;
    if (name === '__proto__' || !profile) return undefined;
    out[name] = profile;
  }
  return out;
}

/** A field's check: the value as zod would keep it, or INVALID. */
type Field = (value: unknown) => unknown;

const INVALID = Symbol('invalid');

const text: Field = (value) => (typeof value === 'string' ? value : INVALID);

/** The file's fields, a profile's and a key list's, in the schema's order (config/schema.ts), each with its check. */
const CONFIG: readonly (readonly [keyof ConfigData, Field])[] = [
  ['defaultProfile', text],
  ['profiles', (value) => plainProfiles(value) ?? INVALID],
];

const PROFILE: readonly (readonly [keyof Profile, Field])[] = [
  ['baseUrl', text],
  ['defaultEnv', (value) => (value === 'test' || value === 'live' ? value : INVALID)],
  ['proxy', text],
  ['historyDays', (value) => (Number.isSafeInteger(value) ? value : INVALID)],
  [
    'encryptTo',
    (value) => (Array.isArray(value) && value.every((r) => typeof r === 'string') ? [...(value as string[])] : INVALID),
  ],
  ['keys', (value) => plainFields(value, KEYS) ?? INVALID],
  ['keyring', (value) => plainFields(value, KEYS) ?? INVALID],
  ['resellers', (value) => plainFields(value, RESELLERS) ?? INVALID],
];

const KEYS: readonly (readonly [string, Field])[] = [
  ['test', text],
  ['live', text],
];

/** A reseller seen (ResellerSeen): every field there. */
const reseller: Field = (value) => {
  const seen = plainFields(value, RESELLER);
  return seen !== undefined && RESELLER.every(([name]) => name in seen) ? seen : INVALID;
};

const RESELLER: readonly (readonly [keyof ResellerSeen, Field])[] = [
  ['id', text],
  ['keyId', text],
  ['baseUrl', text],
];

const RESELLERS: readonly (readonly [string, Field])[] = [
  ['test', reseller],
  ['live', reseller],
];

/** An object of only these fields, each present one valid: a copy with them in this order; else undefined. */
function plainFields(
  value: unknown,
  fields: readonly (readonly [string, Field])[],
): Record<string, unknown> | undefined {
  if (!plainObject(value) || !Object.keys(value).every((key) => fields.some(([name]) => name === key)))
    return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, check] of fields) {
    if (!(name in value)) continue;
    const kept = check(value[name]);
    if (kept === INVALID) return undefined;
    out[name] = kept;
  }
  return out;
}

function plainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** What conf's `store` holds for the file: its JSON assigned onto a prototype-less object. */
function readStored(path: string): unknown {
  return Object.assign(Object.create(null) as object, JSON.parse(readFileSync(path, 'utf8')) as unknown);
}

function shortReason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}` : (error.message.split('\n')[0] ?? 'unknown error');
  }
  return String(error);
}
