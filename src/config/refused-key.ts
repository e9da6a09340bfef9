// What a refused key is told, by where the key and its base URL came from, and the client that carries it: every
// command that sends a resolved connection's key builds its client here (ping's hint, `order show`'s alike).
import type { ApiClient } from '../api/client.js';
import type { Deps } from '../commands/deps.js';
import { overrideHint, storageFlag, type Connection } from './resolve.js';

/** What to do about a refused key depends on where it came from: login does not replace a key given in the environment. */
export function refusedKeyHint(connection: Connection, env: NodeJS.ProcessEnv): string {
  const profile = `${connection.profile === 'default' ? '' : ` --profile ${connection.profile}`} --env ${connection.environment}`;
  const login = `giftcodes login${profile}${storageFlag(env)}`;
  switch (connection.keySource) {
    case 'environment':
      return `the key in GIFTCODES_API_KEY was refused (it overrides the profile's): set it to a valid key, or unset it to use the profile's`;
    case 'flag':
      return 'the key given with --api-key was refused: check it was copied whole, and that it is not revoked';
    default:
      // The profile's key was verified at the profile's base URL when it was saved: the variable is the likelier cause.
      if (connection.baseUrlOverride) return overrideHint(connection.baseUrlOverride, login);
      return `the ${connection.environment} key of profile "${connection.profile}" was refused (revoked, or of another server than ${connection.baseUrl}?): save a valid one with: ${login}`;
  }
}

/**
 * The client for a resolved connection, its refused key's hint right for where the key came from. `baseUrlFrom`:
 * where its base URL was set, when not the connection's own (a recorded order's, orders/ref.ts recordedBaseUrl).
 */
export function clientOf(
  deps: Pick<Deps, 'io' | 'clientFor'>,
  connection: Connection,
  baseUrlFrom = connection.baseUrlFrom,
): Promise<ApiClient> {
  return deps.clientFor(
    connection.baseUrl,
    connection.apiKey,
    undefined,
    refusedKeyHint(connection, deps.io.env),
    baseUrlFrom,
  );
}
