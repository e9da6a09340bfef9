// The demo reseller with a second test key, for the tests of a key rotated (or held in a second profile) of one
// reseller: the seed, the key, and the login that rotates a profile to it.
import { expect } from 'vitest';
import { DEMO_KEYS, runCli, seedFile } from './e2e.js';

/** The demo reseller's second test key: the key a profile rotates to. */
export const ROTATED = 'sc_test_demo2_aaaaaaaaaaaaaaaa';

/** A seed file of the demo reseller with its second test key beside the first. */
export function twoKeySeed(): string {
  return seedFile({
    resellers: [
      {
        id: 'rs_demo',
        keys: { test: [DEMO_KEYS.test, ROTATED], live: [DEMO_KEYS.live] },
        wallet: { USD: 5_000_000 },
      },
    ],
  });
}

/** The profile logs in again with the reseller's second key: the key is rotated. */
export async function rotate(configDir: string, profile?: string): Promise<void> {
  const login = await runCli(['login', '--api-key-stdin', ...(profile ? ['--profile', profile] : [])], {
    configDir,
    input: ROTATED,
  });
  expect(login.code, login.stderr).toBe(0);
}
