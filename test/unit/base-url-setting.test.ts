// What a hint calls the base URL a run used (src/config/resolve.ts baseUrlSetting): the flag, the environment
// variable, the profile's saved one, or, with none saved, the default, said as such.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrlSetting } from '../../src/config/resolve.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../helpers/e2e.js';

async function storeWith(profiles: Record<string, { baseUrl?: string }>): Promise<ConfigStore> {
  const dir = join(tempDir(), 'config');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles }), { mode: 0o600 });
  return ConfigStore.open(dir);
}

describe('baseUrlSetting', () => {
  // A person's day: a profile logged in without --base-url beside one that has it tried 4010, six times, and the
  // hint said only "check --base-url".
  it('a profile with none saved: the default was used, and another profile that has one is named', async () => {
    const store = await storeWith({ default: { baseUrl: 'http://127.0.0.1:40275' }, small: {} });
    expect(baseUrlSetting({}, {}, store, 'small')).toBe(
      '--base-url (profile "small" has none saved, so http://127.0.0.1:4010 was used; profile "default" uses http://127.0.0.1:40275: giftcodes config set base-url <url> --profile small)',
    );
    const alone = await storeWith({ default: {} });
    expect(baseUrlSetting({}, {}, alone, 'default')).toBe(
      '--base-url (profile "default" has none saved, so http://127.0.0.1:4010 was used: giftcodes config set base-url <url>)',
    );
  });

  it('a flag, the environment variable or a saved one is named as before', async () => {
    const store = await storeWith({ default: { baseUrl: 'http://127.0.0.1:40275' } });
    expect(baseUrlSetting({ baseUrl: 'http://x' }, {}, store, 'default')).toBe('--base-url');
    expect(baseUrlSetting({}, { GIFTCODES_BASE_URL: 'http://x' }, store, 'default')).toBe('GIFTCODES_BASE_URL');
    expect(baseUrlSetting({}, {}, store, 'default')).toBe(
      'the base URL of profile "default" (giftcodes config set base-url <url>)',
    );
  });
});
