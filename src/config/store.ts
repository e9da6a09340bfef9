// Profiles on disk (conf, 0600 in a 0700 directory), parsed once into plain types.
// Reading is plain JSON, read as conf reads it; conf (with the JSON-schema compiler it loads) is imported
// only to write: most commands just read a profile, and loading conf cost them about 20 ms.
import { readFileSync, statSync } from 'node:fs';
import type Conf from 'conf';
import * as z from 'zod/mini';
import { en } from 'zod/v4/locales';
import { AuthError, LocalError, UsageError } from '../errors.js';
import { localError } from '../files/atomic.js';
import { environmentOfKey, type KeyEnvironment } from '../secrets.js';
import type { SettableField } from './fields.js';
import { checkOwnership, configFile, ensurePrivateDir } from './paths.js';

// zod/mini (see api/schemas.ts) comes without messages; an invalid config file is reported with zod's English ones.
z.config(en());

const environmentSchema = z.enum(['test', 'live']);

const profileSchema = z.object({
  baseUrl: z.optional(z.string()),
  defaultEnv: z.optional(environmentSchema),
  /** A forward proxy for this profile's API, used when HTTPS_PROXY/HTTP_PROXY are unset. */
  proxy: z.optional(z.string()),
  /** Days the local order record keeps an ended order (default 90). */
  historyDays: z.optional(z.int()),
  keys: z.optional(z.partial(z.object({ test: z.optional(z.string()), live: z.optional(z.string()) }))),
  /** Keys kept in the credential store: the account each is filed under (a reference, never the key). */
  keyring: z.optional(z.partial(z.object({ test: z.optional(z.string()), live: z.optional(z.string()) }))),
});

const configSchema = z.object({
  defaultProfile: z.optional(z.string()),
  profiles: z.optional(z.record(z.string(), profileSchema)),
});

export type Profile = z.infer<typeof profileSchema>;
type ConfigData = z.infer<typeof configSchema>;

export const DEFAULT_PROFILE = 'default';


export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  readonly warnings: string[] = [];
  private conf: Conf<ConfigData> | undefined;
  private data: ConfigData;

  constructor(dir: string) {
    this.dir = dir;
    this.path = configFile(dir);
    const dirWarning = ensurePrivateDir(dir);
    if (dirWarning) this.warnings.push(dirWarning);
    let stored: unknown;
    try {
      const stats = statSync(this.path, { throwIfNoEntry: false });
      if (stats && !stats.isFile()) throw new Error('not a regular file');
      if (stats) {
        const fileWarning = checkOwnership(this.path, stats, 'config file');
        if (fileWarning) this.warnings.push(fileWarning);
      }
      stored = stats ? readStored(this.path) : {};
    } catch (error) {
      if (error instanceof LocalError) throw error;
      throw new AuthError(`cannot read the config file ${this.path}: ${shortReason(error)}`, {
        code: 'config_invalid',
        hint: `fix or remove ${this.path}, then run: giftcodes login`,
        cause: error,
      });
    }
    const parsed = configSchema.safeParse(stored);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? issue.path.join('.') || 'top level' : 'top level';
      throw new AuthError(`the config file ${this.path} is invalid at ${where}: ${issue?.message ?? 'unexpected shape'}`, {
        code: 'config_invalid',
        hint: `fix or remove ${this.path}, then run: giftcodes login`,
      });
    }
    this.data = parsed.data;
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

  async setKey(profileName: string, env: KeyEnvironment, key: string, baseUrl?: string): Promise<void> {
    if (environmentOfKey(key) !== env) throw new UsageError(`a ${env} key must begin with sc_${env}_`);
    await this.updateProfile(profileName, (profile) => {
      const keyring = { ...profile.keyring };
      delete keyring[env];
      return { ...profile, ...(baseUrl ? { baseUrl } : {}), keys: { ...profile.keys, [env]: key }, keyring };
    });
  }

  /** Records that the profile's key for `env` is in the credential store under `account`; the file keeps no key. */
  async setKeyringReference(profileName: string, env: KeyEnvironment, account: string, baseUrl?: string): Promise<void> {
    await this.updateProfile(profileName, (profile) => {
      const keys = { ...profile.keys };
      delete keys[env];
      return { ...profile, ...(baseUrl ? { baseUrl } : {}), keys, keyring: { ...profile.keyring, [env]: account } };
    });
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
    if (removed.length > 0) await this.updateProfile(profileName, (profile) => ({ ...profile, keys, keyring }));
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
            : { ...profile, defaultEnv: environmentSchema.parse(value) },
    );
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

  private async save(): Promise<void> {
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
      if (typeof (error as NodeJS.ErrnoException).code === 'string') throw localError(error, this.path, 'config file', 'config_unwritable');
      throw new AuthError(`cannot write the config file ${this.path}: ${shortReason(error)}`, {
        code: 'config_unwritable',
        cause: error,
      });
    }
  }
}

/** What conf's `store` holds for the file: its JSON assigned onto a prototype-less object. */
function readStored(path: string): unknown {
  return Object.assign(Object.create(null) as object, JSON.parse(readFileSync(path, 'utf8')) as unknown);
}

function shortReason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}` : error.message.split('\n')[0] ?? 'unknown error';
  }
  return String(error);
}
