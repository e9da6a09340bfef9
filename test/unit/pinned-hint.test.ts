// A hint's commands run where the failing run did: its GIFTCODES_CONFIG_DIR (a cron job's is not the operator's)
// and its --profile, put before each `giftcodes <command>` in it (src/output/pinned-hint.ts).
import { describe, expect, it } from 'vitest';
import { pinnedHint } from '../../src/output/pinned-hint.js';

describe('pinnedHint', () => {
  it('puts the config directory and profile before each command (order pending: the directory only)', () => {
    expect(
      pinnedHint('run: giftcodes order pending; or (giftcodes order list)', { configDir: '/srv/gc', profile: 'night' }),
    ).toBe(
      'run: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes order pending; or (GIFTCODES_CONFIG_DIR=/srv/gc giftcodes --profile night order list)',
    );
    // order pending, the safety net, lists every profile's and environment's unfinished orders: --profile and --env
    // narrow it, and a hint's list hid the orders it was about (an adversarial review).
    expect(pinnedHint('list them with: giftcodes order pending', { configDir: '/srv/gc', env: 'test' })).toBe(
      'list them with: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes order pending',
    );
    expect(pinnedHint('nothing to run', {})).toBe('nothing to run');
  });

  // A review: a cron job's GIFTCODES_BASE_URL, its failed order's "to order it anew" pasted in a person's shell, and
  // the new order went to the profile's own server.
  it("pins GIFTCODES_BASE_URL in a hint's order place only, and a --base-url flag everywhere", () => {
    const hint = 'ask the provider; to order it anew: giftcodes order place --env test --product p --quantity 3';
    const place = { configDir: '/srv/gc', envBaseUrl: 'http://10.0.0.5:4010' };
    expect(pinnedHint(hint, place)).toBe(
      'ask the provider; to order it anew: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes --base-url http://10.0.0.5:4010 order place --env test --product p --quantity 3',
    );
    expect(pinnedHint(`${hint}; see giftcodes catalog list`, { envBaseUrl: 'http://h' })).toBe(
      'ask the provider; to order it anew: giftcodes --base-url http://h order place --env test --product p --quantity 3; see giftcodes catalog list',
    );
    // The flag wins; a hint that names its server already keeps it.
    expect(pinnedHint(hint, { baseUrl: 'http://flag', envBaseUrl: 'http://env' })).toContain(
      'giftcodes --base-url http://flag order place',
    );
    expect(pinnedHint(`${hint} --base-url http://there`, { envBaseUrl: 'http://env' })).not.toContain('http://env');
  });

  // A person's day: a cron job's key in GIFTCODES_API_KEY; its hint's order resume, pasted in a shell without it, was
  // refused (exit 3, no test key). The key is never printed: the hint says where it was.
  it("says the key came from GIFTCODES_API_KEY where its commands need one (order, codes), once; not login's", () => {
    const place = { configDir: '/srv/gc', keyFromEnv: true };
    const resumed = pinnedHint('finish it: giftcodes order resume k1', place);
    expect(resumed).toBe(
      'finish it: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes order resume k1 (run with the API key this run read from GIFTCODES_API_KEY)',
    );
    expect(pinnedHint(resumed, place)).toBe(resumed);
    expect(pinnedHint('then giftcodes codes get ord_1 --out c.csv', { keyFromEnv: true })).toMatch(
      /GIFTCODES_API_KEY\)$/,
    );
    expect(pinnedHint('log in with: giftcodes login --env live', place)).not.toContain('GIFTCODES_API_KEY');
    expect(pinnedHint('the order placed at 10:00 was shown', place)).not.toContain('GIFTCODES_API_KEY');
    expect(pinnedHint('run giftcodes login --env live, then the same order again', place)).not.toContain(
      'GIFTCODES_API_KEY',
    );
    expect(pinnedHint('giftcodes order resume k', { ...place, profile: 'night', env: 'live' })).toBe(
      'GIFTCODES_CONFIG_DIR=/srv/gc giftcodes order resume k (run with the API key this run read from GIFTCODES_API_KEY)',
    );
    expect(pinnedHint('see giftcodes order list', { ...place, profile: 'night', env: 'live' })).toMatch(
      /giftcodes --profile night --env live order list \(run with the API key/,
    );
    expect(pinnedHint('finish it: giftcodes order resume k1', { configDir: '/srv/gc' })).not.toContain(
      'GIFTCODES_API_KEY',
    );
  });

  // An adversarial review: a cron job's hint "run the same command again", run in the person's own shell (another
  // GIFTCODES_CONFIG_DIR), placed a second order beside the interrupted one it could not see.
  it("says the variables that chose this run's journal, profile and server beside 'the same command again'", () => {
    const hint = 'nothing is lost or charged twice: run the same command again, or: giftcodes order resume k1';
    expect(pinnedHint(hint, { configDir: '/srv/gc' })).toBe(
      'nothing is lost or charged twice: run the same command again (with GIFTCODES_CONFIG_DIR=/srv/gc in its environment, as this run had), or: GIFTCODES_CONFIG_DIR=/srv/gc giftcodes order resume k1',
    );
    expect(
      pinnedHint('fix it, then run the same plan again with --batch 2026-12-01: it orders nothing twice', {
        configDir: '/srv/gc',
        envProfile: 'night',
        profile: 'night',
        envBaseUrl: 'http://10.0.0.5:4010',
      }),
    ).toBe(
      'fix it, then run the same plan again with --batch 2026-12-01 (with GIFTCODES_CONFIG_DIR=/srv/gc GIFTCODES_PROFILE=night GIFTCODES_BASE_URL=http://10.0.0.5:4010 in its environment, as this run had): it orders nothing twice',
    );
    // At the end of its clause: what is said of the command stays with it.
    expect(
      pinnedHint("then the same plan run again with --batch 'a b' orders it, under a new key", { configDir: '/d' }),
    ).toBe(
      "then the same plan run again with --batch 'a b' orders it (with GIFTCODES_CONFIG_DIR=/d in its environment, as this run had), under a new key",
    );
    expect(
      pinnedHint("run the same command again to finish them (the same --batch 'd 1'): rows", { configDir: '/d' }),
    ).toBe(
      "run the same command again to finish them (the same --batch 'd 1') (with GIFTCODES_CONFIG_DIR=/d in its environment, as this run had): rows",
    );
    // A --base-url flag is on the command line already; so is --profile; a run with neither variable is as it was.
    expect(pinnedHint(hint, { baseUrl: 'http://flag', envBaseUrl: 'http://env', profile: 'p' })).toBe(hint);
    const once = pinnedHint(hint, { configDir: '/srv/gc' });
    expect(pinnedHint(once, { configDir: '/srv/gc' })).toBe(once);
  });

  it('pins a hint once: one pinned already is left as it is (a review found a second pass added a second prefix)', () => {
    const once = pinnedHint('see giftcodes order pending, then giftcodes order resume k', { configDir: '/srv/gc' });
    expect(pinnedHint(once, { configDir: '/srv/gc' })).toBe(once);
    expect(once.match(/GIFTCODES_CONFIG_DIR=/g)).toHaveLength(2);
  });

  // A person's day: "start the reference server with GIFTCODES_CONFIG_DIR=… giftcodes --profile small serve".
  it('leaves giftcodes serve as it is: it reads no config directory or profile', () => {
    expect(
      pinnedHint(
        'nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url',
        {
          configDir: '/srv/gc',
          profile: 'small',
        },
      ),
    ).toBe('nothing listens on 127.0.0.1:4010: start the reference server with giftcodes serve, or check --base-url');
    expect(pinnedHint('giftcodes serve --port 0; then giftcodes ping', { profile: 'small' })).toBe(
      'giftcodes serve --port 0; then giftcodes --profile small ping',
    );
  });

  it('quotes a directory the shell would split', () => {
    expect(pinnedHint('giftcodes order list', { configDir: '/srv/gift codes' })).toBe(
      "GIFTCODES_CONFIG_DIR='/srv/gift codes' giftcodes order list",
    );
  });

  // A review: after `--base-url <u>` and an unknown product, `list the products with: giftcodes catalog list` asked
  // the profile's server, not the one the run was given.
  it('carries the --env and --base-url the run was given as flags, unless the hint names its own', () => {
    expect(
      pinnedHint('list the products with: giftcodes catalog list', {
        profile: 'night',
        env: 'live',
        baseUrl: 'http://127.0.0.1:4011',
      }),
    ).toBe(
      'list the products with: giftcodes --profile night --env live --base-url http://127.0.0.1:4011 catalog list',
    );
    expect(pinnedHint('run: giftcodes login --env test', { env: 'live', baseUrl: 'https://api.example/x y' })).toBe(
      "run: giftcodes --base-url 'https://api.example/x y' login --env test",
    );
    expect(pinnedHint('check --base-url: giftcodes ping', { baseUrl: 'http://127.0.0.1:4011' })).toBe(
      'check --base-url: giftcodes ping',
    );
  });

  // A docs review: an order made at another base URL was refused, and its hint carried the run's own, mismatched
  // --base-url into `order resume <key>`, which reaches the order where it was made (its note's server and environment).
  it("leaves --profile, --env and --base-url off an order's resume and abandon by key: they go where the order was made", () => {
    expect(
      pinnedHint('resume it with its own key: giftcodes order resume k1   or drop it: giftcodes order abandon k1', {
        configDir: '/c',
        profile: 'night',
        env: 'live',
        baseUrl: 'http://localhost:1',
      }),
    ).toBe(
      'resume it with its own key: GIFTCODES_CONFIG_DIR=/c giftcodes order resume k1   or drop it: GIFTCODES_CONFIG_DIR=/c giftcodes order abandon k1',
    );
  });
});
