// GIFTCODES_BASE_URL left in a shell (the serve banner says to set it) wins over the profile's base URL, as
// docs/global-options.md's precedence says: a person's day read a working key called broken, `config show` disagree
// with `config list`, and a refused GIFTCODES_API_KEY told to log in. What each command says of where the base URL
// and the key came from; the precedence itself is unchanged.
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, loggedIn, runCli, servedApi, tempDir, unstamped, seedFile } from '../helpers/e2e.js';
import { registerSecret } from '../helpers/leaks.js';

/** A key no server knows: refused wherever it is sent. */
const REVOKED = 'sc_test_revokedkey_0123456789abcd';
registerSecret(REVOKED);

/** A server whose only reseller has keys of its own: the demo keys are refused there. */
function otherSeed(): string[] {
  const keys = { test: ['sc_test_elsewhere_0123456789abcdef'], live: [] };
  return ['--seed', seedFile({ resellers: [{ id: 'rs_other', keys, wallet: { USD: 1000 }, supply: {} }] })];
}

const home = servedApi(['--fulfil-after', '50']);
const other = servedApi(otherSeed);

/** A config dir logged in to `home`, and the id of an order placed there through the CLI (so in its local record). */
async function orderPlaced(): Promise<{ configDir: string; id: string }> {
  const configDir = await loggedIn(home.server, DEMO_KEYS.test);
  const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--wait', '--json'], {
    configDir,
  });
  expect(placed.code, placed.stderr).toBe(0);
  return { configDir, id: (JSON.parse(placed.stdout) as { id: string }).id };
}

describe('GIFTCODES_BASE_URL of another server than the profile’s', () => {
  it('status names where the base URL came from, and its hint names the variable before a new key', async () => {
    const configDir = await loggedIn(home.server, DEMO_KEYS.test);
    const env = { GIFTCODES_BASE_URL: other.url };
    const status = await runCli(['status'], { configDir, env });
    expect(status.code).toBe(3);
    expect(status.stdout).toContain(
      `    - base URL: ${other.url} (from GIFTCODES_BASE_URL)\n    - the profile's: ${home.url}, overridden\n`,
    );
    expect(unstamped(status.stderr)).toContain(
      `hint: see the lines above; GIFTCODES_BASE_URL (${other.url}) overrides the profile's base URL (${home.url}): unset it`,
    );
    // Without the variable the same key works: precedence is unchanged, only said.
    const unset = await runCli(['status'], { configDir });
    expect(unset.code, unset.stderr).toBe(0);
    expect(unset.stdout).toContain(`    - base URL: ${home.url}\n`);

    const ping = await runCli(['ping'], { configDir, env });
    expect(ping.code).toBe(3);
    expect(unstamped(ping.stderr)).toContain(
      `hint: GIFTCODES_BASE_URL (${other.url}) overrides the profile's base URL (${home.url}): unset it`,
    );
  });

  it('config show says what the profile holds beside what the variable overrides it with', async () => {
    const configDir = await loggedIn(home.server, DEMO_KEYS.test);
    const env = { GIFTCODES_BASE_URL: other.url };
    const shown = await runCli(['config', 'show'], { configDir, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `base URL     ${other.url} (from GIFTCODES_BASE_URL)\n             the profile's: ${home.url}, overridden\n`,
    );
    const json = await runCli(['config', 'show', '--json'], { configDir, env });
    expect(JSON.parse(json.stdout)).toMatchObject({
      baseUrl: other.url,
      baseUrlFrom: 'GIFTCODES_BASE_URL',
      profileBaseUrl: home.url,
    });
    const plain = await runCli(['config', 'show', '--json'], { configDir });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('profileBaseUrl');
  });

  it('login warns that the variable in the shell will win over the base URL it saved', async () => {
    const configDir = tempDir();
    const login = await runCli(['login', '--api-key-stdin', '--base-url', home.url], {
      configDir,
      input: DEMO_KEYS.test,
      env: { GIFTCODES_BASE_URL: other.url },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(unstamped(login.stderr)).toContain(
      `warning: GIFTCODES_BASE_URL (${other.url}) overrides the profile's base URL (${home.url}) in every command run with it: unset it`,
    );
    const same = await runCli(['login', '--api-key-stdin', '--base-url', home.url], {
      configDir: tempDir(),
      input: DEMO_KEYS.test,
      env: { GIFTCODES_BASE_URL: home.url },
    });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('overrides');
  });

  it('order show, order watch and codes get: one line says where a recorded order is read, and why', async () => {
    const { configDir, id } = await orderPlaced();
    for (const verb of [
      ['order', 'show'],
      ['order', 'watch'],
      ['codes', 'get'],
    ]) {
      const result = await runCli([...verb, id], { configDir, env: { GIFTCODES_BASE_URL: other.url } });
      expect(result.code, result.stderr).toBe(0);
      const lines = unstamped(result.stderr)
        .split('\n')
        .filter((line) => line.includes('where it was placed'));
      expect(lines).toEqual([
        `reading ${id.slice(0, 12)}… at ${home.url}, where it was placed (not GIFTCODES_BASE_URL)`,
      ]);
      expect(lines[0]!.length).toBeLessThanOrEqual(100);
    }
  });
});

describe('a refused GIFTCODES_API_KEY', () => {
  it('gets the hint ping gives in every verb that reads an order: set it, or unset it', async () => {
    const { configDir, id } = await orderPlaced();
    const hint =
      "hint: the key in GIFTCODES_API_KEY was refused (it overrides the profile's): set it to a valid key, or unset it to use the profile's\n";
    for (const args of [
      ['ping'],
      ['catalog', 'list'],
      ['order', 'show', id],
      ['order', 'watch', id],
      ['codes', 'get', id],
    ]) {
      const result = await runCli(args, { configDir, env: { GIFTCODES_API_KEY: REVOKED } });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(3);
      expect(unstamped(result.stderr), args.join(' ')).toContain(hint);
    }
  });
});
