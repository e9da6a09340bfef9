// A first login against a server that is not the default one (nothing saved yet, so http://127.0.0.1:4010 was
// asked): its hint told the reseller to run `giftcodes config set base-url URL`, then log in again, where login's
// own --base-url saves it (a person's day). A login's hint now names `giftcodes login --base-url URL`, with the
// run's --env and --profile; other commands keep config set.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/login.js';
import { ConfigStore } from '../../src/config/store.js';
import { NetworkError } from '../../src/errors.js';
import { DEMO_KEYS, tempDir } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

/** The words login hands its API client for where the base URL came from (the hint of a server out of reach). */
async function settingOfLogin(options: { env?: 'test' | 'live'; profile?: string }): Promise<string | undefined> {
  const dir = tempDir();
  const { io } = capturedIo({ env: { GIFTCODES_KEYRING: 'off' } });
  let setting: string | undefined;
  const deps = {
    io,
    config: () => ConfigStore.open(dir),
    clientFor: (_url: string, _key: string, _retries?: number, _refused?: string, where?: string) => {
      setting = where;
      return Promise.resolve({ ping: () => Promise.reject(new NetworkError('cannot reach the server')) });
    },
  };
  const key = options.env === 'live' ? DEMO_KEYS.live : DEMO_KEYS.test;
  await expect(run({ ...options, apiKey: key }, deps as unknown as Parameters<typeof run>[1])).rejects.toBeInstanceOf(
    NetworkError,
  );
  return setting;
}

describe("login's hint for a server out of reach, with no base URL saved", () => {
  it('names login --base-url, which saves it, not config set', async () => {
    expect(await settingOfLogin({})).toBe(
      '--base-url (profile "default" has none saved, so http://127.0.0.1:4010 was used: giftcodes login --base-url URL)',
    );
  });

  it("keeps the run's --env and --profile", async () => {
    expect(await settingOfLogin({ env: 'live', profile: 'shop-eu' })).toMatch(
      /: giftcodes login --base-url URL --env live --profile shop-eu\)$/,
    );
  });
});
