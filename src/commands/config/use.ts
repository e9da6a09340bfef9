import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { exportResult } from '../../output/exporter.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { profileName } from '../parse.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('use')
    .description('make a profile the default')
    .argument('<profile>', 'profile name', profileName)
    .action(async (profile: string, _flags: object, cmd: Command) => run({ profile }, app.context(cmd).deps));
  examples(command, ['giftcodes config use shop-eu', 'giftcodes config use default']);
}

export async function run(options: { profile: string }, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const store = await deps.config();
  if (!store.hasProfile(options.profile)) {
    throw new UsageError(`no profile named "${options.profile}"`, {
      hint: `profiles: ${store.profileNames().join(', ')}; create one with: giftcodes login --profile ${options.profile}`,
    });
  }
  await store.useProfile(options.profile);
  await exportResult(deps.io, { defaultProfile: options.profile }, { text: () => `${deps.io.c.green('✓')} "${options.profile}" is now the default profile` });
}
