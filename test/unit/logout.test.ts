// logout of a profile that does not exist: refused (exit 2), naming the profiles, not "no key was stored" (exit 0),
// which read to a person who mistyped --profile as the key being gone while it was still there.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/logout.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir, unstamped } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

describe('logout --profile', () => {
  it('an unknown profile: exit 2, the key of the meant one kept; a profile without keys still says so', async () => {
    const dir = tempDir();
    const store = await ConfigStore.open(dir);
    await store.setKey('shop-eu', 'live', 'sc_live_demo_9b1e6d2c8a7f');
    const { io, out, err } = capturedIo({ env: {} });
    const deps = { io, config: () => ConfigStore.open(dir) };
    await expect(run({ profile: 'shop-ue' }, deps)).rejects.toMatchObject({
      exitCode: 2,
      message: 'no profile named "shop-ue": no key was removed',
      hint: 'profiles: default, shop-eu',
    });
    expect((await ConfigStore.open(dir)).profile('shop-eu').keys?.live).toBe('sc_live_demo_9b1e6d2c8a7f');
    // The default profile is there implicitly (a fresh install): nothing to remove is no error.
    await run({}, deps);
    await io.flushOut();
    expect(unstamped(out() + err())).toBe('no test or live key was stored in profile "default"\n');
  });
});
