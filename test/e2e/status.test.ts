// Who am I, and which key is this: `giftcodes status`, ping's key source, login's reseller check, and 401
// hints that fit their cause.
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, DEMO_KEYS, loggedIn, runCli, servedApi, unstamped } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const api = servedApi();
const terminal = giftcodesTerminals();

interface Row {
  profile: string;
  environment: string;
  active: boolean;
  key: string;
  source: string;
  baseUrl: string;
  resellerId: string | null;
  works: boolean | null;
}

describe('giftcodes status', () => {
  it('--json: every profile and environment with its masked key, source, reseller, base URL and whether it works', async () => {
    const configDir = await loggedIn(api.server, BOTH_KEYS);
    const big = await runCli(['login', '--profile', 'big', '--api-key-stdin', '--base-url', api.url], {
      configDir,
      input: DEMO_KEYS.smallTest,
    });
    expect(big.code, big.stderr).toBe(0);
    const result = await runCli(['status', '--json'], { configDir });
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows).toEqual([
      {
        profile: 'default',
        environment: 'test',
        active: true,
        key: 'sc_test_…7e2d',
        source: 'config file',
        baseUrl: api.url,
        resellerId: 'rs_demo',
        works: true,
      },
      {
        profile: 'default',
        environment: 'live',
        active: false,
        key: 'sc_live_…8a7f',
        source: 'config file',
        baseUrl: api.url,
        resellerId: 'rs_demo',
        works: true,
      },
      {
        profile: 'big',
        environment: 'test',
        active: false,
        key: 'sc_test_…1b3f',
        source: 'config file',
        baseUrl: api.url,
        resellerId: 'rs_small',
        works: true,
      },
    ]);
  });

  it('puts a key from GIFTCODES_API_KEY first, says so, and --offline pings nothing', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const result = await runCli(['status', '--json', '--offline'], {
      configDir,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.smallLive, GIFTCODES_BASE_URL: 'http://127.0.0.1:1' },
    });
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as Row[];
    expect(rows[0]).toMatchObject({
      environment: 'live',
      active: true,
      source: 'GIFTCODES_API_KEY',
      key: 'sc_live_…5e1b',
      works: null,
    });
    expect(rows[1]).toMatchObject({ profile: 'default', active: false, source: 'config file', works: null });
    // works is there, null offline: a --query of it is never told the field is missing (a review read "no such field").
    const works = await runCli(['status', '--offline', '--query', '[0].works'], {
      configDir,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.smallLive },
    });
    expect([works.code, works.stdout], works.stderr).toEqual([0, 'null\n']);
    expect(unstamped(works.stderr)).toBe('warning: --query "[0].works" gave null: works is there, and null\n');
  });

  // A support review: status alone read a mistyped GIFTCODES_CONFIG_DIR as "not logged in to any profile" and told a
  // login, which would have stored the key into the typo; every other command names the missing directory.
  it('a config directory that does not exist is named, with the typo to check, not "not logged in"', async () => {
    const missing = `${await loggedIn(api.server, DEMO_KEYS.test)}-typo`;
    const result = await runCli(['status'], { configDir: missing });
    expect(result.code).toBe(3);
    expect(unstamped(result.stderr)).toContain(
      `error: no API key: the config directory ${missing} does not exist\nhint: check GIFTCODES_CONFIG_DIR for a typo; else set GIFTCODES_API_KEY, or run: `,
    );
    expect(result.stderr).not.toContain('not logged in');
  });

  it('a key that does not work is marked, and the run exits with its exit code', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const result = await runCli(['status'], {
      configDir,
      env: { GIFTCODES_API_KEY: 'sc_live_not_a_known_key_at_all' },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/✗ live key sc_live_…[a-z_]{4}: does not work: .*401/);
    expect(result.stdout).toContain('✓ test key sc_test_…7e2d: works, reseller rs_demo');
    // A new login would change nothing while the variable overrides the profile's key: the hint says so.
    expect(result.stderr).toMatch(/hint: see the lines above; the key in GIFTCODES_API_KEY overrides the profile's/);
    expect(result.stderr).not.toContain('giftcodes login');
    // With --json the rows are the document: its hint names no lines above (a support review).
    const json = await runCli(['status', '--json'], {
      configDir,
      env: { GIFTCODES_API_KEY: 'sc_live_not_a_known_key_at_all' },
    });
    expect(json.code).toBe(3);
    const error = (JSON.parse(json.stderr.trim().split('\n').at(-1)!) as { error: { hint: string } }).error;
    expect(error.hint).toMatch(/^each key's error is in the document on stdout; /);
  });

  it('a server out of reach: the hint is how to reach it, not to replace a key that was never checked', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const result = await runCli(['status', '--base-url', 'http://127.0.0.1:1'], { configDir });
    expect(result.code).toBe(5);
    // Not the key's fault: it was never checked (a person's day read "the key does not work" of a server down).
    expect(result.stderr).toMatch(/error: the key could not be checked: the API could not be reached\n/);
    expect(result.stdout).toMatch(/✗ test key sc_test_…7e2d: not checked: cannot reach http:\/\/127\.0\.0\.1:1/);
    expect(result.stdout).not.toContain('does not work');
    expect(result.stderr).toMatch(
      /hint: see the lines above; nothing listens on 127\.0\.0\.1:1: start the reference server with giftcodes serve --port 1, or check --base-url\n/,
    );
    expect(result.stderr).not.toContain('replace a key');
    // Where the base URL came from is what the hint names: it said --base-url of GIFTCODES_BASE_URL.
    const fromEnv = await runCli(['status'], { configDir, env: { GIFTCODES_BASE_URL: 'http://127.0.0.1:1' } });
    expect(fromEnv.code).toBe(5);
    expect(fromEnv.stderr).toContain('or check GIFTCODES_BASE_URL');
  });

  it('fits 80 columns on a terminal: nothing cut, every line whole', async () => {
    const configDir = await loggedIn(api.server, BOTH_KEYS);
    const screen = await terminal(['status'], configDir, {}, { columns: 80, rows: 30 }).waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    const lines = screen.split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines).toContain('profile "default"');
    expect(lines).toContain('  ✓ test key sc_test_…7e2d: works, reseller rs_demo');
    expect(lines).toContain('  ✓ live key sc_live_…8a7f: works, reseller rs_demo');
    expect(lines).toContain(`    - base URL: ${api.url}`);
    expect(lines).toContain('    - from: config file');
  });

  // A person's-day review: a key line longer than the terminal was cut by it mid-word (`https://api.reseller-platf` /
  // `orm.example…` at column 0), where doctor's and every hint's lines break at their spaces, indented.
  it('a key line longer than the terminal breaks at its spaces, indented under it', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const far = 'http://127.0.0.1:1/reseller-platform/api';
    const screen = await terminal(
      ['status', '--retries', '0', '--base-url', far],
      configDir,
      {},
      { columns: 80, rows: 30 },
    ).waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 5]');
    // (The terminal's capture joins the lines the terminal itself folded: a line longer than 80 is one it cut.)
    const lines = screen.split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    const at = lines.findIndex((line) => line.startsWith('  ✗ test key sc_test_…7e2d: not checked:'));
    expect(at, screen).toBeGreaterThanOrEqual(0);
    expect(lines[at + 1], screen).toMatch(/^ {4}\S/);
    expect(lines[at + 1], screen).not.toMatch(/^ {4}- /);
  });
});

