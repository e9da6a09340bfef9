import type { Command } from 'commander';
import type { Factory } from '../factory.js';
import type { KeyEnvironment } from '../secrets.js';
import { examples, type App } from './app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('logout')
    .description("remove keys from the profile (--env test|live|all; default all)")
    .action(async (_flags: object, cmd: Command) => run(app.factory(cmd)));
  examples(command, ['giftcodes logout', 'giftcodes logout --env live', 'giftcodes logout --profile shop-eu --env all']);
}

export async function run(f: Factory): Promise<void> {
  const [{ resolveProfileName }, store] = await Promise.all([import('../config/resolve.js'), f.config()]);
  const profile = resolveProfileName(f.globals, f.io.env, store);
  const wanted = f.globals.env as KeyEnvironment | 'all' | undefined;
  const envs: KeyEnvironment[] = wanted === undefined || wanted === 'all' ? ['test', 'live'] : [wanted];
  // From the credential store first: the reference in the profile goes only once the key is gone.
  const inKeyring = envs.flatMap((env) => {
    const account = store.profile(profile).keyring?.[env];
    return account ? [account] : [];
  });
  if (inKeyring.length > 0) {
    const { keyringDelete } = await import('../config/keyring.js');
    for (const account of inKeyring) await keyringDelete(f.io.env, account);
  }
  const removed = await store.removeKeys(profile, envs);
  if (f.io.json) {
    f.io.outJson({ profile, removed });
    return;
  }
  if (removed.length === 0) f.io.out(`no ${envs.join(' or ')} key was stored in profile "${profile}"`);
  else f.io.out(`${f.io.c.green('✓')} removed the ${removed.join(' and ')} key${removed.length > 1 ? 's' : ''} from profile "${profile}"`);
}
