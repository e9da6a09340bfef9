// Profiles on disk (conf, 0600 in a 0700 directory), parsed once into plain types.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { z } from 'zod';
import { AuthError, UsageError } from '../errors.js';
import { environmentOfKey, type KeyEnvironment } from '../secrets.js';
import type { SettableField } from './fields.js';
import { ensurePrivateDir, looseModeWarning } from './paths.js';

const environmentSchema = z.enum(['test', 'live']);

const profileSchema = z.object({
  baseUrl: z.string().optional(),
  defaultEnv: environmentSchema.optional(),
  keys: z.object({ test: z.string().optional(), live: z.string().optional() }).partial().optional(),
});

const configSchema = z.object({
  defaultProfile: z.string().optional(),
  profiles: z.record(z.string(), profileSchema).optional(),
});

export type Profile = z.infer<typeof profileSchema>;
type ConfigData = z.infer<typeof configSchema>;

export const DEFAULT_PROFILE = 'default';


export class ConfigStore {
  readonly dir: string;
  readonly path: string;
  readonly warnings: string[] = [];
  private readonly conf: Conf<ConfigData>;
  private data: ConfigData;

  constructor(dir: string) {
    this.dir = dir;
    this.path = join(dir, 'config.json');
    const dirWarning = ensurePrivateDir(dir);
    if (dirWarning) this.warnings.push(dirWarning);
    try {
      const stats = statSync(this.path, { throwIfNoEntry: false });
      if (stats && !stats.isFile()) throw new Error('not a regular file');
      if (stats) {
        const fileWarning = looseModeWarning(this.path, stats.mode, 'config file', 0o600);
        if (fileWarning) this.warnings.push(fileWarning);
      }
      this.conf = new Conf<ConfigData>({
        cwd: dir,
        configName: 'config',
        projectName: 'giftcodes',
        configFileMode: 0o600,
        clearInvalidConfig: false,
        accessPropertiesByDotNotation: false,
      });
    } catch (error) {
      throw new AuthError(`cannot read the config file ${this.path}: ${shortReason(error)}`, {
        code: 'config_invalid',
        hint: `fix or remove ${this.path}, then run: giftcodes login`,
        cause: error,
      });
    }
    const parsed = configSchema.safeParse(this.conf.store);
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

  setKey(profileName: string, env: KeyEnvironment, key: string, baseUrl?: string): void {
    if (environmentOfKey(key) !== env) throw new UsageError(`a ${env} key must begin with sc_${env}_`);
    this.updateProfile(profileName, (profile) => ({
      ...profile,
      ...(baseUrl ? { baseUrl } : {}),
      keys: { ...profile.keys, [env]: key },
    }));
  }

  removeKeys(profileName: string, envs: readonly KeyEnvironment[]): KeyEnvironment[] {
    const keys = { ...this.profile(profileName).keys };
    const removed = envs.filter((env) => keys[env] !== undefined);
    for (const env of envs) delete keys[env];
    if (removed.length > 0) this.updateProfile(profileName, (profile) => ({ ...profile, keys }));
    return removed;
  }

  setField(profileName: string, field: SettableField, value: string): void {
    this.updateProfile(profileName, (profile) =>
      field === 'base-url' ? { ...profile, baseUrl: value } : { ...profile, defaultEnv: environmentSchema.parse(value) },
    );
  }

  useProfile(name: string): void {
    this.data = { ...this.data, defaultProfile: name };
    this.save();
  }

  private updateProfile(name: string, change: (profile: Profile) => Profile): void {
    const profiles = { ...this.data.profiles, [name]: change(this.profile(name)) };
    this.data = { ...this.data, profiles };
    this.save();
  }

  private save(): void {
    try {
      this.conf.store = this.data;
    } catch (error) {
      throw new AuthError(`cannot write the config file ${this.path}: ${shortReason(error)}`, {
        code: 'config_unwritable',
        cause: error,
      });
    }
  }
}

function shortReason(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}` : error.message.split('\n')[0] ?? 'unknown error';
  }
  return String(error);
}
