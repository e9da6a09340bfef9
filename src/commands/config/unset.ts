import type { Command } from 'commander';
import { SETTABLE_FIELDS as FIELDS, type SettableField as Field } from '../../config/fields.js';
import { exportResult } from '../../output/exporter.js';
import { addVerb, type App } from '../app.js';
import type { Deps, GlobalOptions } from '../deps.js';
import { checkField } from './set.js';

export interface UnsetOptions extends Pick<GlobalOptions, 'profile'> {
  field: string;
}

export function register(parent: Command, app: App): void {
  const help = {
    description: `remove a field from the profile, so its default applies again (${FIELDS.join(', ')})`,
    examples: ['giftcodes config unset proxy', 'giftcodes config unset encrypt-to --profile shop-eu'],
  };
  addVerb(parent, app, 'unset', help, ({ globals, deps }, field) =>
    run({ field, profile: globals.profile }, deps),
  ).argument('<field>', FIELDS.join(' | '));
}

/** What applies once a field is gone, in the words `config unset` prints (a line within 80 columns). */
const AFTER: Record<Field, string> = {
  'base-url': 'the default base URL applies',
  'default-env': 'commands use test unless --env says',
  'encrypt-to': 'codes files are written unencrypted',
  'history-days': 'ended orders are kept 90 days',
  proxy: 'requests go direct or via HTTPS_PROXY',
};

export async function run(options: UnsetOptions, deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const field = checkField(options.field);
  const [{ resolveProfileName, refuseUnsavedProfile }, store] = await Promise.all([
    import('../../config/resolve.js'),
    deps.config(),
  ]);
  const profile = resolveProfileName(options, deps.io.env, store);
  // A typo in --profile must not read as "nothing to remove".
  refuseUnsavedProfile(store, profile);
  const removed = await store.unsetField(profile, field);
  await exportResult(
    deps.io,
    { profile, field, removed },
    {
      text: () =>
        removed
          ? `${deps.io.c.green('✓')} ${field} removed (profile "${profile}"): ${AFTER[field]}`
          : `${field} was not set in profile "${profile}"; nothing changed`,
      wrap: 2,
    },
  );
}
