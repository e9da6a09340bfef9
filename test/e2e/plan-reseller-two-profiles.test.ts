// An adversarial review, confirmed by the server's ledger: one reseller keeps two API keys in two profiles, one per
// storefront, each with its own folder and the same nightly template `restock.csv` (same rows, `codes-{batch}.csv`,
// --batch the date). Shop A's night ran first; shop B's plan, in its own folder and profile, was then "read as
// delivered" from shop A's record (matched by file name and batch only, records kept no directory) and ordered
// nothing: exit 0, no codes file in shop B's folder, one charge where two were meant. An order lost. Shop B is no key
// rotated in shop A's profile: its rows are warned of and asked about as before the rule, and --yes orders them.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, chargesFor, runCli, seedFile, servedApi, tempDir } from '../helpers/e2e.js';

/** The reseller's second test key, shop B's. */
const SHOP_B = 'sc_test_demo3_bbbbbbbbbbbbbbbb';

/** The demo reseller with a second test key. */
const seed = (): string =>
  seedFile({
    resellers: [
      {
        id: 'rs_demo',
        keys: { test: [DEMO_KEYS.test, SHOP_B], live: [DEMO_KEYS.live] },
        wallet: { USD: 5_000_000 },
      },
    ],
  });

const served = servedApi(() => ['--seed', seed(), '--fulfil-after', '0']);

describe('two profiles of one reseller, each with its own folder and a plan of the same name', () => {
  it("shop B's plan orders its row although shop A's plan of that name delivered the same row (two charges)", async () => {
    const configDir = tempDir();
    for (const [profile, key] of [
      ['shopA', DEMO_KEYS.test],
      ['shopB', SHOP_B],
    ] as const) {
      const login = await runCli(['login', '--profile', profile, '--base-url', served.url, '--api-key-stdin'], {
        configDir,
        input: key,
      });
      expect(login.code, login.stderr).toBe(0);
    }
    const root = tempDir();
    for (const shop of ['a', 'b']) {
      mkdirSync(join(root, shop));
      writeFileSync(join(root, shop, 'restock.csv'), 'product,quantity,out\nsteam-us-20,4,codes-{batch}.csv\n');
    }
    const night = (shop: string, profile: string) =>
      runCli(
        [
          '--profile',
          profile,
          'order',
          'place',
          '--plan',
          join(root, shop, 'restock.csv'),
          '--batch',
          '2026-12-01',
          '--yes',
        ],
        { configDir },
      );
    const a = await night('a', 'shopA');
    expect(a.code, a.stderr).toBe(0);

    const b = await night('b', 'shopB');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stderr).not.toContain('read as delivered here and not ordered again');
    // Warned of as before the rule (asked at a terminal; --yes orders it).
    expect(b.stderr.replace(/\s+/g, ' ')).toContain('profile "shopA"');
    expect(existsSync(join(root, 'b', 'codes-2026-12-01.csv'))).toBe(true);
    expect(await chargesFor(served.server, 'steam-us-20', 4)).toHaveLength(2);
  }, 120_000);
});
