// status with a --profile (or GIFTCODES_PROFILE) that names no profile: every command run so fails for want of a key
// (exit 3, profile_not_found), where status listed the other profiles and exited 0, none of them "used by commands
// run now" (a walkthrough's `status --profile shop-ue`). The listing stays; the error follows it.
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/status.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

async function statusIn(profile: string | undefined, env: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const store = await ConfigStore.open(dir);
  await store.setKey('shop-eu', 'test', 'sc_test_demo_4f3c9a1b7e2d');
  const { io, out } = capturedIo({ env });
  const deps = {
    io,
    config: () => ConfigStore.open(dir),
    clientFor: () => Promise.reject(new Error('status --offline asked the API')),
  };
  const result = run({ profile, offline: true }, deps as unknown as Parameters<typeof run>[1]);
  return { result, out: async () => (await io.flushOut(), out()) };
}

describe('status of a profile that is not there', () => {
  it('--profile: lists the profiles there, then exit 3 naming them', async () => {
    const { result, out } = await statusIn('shop-ue');
    await expect(result).rejects.toMatchObject({
      exitCode: 3,
      code: 'profile_not_found',
      message: expect.stringMatching(/^no profile named "shop-ue" in /),
      hint: expect.stringContaining('(profiles here: shop-eu)'),
    });
    expect(await out()).toContain('profile "shop-eu"');
  });

  it('GIFTCODES_PROFILE too; a profile that is there is no error', async () => {
    await expect((await statusIn(undefined, { GIFTCODES_PROFILE: 'shop-ue' })).result).rejects.toMatchObject({
      exitCode: 3,
      code: 'profile_not_found',
    });
    await expect((await statusIn('shop-eu')).result).resolves.toBeUndefined();
  });
});
