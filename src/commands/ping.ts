import type { Command } from 'commander';
import { pingFacts } from '../api/outcome.js';
import { exportResult } from '../output/exporter.js';
import { display } from '../output/table.js';
import { environmentOfKey, maskKey } from '../secrets.js';
import { addVerb, type App } from './app.js';
import type { Deps } from './deps.js';

/** Where the key came from, as `status` says it: a key from the environment overrides the profile's. */
const KEY_SOURCES = {
  flag: 'from --api-key',
  environment: 'from GIFTCODES_API_KEY, not the profile',
  profile: 'from the config file',
  keyring: 'from the credential store',
} as const;

export function register(parent: Command, app: App): void {
  const help = {
    description: 'check that the key works: status, environment and reseller',
    examples: ['giftcodes ping', 'giftcodes ping --env live --json', 'GIFTCODES_API_KEY=sc_test_… giftcodes ping'],
  };
  addVerb(parent, app, 'ping', help, ({ deps }) => run(deps));
}

export async function run(deps: Pick<Deps, 'io' | 'connection' | 'api'>): Promise<void> {
  const [connection, api] = await Promise.all([deps.connection(), deps.api()]);
  // A slow or silent API is retried for minutes by default: on a terminal a spinner says what is awaited, as login's
  // does (a blank screen read as a hang).
  const spinner = await deps.io.spinner(`asking ${api.baseUrl} (GET /v1/ping)`);
  const ping = await api.ping().finally(() => spinner.stop());
  const facts = pingFacts(ping);
  const expected = environmentOfKey(connection.apiKey);
  // The key's prefix decides: a name the service spells otherwise is shown with a warning, never refused.
  if (!facts.known) {
    deps.io.warn(
      `the API names the environment "${display(ping.environment ?? 'unknown')}", which is neither test nor live; the key's prefix says ${expected ?? 'nothing'}`,
    );
  } else if (expected && facts.environment !== expected) {
    deps.io.warn(`the API says this key is for "${facts.environment}", but its prefix says ${expected}`);
  }
  const c = deps.io.c;
  await exportResult(deps.io, ping, {
    text: () => {
      const sent = ping.environment ?? facts.environment;
      const shown = display(
        facts.known && sent.toLowerCase() !== facts.environment ? `${sent} (${facts.environment})` : sent,
      );
      const env = facts.environment === 'live' ? c.red.bold(shown) : c.cyan(shown);
      const key = `${maskKey(connection.apiKey)} (${KEY_SOURCES[connection.keySource]})`;
      return `status       ${c.green(display(ping.status))}\nenvironment  ${env}\nreseller     ${display(facts.resellerId)}\nbase URL     ${api.baseUrl}\nprofile      ${connection.profile}\nkey          ${key}`;
    },
  });
}
