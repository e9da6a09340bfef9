import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { Factory } from '../../factory.js';
import { maskedKeys } from '../../secrets.js';
import { examples, type App } from '../app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('show')
    .description('show the profile in use: base URL, default environment, masked keys')
    .action(async (_flags: object, cmd: Command) => run(app.factory(cmd)));
  examples(command, ['giftcodes config show', 'giftcodes config show --profile shop-eu --json']);
}

export async function run(f: Factory): Promise<void> {
  const [{ resolveProfileName, resolveBaseUrl }, store] = await Promise.all([import('../../config/resolve.js'), f.config()]);
  const name = resolveProfileName(f.globals, f.io.env, store);
  // The default profile exists implicitly (a fresh install); any other name shown empty would mislead.
  if (name !== store.defaultProfile && !store.hasProfile(name)) {
    throw new UsageError(`no profile named "${name}"`, {
      hint: `profiles: ${store.profileNames().join(', ')}; create one with: giftcodes login --profile ${name}`,
    });
  }
  const profile = store.profile(name);
  // The proxy only when the profile has one, and never its credentials.
  const proxy = profile.proxy ? (await import('../../api/transport.js')).displayProxy(profile.proxy) : undefined;
  const shown = {
    profile: name,
    default: name === store.defaultProfile,
    baseUrl: resolveBaseUrl(f.globals, f.io.env, store, name),
    defaultEnv: profile.defaultEnv ?? 'test',
    keys: maskedKeys(profile.keys),
    ...(proxy ? { proxy } : {}),
    configFile: store.path,
  };
  if (f.io.json) {
    f.io.outJson(shown);
    return;
  }
  const none = f.io.c.dim('(none)');
  f.io.out(
    [
      `profile      ${shown.profile}${shown.default ? f.io.c.dim(' (default)') : ''}`,
      `base URL     ${shown.baseUrl}`,
      `default env  ${shown.defaultEnv}`,
      `test key     ${shown.keys.test ?? none}`,
      `live key     ${shown.keys.live ?? none}`,
      ...(proxy ? [`proxy        ${proxy}`] : []),
      `config file  ${shown.configFile}`,
    ].join('\n'),
  );
}
