import type { Command } from 'commander';
import { maskedKeys } from '../../secrets.js';
import { exportResult } from '../../output/exporter.js';
import { renderTable } from '../../output/table.js';
import { addVerb, type App } from '../app.js';
import type { Deps } from '../deps.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'list the profiles; the default is marked',
    examples: ['giftcodes config list', 'giftcodes config list --json'],
  };
  addVerb(parent, app, 'list', help, ({ deps }) => run(deps));
}

export async function run(deps: Pick<Deps, 'io' | 'config'>): Promise<void> {
  const store = await deps.config();
  const rows = store.profileNames().map((name) => {
    const profile = store.profile(name);
    return {
      profile: name,
      default: name === store.defaultProfile,
      baseUrl: profile.baseUrl ?? null,
      defaultEnv: profile.defaultEnv ?? 'test',
      keys: maskedKeys(profile.keys),
      // Keys in the credential store are not read here (one lookup per profile would be slow): only where they are.
      keyStorage: { test: store.keyLocation(name, 'test') ?? null, live: store.keyLocation(name, 'live') ?? null },
    };
  });
  await exportResult(deps.io, rows, {
    text: () =>
      renderTable(deps.io, rows, [
        { header: '', value: (r) => (r.default ? '*' : '') },
        { header: 'profile', value: (r) => r.profile },
        { header: 'default env', value: (r) => r.defaultEnv },
        {
          header: 'test key',
          value: (r) => r.keys.test ?? (r.keyStorage.test === 'keyring' ? '(credential store)' : '-'),
        },
        {
          header: 'live key',
          value: (r) => r.keys.live ?? (r.keyStorage.live === 'keyring' ? '(credential store)' : '-'),
        },
        { header: 'base url', value: (r) => r.baseUrl ?? '(default)' },
      ]),
  });
}
