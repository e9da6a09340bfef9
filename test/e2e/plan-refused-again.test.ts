// A plan row the API refused for something outside the plan (a wallet short of funds): the same plan run again
// sends it under the row's next key, since a server that keeps a key's answer repeats the refusal for a day. The
// hint once said to order such a row by itself under a key of its own; the plan's next run, the key forgotten by
// then, ordered it a second time (an adversarial review: two orders of one row, no word).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asRun, BOTH_KEYS, chargesFor, DEMO_KEYS, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

describe('a plan row refused for want of funds, and the same plan again', () => {
  const served = servedApi([]);

  it('the row goes under a new key each run while refused; delivered rows are not ordered again; no "by itself"', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'restock.csv');
    // The demo reseller's live wallet holds 5,000.00 USD: 300 × amazon-us-25 is 7,500.00.
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-25,300\n');
    const args = ['order', 'place', '--env', 'live', '--plan', plan, '--yes'];
    const first = await runCli(args, { configDir });
    expect(first.code, first.stderr).toBe(4);
    expect(asRun(first.stderr)).toContain(
      'fix what line 3 (insufficient_funds) was refused for, then run the same plan again: it sends that row under a new key',
    );
    expect(first.stderr).not.toMatch(/by itself \(giftcodes order place/);
    const again = await runCli(args, { configDir });
    expect(again.code, again.stderr).toBe(4);
    const records = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
      key: string;
      productId: string;
      outcome: string;
    }[];
    const refused = records.filter((r) => r.productId === 'amazon-us-25').map((r) => [r.key, r.outcome]);
    expect(refused).toHaveLength(2);
    const [base] = refused.map(([key]) => key!).sort();
    expect(refused).toEqual(
      expect.arrayContaining([
        [base, 'refused'],
        [`${base}-g2`, 'refused'],
      ]),
    );
    expect(await chargesFor(served.server, 'amazon-us-10', 1)).toHaveLength(1);
    expect(await chargesFor(served.server, 'amazon-us-25', 300)).toHaveLength(0);
  });
});

describe('a nightly plan with a refused row, fixed and run again as its hint says', () => {
  const served = servedApi([]);

  // An adversarial review: the hint said "run the same plan again"; run without the night's --batch it was another
  // batch, and the row it had delivered was charged a second time. The hint names the --batch, and the config
  // directory the run had (a cron job's, not the person's shell's).
  it("the hint names the run's --batch and GIFTCODES_CONFIG_DIR; run so, only the fixed row is ordered", async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-25,300\n');
    const args = ['order', 'place', '--env', 'live', '--plan', plan, '--yes'];
    const first = await runCli([...args, '--batch', '2026-12-01'], { configDir });
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toContain(
      `then run the same plan again with --batch 2026-12-01 (with GIFTCODES_CONFIG_DIR=${configDir} in its environment, as this run had): it sends that row under a new key`,
    );
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-25,3\n');
    const fixed = await runCli([...args, '--batch', '2026-12-01'], { configDir });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(await chargesFor(served.server, 'amazon-us-10', 1)).toHaveLength(1);
    expect(await chargesFor(served.server, 'amazon-us-25', 3)).toHaveLength(1);
  });
});

describe("a plan's refused rows at 80 columns", () => {
  const served = servedApi([]);
  const inTerminal = giftcodesTerminals();

  // A person's day: STATUS read `error: i…` beside the rows' files, which told nobody why.
  it('STATUS says the cause in words (no funds), whole, beside the files', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    mkdirSync(join(dir, 'codes'));
    const plan = join(dir, 'plan.csv');
    writeFileSync(
      plan,
      'product,quantity,out\namazon-us-10,1,codes/amazon-us-10-first.csv\namazon-us-25,300,codes/amazon-us-25-big-order.csv\n',
    );
    const t = inTerminal(
      ['order', 'place', '--env', 'live', '--plan', plan, '--yes'],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
      { columns: 80, rows: 24 },
      dir,
    );
    const screen = await t.waitFor(/\[exit \d+\]/, 60_000);
    expect(screen).toContain('[exit 4]');
    expect(screen).toMatch(/amazon-us-25 +300 +- +no funds +\S*amazon-us-25-big-order\.csv/);
    expect(screen).toMatch(/amazon-us-10 +1 +ord_\S+ +completed /);
    // The refusal says no money moved for that row (a person's day: a 422 said nothing of a charge).
    expect(screen.replace(/\s+/g, '')).toContain('noorderwasmade,sonothingwascharged');
  }, 90_000);
});

describe('a plan run with a key the API refuses', () => {
  const served = servedApi([]);

  // A cron job with an expired key sent all 12 rows, each refused, and its hint said "fix what failed".
  it('stops after the refusal, says the key was refused with its own hint, and charges nothing', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, `product,quantity\n${'amazon-us-10,1\n'.repeat(6)}`);
    const run = await runCli(['order', 'place', '--plan', plan, '--concurrency', '1'], {
      configDir,
      env: { GIFTCODES_API_KEY: 'sc_test_expired_000000000000' },
    });
    expect(run.code, run.stderr).toBe(3);
    // The row out and the one readied behind it are refused; the rest are not begun.
    expect(run.stderr).toMatch(
      /: 0 of 6 rows ordered \(0 codes\), [1-3] failed, [3-5] not attempted \(the API key was refused\)/,
    );
    expect(run.stderr).toMatch(
      /error: [1-3] of 6 plan rows failed and [3-5] were not attempted: the API key was refused, so nothing was charged/,
    );
    expect(run.stderr).toMatch(/hint: .*GIFTCODES_API_KEY.*; then run the same plan again/);
    expect(await chargesFor(served.server, 'amazon-us-10', 1)).toHaveLength(0);
  });
});
