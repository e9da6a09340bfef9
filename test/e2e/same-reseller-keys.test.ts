// A review, confirmed by the server's ledger: two API keys of the same reseller in two profiles of one config directory.
// An order interrupted while its request was out in profile default, then placed in profile ops (the reseller's second
// key): a general warning, then a second order, 2 charges. A plan killed the same way, then run in ops: every row
// ordered again without a word, 4 charges for 2 rows. login now keeps the reseller the API stated for each key, and an
// order of another key of the same reseller counts as this very key's in another profile did: refused, never resumed
// under the other key.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, runCli, seedFile, servedApi, tempDir, until } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

/** The reseller's second test key, as a second profile (ops) holds it. */
const SECOND_KEY = 'sc_test_demo2_aaaaaaaaaaaaaaaa';

const served = servedApi(() => [
  '--seed',
  seedFile({
    resellers: [
      {
        id: 'rs_demo',
        keys: { test: [DEMO_KEYS.test, SECOND_KEY], live: [DEMO_KEYS.live] },
        wallet: { USD: 5_000_000 },
      },
    ],
  }),
  '--fulfil-after',
  '0',
]);

/** A config dir whose profile default holds the reseller's first test key and profile ops its second. */
async function twoProfiles(): Promise<string> {
  const configDir = await loggedIn(served.server);
  const ops = await runCli(['login', '--profile', 'ops', '--api-key-stdin', '--base-url', served.url], {
    configDir,
    input: SECOND_KEY,
  });
  expect(ops.code, ops.stderr).toBe(0);
  return configDir;
}

/** How many orders the server charged of these products. */
async function charged(products: readonly string[]): Promise<number> {
  return (await ledger(served.server)).orders.filter((o) => products.includes(String(o.product_id))).length;
}

describe('two API keys of one reseller in two profiles', () => {
  it('login keeps the reseller the API stated for each key, beside the key', async () => {
    const configDir = await twoProfiles();
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { resellers?: { test?: { id: string; baseUrl: string } } }>;
    };
    expect(config.profiles.default?.resellers?.test).toMatchObject({ id: 'rs_demo', baseUrl: served.url });
    expect(config.profiles.ops?.resellers?.test).toMatchObject({ id: 'rs_demo', baseUrl: served.url });
  }, 120_000);

  it('an order interrupted in one profile is not placed again in the other: refused, finished with its own key', async () => {
    const configDir = await twoProfiles();
    const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '2'];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    await until(async () => ((await charged(['amazon-us-50'])) === 1 ? true : undefined));
    const [left] = await pendingNow(configDir);
    const ops = await runCli([...place, '--profile', 'ops'], { configDir });
    expect(ops.code, ops.stderr).toBe(2);
    const said = ops.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(
      'was started in profile "default", which holds another API key of the same reseller (rs_demo), and may have been charged',
    );
    expect(said).toContain(`with the API key it was placed with (profile "default"'s)`);
    expect(said).toContain(`giftcodes order resume ${left!.key}`);
    expect(await charged(['amazon-us-50'])).toBe(1);
    // The way it names finishes that order, with its own key: still one charge.
    const resumed = await runCli(['order', 'resume', left!.key], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await charged(['amazon-us-50'])).toBe(1);
  }, 120_000);

  it('a plan killed in one profile, then run in the other: its rows are not ordered again without a word', async () => {
    const configDir = await twoProfiles();
    const plan = join(tempDir(), 'restock.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-20,1\nnetflix-us-30,3\n');
    const products = ['steam-us-20', 'netflix-us-30'];
    const run = ['order', 'place', '--plan', plan, '--batch', 'b1'];
    const killed = await runCli(run, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const before = await until(async () => {
      const n = await charged(products);
      return n > 0 ? n : undefined;
    });
    const ops = await runCli([...run, '--profile', 'ops'], { configDir });
    expect(ops.code, ops.stderr).toBe(2);
    const said = ops.stderr.replace(/\s+/g, ' ');
    expect(said).toContain('with another API key of the same reseller (rs_demo) in profile "default"');
    // Said once, as this plan's rows under another key, not again as another run's.
    expect(said).not.toContain('sent by another run');
    expect(said).toContain('--profile default');
    expect(await charged(products)).toBe(before);
    // The plan run again where it ran finishes its rows with their keys: one order a row.
    const again = await runCli(run, { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(await charged(products)).toBe(2);
  }, 120_000);

  // A second review: the same plan with another --batch (a colleague "redoing last night" with today's date) in the
  // other profile was told only "3 orders interrupted in earlier runs are still unfinished", and asked nothing at a
  // terminal, where the same run in the first profile names the rows and asks.
  it('a plan killed in one profile, then run with another --batch in the other: its unfinished rows are named', async () => {
    const configDir = await twoProfiles();
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'product,quantity\napple-us-50,2\ngoogle-play-us-25,1\n');
    const run = ['order', 'place', '--plan', plan];
    const killed = await runCli([...run, '--batch', 'd1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const ops = await runCli([...run, '--batch', 'd2', '--profile', 'ops', '--dry-run'], { configDir });
    expect(ops.code, ops.stderr).toBe(0);
    const said = ops.stderr.replace(/\s+/g, ' ');
    expect(said).toMatch(
      /rows? of this plan (was|were) sent by another run \(another plan or --batch\) and never finished/,
    );
    expect(said).toContain('plan nightly.csv --batch d1');
  }, 60_000);
});
