import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { exportResult } from '../../output/exporter.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { profileName } from '../parse.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'make a profile the default',
    examples: ['giftcodes config use shop-eu', 'giftcodes config use default'],
  };
  addVerb(parent, app, 'use', help, ({ deps }, profile) => run({ profile }, deps)).argument(
    '<profile>',
    'profile name',
    profileName,
  );
}

export async function run(options: { profile: string }, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const store = await deps.config();
  if (!store.hasProfile(options.profile)) {
    throw new UsageError(`no profile named "${options.profile}"`, {
      hint: `profiles: ${store.profileNames().join(', ')}; create one with: giftcodes login --profile ${options.profile}`,
    });
  }
  await store.useProfile(options.profile);
  await exportResult(
    deps.io,
    { defaultProfile: options.profile },
    { text: () => `${deps.io.c.green('✓')} "${options.profile}" is now the default profile`, wrap: 2 },
  );
}
