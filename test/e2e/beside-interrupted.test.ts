// An adversarial review, two second charges: an order interrupted while its request was out (Ctrl-C), then the same
// order placed with an --idempotency-key "to be safe" (never matched with the interrupted one, a general warning only);
// and an order interrupted so, abandoned under a new API key of the same reseller, then placed again (a warning, no
// question). At a terminal both now ask first (No sends nothing, exit 130); off one they say so and place, as a cron
// job with a fresh key each night must go on.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chargesFor,
  DEMO_KEYS,
  heldRequests,
  loggedIn,
  releaseHeld,
  releasingHolds,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
  until,
  seedFile,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

/** A second test key of the demo reseller (docs/commands.md: a seed file), as a reseller's rotated key is. */
const SECOND_KEY = 'sc_test_demo_SECONDKEY0000';

// Each order request is held 1.5 s before the server answers it: the Ctrl-C lands while it is out.
const served = servedApi(() => {
  const seed = seedFile({
    resellers: [
      {
        id: 'rs_demo',
        keys: { test: [DEMO_KEYS.test, SECOND_KEY], live: [DEMO_KEYS.live] },
        wallet: { USD: 500_000, EUR: 200_000, GBP: 100_000 },
      },
    ],
  });
  return ['--seed', seed, '--hold', '1500', '--fulfil-after', '0'];
});
const inTerminal = giftcodesTerminals();

/**
 * Runs `args` (`quantity` × `product`), stopped with SIGINT while the server holds its order request (sent, no answer);
 * once the server placed it, its key.
 */
async function interruptedWhileOut(
  args: string[],
  configDir: string,
  product: string,
  quantity: number,
): Promise<string> {
  const first = spawnCli(args, { configDir, baseUrl: served.url });
  first.proc.stdin?.end();
  await heldRequests(served.server);
  first.proc.kill('SIGINT');
  expect((await first.result).code).toBe(130);
  // The run is gone; the server places its order when the hold ends: now, rather than 1.5 s after it was sent.
  await releaseHeld(served.server);
  await until(async () => ((await chargesFor(served.server, product, quantity)).length === 1 ? true : undefined));
  const [left] = await pendingNow(configDir);
  expect(left?.phase).toBe('sending');
  return left!.key;
}

describe('a new order beside one interrupted while its request was out', () => {
  it('with --idempotency-key at a terminal: asked first, naming its key and order resume; No sends nothing', async () => {
    const configDir = await loggedIn(served.server);
    const out = join(tempDir(), 't.csv');
    const place = ['order', 'place', '--product', 'tesco-uk-20', '--quantity', '2', '--out', out];
    const key = await interruptedWhileOut(place, configDir, 'tesco-uk-20', 2);
    const t = inTerminal([...place, '--idempotency-key', 'restock-tesco-1'], configDir, {
      GIFTCODES_BASE_URL: served.url,
    });
    const asked = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toContain(`(key ${key}) was interrupted while its request was out, and may have been placed`);
    expect(asked).toContain(`giftcodes order resume ${key}`);
    // Its codes file is this run's --out too: said, so that the two are not taken for one order.
    expect(asked).toContain(`its codes go to ${out}, this run's --out too`);
    t.answer('n');
    const screen = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(screen).toContain('[exit 130]');
    expect(screen).toContain('cancelled: nothing was sent');
    expect(await chargesFor(served.server, 'tesco-uk-20', 2)).toHaveLength(1);
  }, 120_000);

  it('with --idempotency-key off a terminal (a cron job, a fresh key each night): said, naming it, and placed', async () => {
    const configDir = await loggedIn(served.server);
    const place = ['order', 'place', '--product', 'apple-us-25', '--quantity', '3'];
    const key = await interruptedWhileOut(place, configDir, 'apple-us-25', 3);
    // Its new order is held as every order here: let go at once (the hold is for the interruption above).
    const night = await releasingHolds(
      served.server,
      runCli([...place, '--idempotency-key', `night-${process.pid}`], { configDir, baseUrl: served.url }),
    );
    expect(night.code, night.stderr).toBe(0);
    const said = unstamped(night.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(`(key ${key}) was interrupted while its request was out, and may have been placed`);
    expect(said).toContain(`GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume ${key}`);
    expect(said).toContain('this run places a second order of 3 × apple-us-25');
    expect(await chargesFor(served.server, 'apple-us-25', 3)).toHaveLength(2);
  }, 120_000);

  it('abandoned under a new API key of the same reseller, then placed again at a terminal: asked first; No sends nothing', async () => {
    const configDir = await loggedIn(served.server);
    const out = join(tempDir(), 'a1.csv');
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', out];
    const key = await interruptedWhileOut(place, configDir, 'amazon-us-25', 2);
    const login = await runCli(['login', '--api-key-stdin', '--base-url', served.url], {
      configDir,
      input: SECOND_KEY,
    });
    expect(login.code, login.stderr).toBe(0);
    const refused = await runCli(place, { configDir, baseUrl: served.url });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('made with another API key');
    const abandoned = await runCli(['order', 'abandon', key], { configDir, baseUrl: served.url });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.url });
    const asked = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
    // Both keys logged in with, of one reseller: said as such.
    expect(asked).toContain(
      `(key ${key}) at ${served.url} with another API key of the same reseller (rs_demo) may have been placed`,
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'amazon-us-25', 2)).toHaveLength(1);
    // --yes answers it, as every second order's question: said, and placed.
    const yes = await releasingHolds(served.server, runCli([...place, '--yes'], { configDir, baseUrl: served.url }));
    expect(yes.code, yes.stderr).toBe(0);
    expect(unstamped(yes.stderr).replace(/\s+/g, ' ')).toContain('this run places a second order of 2 × amazon-us-25');
    expect(await chargesFor(served.server, 'amazon-us-25', 2)).toHaveLength(2);
  }, 120_000);
  it('abandoned while out, then placed with --idempotency-key at a terminal: asked first; No sends nothing', async () => {
    const configDir = await loggedIn(served.server);
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '2'];
    const key = await interruptedWhileOut(place, configDir, 'steam-us-50', 2);
    const abandoned = await runCli(['order', 'abandon', key], { configDir, baseUrl: served.url });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    const t = inTerminal([...place, '--idempotency-key', 'restock-steam-1'], configDir, {
      GIFTCODES_BASE_URL: served.url,
    });
    const asked = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toContain(`while its request was out (key ${key}) may have been placed`);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'steam-us-50', 2)).toHaveLength(1);
  }, 120_000);
});
