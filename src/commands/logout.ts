import type { Command } from 'commander';
import { completionHints } from '../completion/hints.js';
import { exportResult } from '../output/exporter.js';
import type { KeyEnvironment } from '../secrets.js';
import { addVerb, type App } from './app.js';
import type { Deps, GlobalOptions } from './deps.js';
import { LOGOUT_ENVIRONMENTS } from './parse.js';

/** The profile, and --env test|live|all (all when absent). */
export type LogoutOptions = Pick<GlobalOptions, 'profile' | 'env'>;

export function register(parent: Command, app: App): void {
  const help = {
    description: `remove keys from the profile (--env ${LOGOUT_ENVIRONMENTS.join('|')}; default all)`,
    examples: ['giftcodes logout', 'giftcodes logout --env live', 'giftcodes logout --profile shop-eu --env all'],
  };
  const command = addVerb(parent, app, 'logout', help, ({ globals, deps }) =>
    run({ profile: globals.profile, env: globals.env }, deps),
  );
  completionHints(command, { flagWords: { '--env': LOGOUT_ENVIRONMENTS } });
}

export async function run(options: LogoutOptions, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const [{ resolveProfileName, refuseUnsavedProfile }, store] = await Promise.all([
    import('../config/resolve.js'),
    deps.config(),
  ]);
  const profile = resolveProfileName(options, deps.io.env, store);
  // A typo in --profile must not read as "no key was stored" (exit 0): the key it meant to remove is still there (a
  // walkthrough's `logout --profile shop-ue`), as config unset and config show refuse an unknown profile.
  refuseUnsavedProfile(store, profile, { after: ': no key was removed' });
  const wanted = options.env;
  const envs: KeyEnvironment[] = wanted === undefined || wanted === 'all' ? ['test', 'live'] : [wanted];
  // From the credential store first: the reference in the profile goes only once the key is gone.
  const inKeyring = envs.flatMap((env) => {
    const account = store.profile(profile).keyring?.[env];
    return account ? [account] : [];
  });
  if (inKeyring.length > 0) {
    const { keyringDelete } = await import('../config/keyring.js');
    for (const account of inKeyring) await keyringDelete(deps.io.env, account);
  }
  const removed = await store.removeKeys(profile, envs);
  const { io } = deps;
  await exportResult(
    io,
    { profile, removed },
    {
      empty: {
        when: (data) => data.removed.length === 0,
        line: `no ${envs.join(' or ')} key was stored in profile "${profile}"`,
      },
      text: (data) =>
        `${io.c.green('✓')} removed the ${data.removed.join(' and ')} key${data.removed.length > 1 ? 's' : ''} from profile "${profile}"`,
      wrap: 2,
    },
  );
}
