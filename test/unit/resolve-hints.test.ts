// The hints of src/config/resolve.ts: what a hint calls the base URL a run used (baseUrlSetting: the flag, the
// environment variable, the profile's saved one, or, with none saved, the default, said as such), and the way to a
// key the profile lacks.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseUrlSetting, normaliseBaseUrl, resolveConnection, resolveProfileName } from '../../src/config/resolve.js';
import { ConfigStore } from '../../src/config/store.js';
import { tempDir } from '../helpers/e2e.js';

async function storeWith(
  profiles: Record<string, { baseUrl?: string; keys?: Record<string, string> }>,
): Promise<ConfigStore> {
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
      '--base-url (profile "small" has none saved, so http://127.0.0.1:4010 was used; profile "default" uses http://127.0.0.1:40275: giftcodes config set base-url URL --profile small)',
    );
    const alone = await storeWith({ default: {} });
    expect(baseUrlSetting({}, {}, alone, 'default')).toBe(
      '--base-url (profile "default" has none saved, so http://127.0.0.1:4010 was used: giftcodes config set base-url URL)',
    );
  });

  it('a flag, the environment variable or a saved one is named as before', async () => {
    const store = await storeWith({ default: { baseUrl: 'http://127.0.0.1:40275' } });
    expect(baseUrlSetting({ baseUrl: 'http://x' }, {}, store, 'default')).toBe('--base-url');
    expect(baseUrlSetting({}, { GIFTCODES_BASE_URL: 'http://x' }, store, 'default')).toBe('GIFTCODES_BASE_URL');
    expect(baseUrlSetting({}, {}, store, 'default')).toBe(
      'the base URL of profile "default" (giftcodes config set base-url URL)',
    );
  });
});

describe('a key the profile lacks', () => {
  // A person's day: `doctor` in a live-only cron directory read "FAIL key no test key", hinting a test login.
  it('without --env, a profile holding the other key names it first; with --env, the login', async () => {
    const store = await storeWith({ default: { keys: { live: 'sc_live_demo_9b1e6d2c8a7f' } } });
    expect(() => resolveConnection({}, {}, store)).toThrow(
      expect.objectContaining({
        code: 'no_api_key',
        message: 'no test key in profile "default"',
        hint: expect.stringMatching(
          /^the profile holds a live key: add --env live, or make live its default \(giftcodes config set default-env live\); for a test key: giftcodes login --env test/,
        ),
      }),
    );
    expect(() => resolveConnection({ env: 'test' }, {}, store)).toThrow(
      expect.objectContaining({
        hint: expect.stringMatching(/^set GIFTCODES_API_KEY, or run: giftcodes login --env test/),
      }),
    );
  });
});

describe('a base URL without its scheme', () => {
  // A review: `--base-url 127.0.0.1:33911` was hinted `for example: --base-url https://api.example.com`.
  it('is hinted with the URLs built from what was typed: http first for this machine, https first for another', () => {
    const hint = (raw: string): string | undefined => {
      try {
        normaliseBaseUrl(raw);
      } catch (error) {
        return (error as { hint?: string }).hint;
      }
      return undefined;
    };
    expect(hint('127.0.0.1:33911')).toBe('add the scheme: http://127.0.0.1:33911, or https://127.0.0.1:33911');
    expect(hint('localhost:4010')).toBe('add the scheme: http://localhost:4010, or https://localhost:4010');
    expect(hint('api.example.com/x')).toBe('add the scheme: https://api.example.com/x, or http://api.example.com/x');
    expect(hint('http//x')).toBe('for example: --base-url https://api.example.com');
  });
});

// A desk review: under a mistyped GIFTCODES_CONFIG_DIR the error said "no test key in profile "default"" and its hint
// a login, which stored the key into the typo.
describe('no key where GIFTCODES_CONFIG_DIR names a directory that does not exist', () => {
  it('says the directory does not exist and asks to check the variable first; unset, or the directory there, as before', async () => {
    const missing = join(tempDir(), 'giftcodse');
    const store = await ConfigStore.open(missing);
    expect(() => resolveConnection({}, { GIFTCODES_CONFIG_DIR: missing }, store)).toThrow(
      expect.objectContaining({
        code: 'no_api_key',
        exitCode: 3,
        message: `no test key: the config directory ${missing} does not exist`,
        hint: expect.stringMatching(
          /^check GIFTCODES_CONFIG_DIR for a typo; else set GIFTCODES_API_KEY, or run: giftcodes login --env test/,
        ),
      }),
    );
    // The default directory on a new machine is no typo.
    expect(() => resolveConnection({}, {}, store)).toThrow(
      expect.objectContaining({ message: 'no test key in profile "default"' }),
    );
    const there = await storeWith({ default: {} });
    expect(() => resolveConnection({}, { GIFTCODES_CONFIG_DIR: there.dir }, there)).toThrow(
      expect.objectContaining({ message: 'no test key in profile "default"' }),
    );
  });
});

// A review: GIFTCODES_PROFILE='a b' made a profile "a b" that no --profile could name (its hint `login --profile a
// b` failed when pasted), and `__proto__` wrote a config entry no read found; --profile refused both.
describe('GIFTCODES_PROFILE', () => {
  it("is held to --profile's rule: exit 2 naming the variable; a good one is taken, trimmed as the flag is", async () => {
    const store = await storeWith({ default: {}, small: {} });
    for (const bad of ['a b', '__proto__', 'x'.repeat(65)])
      expect(() => resolveProfileName({}, { GIFTCODES_PROFILE: bad }, store)).toThrow(
        expect.objectContaining({
          exitCode: 2,
          code: 'invalid_profile',
          message: expect.stringMatching(/^GIFTCODES_PROFILE: ".+" is not a profile name/),
        }),
      );
    expect(resolveProfileName({}, { GIFTCODES_PROFILE: 'small' }, store)).toBe('small');
    expect(resolveProfileName({ profile: 'default' }, { GIFTCODES_PROFILE: 'a b' }, store)).toBe('default');
    expect(resolveProfileName({}, {}, store)).toBe('default');
  });
});
