// config set checks a value against what every later command would do with it, before it is written: a plain
// http base URL to another machine (which every command refuses to send a key to) is exit 2 now, not the night's
// job failing; and a setting that makes a profile says so, so a misspelt --profile is seen at once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkField, run } from '../../src/commands/config/set.js';
import { ConfigStore } from '../../src/config/store.js';
import { unstamped, tempDir } from '../helpers/e2e.js';
import { capturedIo, terminalIo } from '../helpers/inprocess.js';

function setIn(dir: string, o: { json?: boolean } = {}) {
  const captured = capturedIo(o);
  const deps = { io: captured.io, config: () => ConfigStore.open(dir) };
  return { captured, set: (field: string, value: string, profile?: string) => run({ field, value, profile }, deps) };
}

describe('config set', () => {
  // A person's day: a success line the terminal broke mid-word, where the warnings beside it were broken at spaces.
  it('on a terminal, its line is broken at its spaces to the width, each continuation under its first word', async () => {
    const dir = tempDir();
    const io = terminalIo(40);
    let out = '';
    io.stdout.on('data', (c: Buffer) => (out += c.toString()));
    await run(
      { field: 'history-days', value: '30', profile: 'shop-eu-nightly' },
      { io, config: () => ConfigStore.open(dir) },
    );
    await io.flushOut();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out).toBe('✓ history-days is now 30 in profile\n  "shop-eu-nightly"\n');
  });

  it('refuses a plain http base URL to another machine (exit 2), and writes nothing', async () => {
    const dir = tempDir();
    const { set } = setIn(dir);
    await expect(set('base-url', 'http://api.example.com')).rejects.toMatchObject({
      exitCode: 2,
      code: 'insecure_base_url',
      message:
        'refusing to send an API key over plain http to api.example.com: every command with this base URL would refuse it',
      hint: 'use https://api.example.com',
    });
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
    // This machine's own server over http is fine, as every command allows it.
    await set('base-url', 'http://127.0.0.1:4010');
    expect((await ConfigStore.open(dir)).profile('default').baseUrl).toBe('http://127.0.0.1:4010');
  });

  it('says when a setting makes a new profile, naming the others; not for one that exists', async () => {
    const dir = tempDir();
    const { captured, set } = setIn(dir);
    await set('default-env', 'live');
    expect(unstamped(captured.err())).toBe('');
    await set('default-env', 'live', 'defualt');
    expect(unstamped(captured.err())).toBe('made a new profile "defualt" (the others: default)\n');
    await set('history-days', '30', 'defualt');
    expect(unstamped(captured.err())).toBe('made a new profile "defualt" (the others: default)\n');
  });

  // A review: `config set history-days 30 --json` printed "value": "30", a string for a number setting.
  it('--json prints the value of the type the profile stores, as config show --json does', async () => {
    const dir = tempDir();
    const recipient = 'age1ltrss057ry2zz9atsjjyladvsj8ed9ajh7tctwn0hrsaq7qufqwqujnhqk';
    const cases: [string, string, unknown][] = [
      ['history-days', '30', 30],
      ['default-env', 'live', 'live'],
      ['base-url', 'https://api.example.com/', 'https://api.example.com'],
      ['encrypt-to', `${recipient}, ${recipient}`, [recipient, recipient]],
      ['encrypt-to', 'none', []],
      ['proxy', 'http://user:secret@proxy.example.com:3128', expect.not.stringContaining('secret')],
    ];
    for (const [field, value, printed] of cases) {
      const { captured, set } = setIn(dir, { json: true });
      await set(field, value);
      expect(JSON.parse(captured.out()), field).toEqual({ profile: 'default', field, value: printed });
      // What it prints is what the profile holds (the proxy's password aside, never echoed).
      const held = (await ConfigStore.open(dir)).profile('default');
      if (field === 'history-days') expect(held.historyDays).toBe(printed);
      if (field === 'encrypt-to') expect(held.encryptTo ?? []).toEqual(printed);
      if (field === 'base-url') expect(held.baseUrl).toBe(printed);
    }
  });
});

// A person's day: `config set defualt-env live` listed the fields, where catalog list and order place say "did you mean".
describe('an unknown config field', () => {
  it('names the nearest field first, then lists them all; a word near none lists them', () => {
    expect(() => checkField('defualt-env')).toThrow(
      expect.objectContaining({
        message: 'unknown config field "defualt-env"',
        hint: 'did you mean default-env? fields: base-url, default-env, encrypt-to, history-days, proxy',
      }),
    );
    expect(() => checkField('baseurl')).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/^did you mean base-url\? /) }),
    );
    expect(() => checkField('colour')).toThrow(
      expect.objectContaining({ hint: 'fields: base-url, default-env, encrypt-to, history-days, proxy' }),
    );
    expect(() => checkField('api-key')).toThrow(
      expect.objectContaining({ hint: 'keys are stored with: giftcodes login' }),
    );
  });
});
