// Interactive flows in a real terminal (tmux): what a person sees and types. No CI variable here,
// so the CLI prompts as it would for a person.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, servedApi, tempDir } from '../helpers/e2e.js';
import { registerSecret } from '../helpers/leaks.js';
import { giftcodesTerminals, type Terminal } from '../helpers/tmux.js';

const WRONG_KEY = 'sc_test_wrongwrong0000';
registerSecret(WRONG_KEY);

const served = servedApi();
/** giftcodes in a terminal, as a person at a shell would run it; the screen ends with `[exit N]`. */
const giftcodesInTerminal = giftcodesTerminals();

function savedConfig(configDir: string): string {
  const file = join(configDir, 'config.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

describe('login at a terminal', () => {
  it('masks the key, asks again after a rejected key, and saves a good one', async () => {
    const configDir = tempDir();
    const t = giftcodesInTerminal(['login', '--base-url', served.url], configDir);
    await t.waitFor('API key');
    t.type(WRONG_KEY);
    const typing = await t.waitFor('*'.repeat(WRONG_KEY.length));
    expect(typing).not.toContain('sc_test_');
    t.press('Enter');
    await t.waitFor(/try again/);
    await t.waitFor(/API key[^\n]*\n*$/);
    t.answer(DEMO_KEYS.test);
    const done = await t.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 0]');
    expect(done).toMatch(/saved the test key sc_test_…[0-9a-z]{4} for reseller rs_demo/);
    expect(done).not.toContain(DEMO_KEYS.test);
    expect(done).not.toContain(WRONG_KEY);
    expect(JSON.parse(savedConfig(configDir))).toMatchObject({
      profiles: { default: { keys: { test: DEMO_KEYS.test } } },
    });
  });

  it('Ctrl-C at the prompt exits 130 and saves nothing', async () => {
    const configDir = tempDir();
    const t = giftcodesInTerminal(['login', '--base-url', served.url], configDir);
    await t.waitFor('API key');
    t.type('sc_test_demo_4f3c');
    await t.waitFor('*****');
    t.press('C-c');
    const done = await t.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 130]');
    expect(savedConfig(configDir)).not.toContain('sc_test_');
  });
});

describe('a live order at a terminal asks first', () => {
  let configDir: string;
  beforeAll(async () => {
    configDir = await loggedIn(served.server, DEMO_KEYS.live);
  });

  const place = async (): Promise<Terminal> => {
    const t = giftcodesInTerminal(
      ['order', 'place', '--env', 'live', '--product', 'amazon-us-10', '--quantity', '1'],
      configDir,
    );
    await t.waitFor(/LIVE order for 1 × amazon-us-10/);
    return t;
  };

  it('n cancels: exit 130 and nothing reaches the server', async () => {
    const before = (await ledger(served.server)).orders.length;
    const t = await place();
    t.answer('n');
    const done = await t.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 130]');
    expect(done).toMatch(/nothing was sent/);
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('Ctrl-C at the question says what n says: exit 130, nothing was sent', async () => {
    const before = (await ledger(served.server)).orders.length;
    const t = await place();
    t.press('C-c');
    const done = await t.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 130]');
    expect(done).toMatch(/error: cancelled: nothing was sent\n/);
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('y places it', async () => {
    const before = (await ledger(served.server)).orders.length;
    const t = await place();
    t.answer('y');
    const done = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(done).toContain('[exit 0]');
    const orders = (await ledger(served.server)).orders;
    expect(orders.length).toBe(before + 1);
    expect(orders.at(-1)).toMatchObject({ product_id: 'amazon-us-10', quantity: 1, environment: 'live' });
  });
});

// Broke: ping, order show and status showed a blank terminal while they waited on an API that accepts and never
// answers (~3 minutes at the defaults, a support agent's customer on the phone), then the error. Now a spinner
// says what is awaited, as catalog list, login and doctor do, and is cleared before the error.
describe('waiting on a silent API at a terminal', () => {
  let silentUrl = '';
  beforeAll(async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    return () => {
      silent.close();
    };
  });

  it.each([
    [['ping'], /asking http:\/\/127\.0\.0\.1:\d+ \(GET \/v1\/ping\)/],
    [['order', 'show', 'ord_zzzzzz'], /asking http:\/\/127\.0\.0\.1:\d+ for order ord_zzzzzz/],
    [['status'], /checking the key \(GET \/v1\/ping\)/],
  ])('giftcodes %s: a spinner while it waits, gone when it ends', async (args, waiting) => {
    const t = giftcodesInTerminal(
      [...args, '--base-url', silentUrl, '--request-timeout', '1.5', '--retries', '1'],
      tempDir(),
      { GIFTCODES_API_KEY: DEMO_KEYS.test },
      { columns: 80, rows: 24 },
    );
    await t.waitFor(waiting);
    const done = await t.waitFor(/\[exit \d+\]/);
    expect(done).toContain('[exit 5]');
    expect(done).not.toMatch(waiting);
  });
});
