// `config show` and `status` say the reseller `login` learned for each key (the profile field `resellers`): a support
// desk asked "whose key is this?" of two profiles holding keys of one reseller had to ping for it or read
// config.json. Text only: the --json documents are as documented (status's resellerId is the ping's answer).
import { describe, expect, it } from 'vitest';
import { run as show } from '../../src/commands/config/show.js';
import { run as status } from '../../src/commands/status.js';
import { ConfigStore } from '../../src/config/store.js';
import { keyIdOf } from '../../src/journal/intent.js';
import { DEMO_KEYS, tempDir } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

const URL = 'http://127.0.0.1:4010';

/** A config of two profiles, both logged in with keys of rs_demo (login's record of it), and one key of rs_small. */
async function twoProfiles(): Promise<string> {
  const dir = tempDir();
  const store = await ConfigStore.open(dir);
  const seen = (key: string, id: string) => ({ id, keyId: keyIdOf(key), baseUrl: URL });
  await store.setKey('default', 'test', DEMO_KEYS.test, URL, seen(DEMO_KEYS.test, 'rs_demo'));
  await store.setKey('default', 'live', DEMO_KEYS.live, URL, seen(DEMO_KEYS.live, 'rs_demo'));
  await store.setKey('ops', 'test', DEMO_KEYS.test, URL, seen(DEMO_KEYS.test, 'rs_demo'));
  await store.setKey('ops', 'live', DEMO_KEYS.smallLive, URL, seen(DEMO_KEYS.smallLive, 'rs_small'));
  // A key saved without login's ping (no reseller learned): nothing is said of it.
  await store.setKey('bare', 'test', DEMO_KEYS.smallTest, URL);
  return dir;
}

async function showOf(dir: string, profile: string, json = false): Promise<string> {
  const { io, out } = capturedIo({ json });
  await show({ profile }, { io, config: () => ConfigStore.open(dir) });
  await io.flushOut();
  return out();
}

describe('the reseller login learned, for people', () => {
  it('config show: one reseller for both keys, per key where they differ, no line where none was learned', async () => {
    const dir = await twoProfiles();
    expect(await showOf(dir, 'default')).toMatch(/^reseller {5}rs_demo$/m);
    expect(await showOf(dir, 'ops')).toMatch(/^reseller {5}rs_demo \(test key\), rs_small \(live key\)$/m);
    expect(await showOf(dir, 'bare')).not.toMatch(/^reseller/m);
    // --json as documented: no field added.
    expect(JSON.parse(await showOf(dir, 'default', true))).not.toHaveProperty('reseller');
  });

  it('status --offline: each key its reseller, as login learned it; --json resellerId still null (no ping)', async () => {
    const dir = await twoProfiles();
    const deps = (json: boolean) => {
      const { io, out } = capturedIo({ json });
      return {
        io,
        out,
        config: () => ConfigStore.open(dir),
        clientFor: () => Promise.reject(new Error('status --offline asked the API')),
      };
    };
    const text = deps(false);
    await status({ offline: true }, text as unknown as Parameters<typeof status>[1]);
    await text.io.flushOut();
    const lines = text.out().split('\n');
    expect(lines.filter((l) => l.includes('- reseller: '))).toHaveLength(4);
    const ops = lines.slice(lines.indexOf('profile "ops"'));
    expect(ops.join('\n')).toMatch(
      /test key sc_test_…7e2d: not checked \(--offline\)\n.*\n {4}- reseller: rs_demo \(as login learned it\)/,
    );
    expect(ops.join('\n')).toMatch(
      /live key sc_live_…5e1b: not checked \(--offline\)\n.*\n {4}- reseller: rs_small \(as login learned it\)/,
    );
    const bare = lines.slice(lines.indexOf('profile "bare"'), lines.indexOf('profile "bare"') + 4).join('\n');
    expect(bare).not.toContain('reseller');

    const json = deps(true);
    await status({ offline: true }, json as unknown as Parameters<typeof status>[1]);
    await json.io.flushOut();
    const rows = JSON.parse(json.out()) as { resellerId: string | null }[];
    expect(rows.map((r) => r.resellerId)).toEqual(rows.map(() => null));
  });
});
