// `order place --product P --quantity N --dry-run`: one order rehearsed as a plan's row is. It was refused ("--dry-run
// is for --plan", with a hint to write a plan file for one order). It sends nothing and writes nothing, refuses what
// the order itself would refuse with the same exit status, and says what the journal's rules would make of the order:
// a new one, or the interrupted order of the same request finished instead (no second charge).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, pendingIntents, runCli, servedApi, tempDir, unstamped } from '../helpers/e2e.js';

describe('order place --dry-run of one order', () => {
  const served = servedApi(['--fulfil-after', '0']);

  it('prints the order, its price and what it would do; sends nothing; a missing config directory is not made', async () => {
    const before = (await ledger(served.server)).orders.length;
    const configDir = join(tempDir(), 'not-yet');
    const args = ['order', 'place', '--product', 'steam-us-20', '--quantity', '3', '--dry-run'];
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
    const text = await runCli(args, { configDir, baseUrl: served.url, env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      `dry run: a test order for 3 × steam-us-20 at 20.00 USD each, 60.00 USD in all, at ${served.url}\n` +
        'it would place a new order; nothing was sent\n',
    );
    const json = await runCli([...args, '--json'], { configDir, baseUrl: served.url, env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      dryRun: true,
      action: 'place',
      productId: 'steam-us-20',
      quantity: 3,
      environment: 'test',
      profile: 'default',
      baseUrl: served.url,
      price: { amount: 2000, currency: 'USD' },
      amount: { amount: 6000, currency: 'USD' },
    });
    expect((await ledger(served.server)).orders.length).toBe(before);
    expect(existsSync(configDir)).toBe(false);
  });

  it('refuses what the order would refuse, with its exit status: a product typo, an existing --out file', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const before = (await ledger(served.server)).orders.length;
    const typo = await runCli(['order', 'place', '--product', 'steam-us-2', '--quantity', '3', '--dry-run'], {
      configDir,
    });
    expect(typo.code).toBe(2);
    expect(unstamped(typo.stderr)).toContain(
      'no product "steam-us-2" in the catalog (nothing was sent); did you mean steam-us-20?',
    );
    const out = join(tempDir(), 'codes.csv');
    writeFileSync(out, 'order_id,code\n');
    const exists = await runCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '3', '--out', out, '--dry-run'],
      { configDir },
    );
    expect(exists.code).toBe(2);
    expect(exists.stderr).toContain(`${out} exists`);
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('an interrupted order of the same request: says it would finish that one (its key), and the order itself does', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const args = ['order', 'place', '--product', 'amazon-us-10', '--quantity', '4'];
    const killed = await runCli([...args, '--wait'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [intent] = (await pendingIntents(configDir)) as unknown as { key: string; createdAt: string }[];
    const before = (await ledger(served.server)).orders.length;
    const dry = await runCli([...args, '--dry-run'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      `it would finish the interrupted order for 4 × amazon-us-10 started ${intent!.createdAt} (key ${intent!.key}) instead of placing a new one: same key, same request, no second charge; nothing was sent`,
    );
    const json = await runCli([...args, '--dry-run', '--json'], { configDir });
    expect(JSON.parse(json.stdout)).toMatchObject({ action: 'resume', key: intent!.key });
    // The dry run left the intent as it was: the order itself then finishes it, and the API holds one order.
    const real = await runCli([...args, '--wait'], { configDir });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stderr).toContain(`an earlier run started at ${intent!.createdAt}`);
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('a live order says it is charged and asked for; without --product or --quantity it is a usage error', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.live);
    const live = await runCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '1', '--dry-run', '--env', 'live'],
      {
        configDir,
      },
    );
    expect(live.code, live.stderr).toBe(0);
    expect(live.stdout).toContain(
      'dry run: a LIVE order for 1 × steam-us-20 at 20.00 USD each, 20.00 USD in all, charged to the wallet of profile "default"',
    );
    expect(live.stdout).toContain('without --dry-run it asks first (--yes where nothing can answer)');
    const half = await runCli(['order', 'place', '--product', 'steam-us-20', '--dry-run'], { configDir });
    expect(half.code).toBe(2);
    expect(unstamped(half.stderr)).toContain('error: --dry-run needs --product and --quantity (or --plan)\n');
    expect(half.stderr).toContain('giftcodes order place --product PRODUCT_ID --quantity N --dry-run\n');
  });
});