describe('which key ping used', () => {
  it('says when the key came from GIFTCODES_API_KEY rather than the profile', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const fromEnv = await runCli(['ping'], { configDir, env: { GIFTCODES_API_KEY: DEMO_KEYS.smallTest } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(fromEnv.stdout).toMatch(/^key\s+sc_test_…1b3f \(from GIFTCODES_API_KEY, not the profile\)$/m);
    const fromProfile = await runCli(['ping'], { configDir });
    expect(fromProfile.stdout).toMatch(/^key\s+sc_test_…7e2d \(from the config file\)$/m);
  });
});

describe("login with a key of another reseller than the profile's other key", () => {
  it('is refused when not interactive, naming both resellers; --force saves it with a warning', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const refused = await runCli(['login', '--api-key-stdin'], { configDir, input: DEMO_KEYS.smallLive });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'this live key belongs to reseller rs_small, but the test key of profile "default" belongs to reseller rs_demo',
    );
    expect(refused.stderr).toContain('--force');
    const before = JSON.parse((await runCli(['status', '--json', '--offline'], { configDir })).stdout) as Row[];
    expect(before.map((r) => r.environment)).toEqual(['test']);

    const forced = await runCli(['login', '--api-key-stdin', '--force'], { configDir, input: DEMO_KEYS.smallLive });
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('belongs to reseller rs_small');
    const same = await runCli(['login', '--api-key-stdin'], {
      configDir: await loggedIn(api.server, DEMO_KEYS.test),
      input: DEMO_KEYS.live,
    });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('belongs to reseller');
  });

  it('asks on a terminal, and a No saves nothing', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const t = terminal(['login'], configDir);
    await t.waitFor('API key');
    t.answer(DEMO_KEYS.smallLive);
    await t.waitFor('Save it in profile "default" anyway?');
    expect(t.screen()).toContain(
      'belongs to reseller rs_small, but the test key of profile "default" belongs to reseller rs_demo',
    );
    t.answer('n');
    const screen = await t.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 2]');
    const rows = JSON.parse((await runCli(['status', '--json', '--offline'], { configDir })).stdout) as Row[];
    expect(rows.map((r) => r.environment)).toEqual(['test']);
  });
});

describe('a refused key gets the hint for its cause', () => {
  it('a key with the right prefix is never told what keys start with; a key from GIFTCODES_API_KEY is not sent to login', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    for (const key of ['sc_test_short_key1', 'sc_test_long_enough_but_unknown_key']) {
      const result = await runCli(['ping'], { configDir, env: { GIFTCODES_API_KEY: key } });
      expect(result.code).toBe(3);
      expect(result.stderr).not.toContain('keys start with sc_test_ or sc_live_');
      expect(result.stderr).toMatch(/hint: the key in GIFTCODES_API_KEY was refused/);
    }
    const short = await runCli(['login', '--api-key-stdin'], { configDir, input: 'sc_test_abc' });
    expect(short.code).toBe(2);
    expect(short.stderr).not.toContain('it must be sc_test_ or sc_live_');
    expect(short.stderr).toContain('after sc_test_ come at least 8 letters');
  });
});
