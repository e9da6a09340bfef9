// Ctrl-C while an order's request is out (no answer yet), then `order abandon`: the server may have placed and
// charged the order, and the API cannot be asked by key. A review did this to "cancel" a typo, was told the order had
// no codes by every command it tried, placed the same order again and was charged twice, the first out of reach. Now
// the abandoned record says its request went out, order show and codes get name the way to it, and the same order
// placed again within a day sends its request under the abandoned key: that order if it was placed, never both.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEMO_KEYS,
  heldRequests,
  journalIntents,
  ledger,
  releaseHeld,
  releasingHolds,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
  type RunResult,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

// Each order request is held 1.5 s before the server answers it: the interruption lands while it is out.
const served = servedApi(['--hold', '1500', '--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();

/** Runs `args`, stops it with SIGINT while its order request is held (sent, no answer), then abandons its order. */
async function abandonedWhileOut(args: string[]): Promise<{ key: string; abandoned: RunResult }> {
  const { configDir, url: baseUrl, server } = served;
  const before = (await ledger(server)).orders.length;
  const first = spawnCli(args, { configDir, baseUrl });
  first.proc.stdin?.end();
  // Interrupted once the server holds the request (it was sent): a fixed 700 ms lost that race on a loaded machine,
  // and the run stopped before sending (npm test, 2026-12-01 01:48, with a slow server beside it).
  await heldRequests(server);
  first.proc.kill('SIGINT');
  expect((await first.result).code).toBe(130);
  // The run is gone; the server places its order when the hold ends: now, rather than 1.5 s after it was sent.
  await releaseHeld(server);
  for (let i = 0; i < 100 && (await ledger(server)).orders.length === before; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const { key } = (await pendingNow(configDir))[0]!;
  const abandoned = await runCli(['order', 'abandon', key], { configDir, baseUrl });
  expect(abandoned.code, abandoned.stderr).toBe(0);
  return { key, abandoned };
}

/** `ran` with the server's holds let go: each later run that sends a new order waited 1.5 s, none about the hold. */
const unheld = <T>(ran: Promise<T>): Promise<T> => releasingHolds(served.server, ran);

describe('an order abandoned while its request was out, then placed again', () => {
  it('the same order again is that order (one charge), and each command on the way names the way to it', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'amazon-us-100', '--quantity', '2'];
    const before = (await ledger(server)).orders.length;
    const { key, abandoned } = await abandonedWhileOut(place);
    expect((await ledger(server)).orders.length).toBe(before + 1);
    expect(unstamped(abandoned.stderr)).toContain(
      `its key was ${key}; it may have been placed before it was abandoned: the same order placed again within a day of `,
    );
    // Where it was sent, with the key it was sent with: elsewhere the same command is a new order (a review).
    expect(abandoned.stderr).toContain(
      ` at ${baseUrl} with the API key it was sent with (not one rotated since: that places a new order beside it) sends`,
    );
    expect(abandoned.stderr).toContain(
      `giftcodes order place --product amazon-us-100 --quantity 2 --env test --base-url ${baseUrl}\n`,
    );

    // Neither order show nor codes get says it has no codes: both name the same order again.
    const shown = await runCli(['order', 'show', key], { configDir, baseUrl });
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain('it may have been placed before it was abandoned');
    const codes = await runCli(['codes', 'get', key], { configDir, baseUrl });
    // 2, decided here: 4 would say the API answered and nothing was charged (a support review).
    expect(codes.code).toBe(2);
    expect(codes.stderr).toContain('so its codes are not known here');
    expect(codes.stderr).not.toContain('so it has no codes');
    expect(codes.stderr).toContain('giftcodes order place --product amazon-us-100 --quantity 2');

    // The same order again: its request goes under the abandoned key, and the server replays the order it placed.
    const again = await unheld(runCli(place, { configDir, baseUrl }));
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(`abandoned at `);
    expect(again.stderr).toContain(
      `(key ${key}) may have been placed before it was stopped: this run sends its request again under that key`,
    );
    const orders = (await ledger(server)).orders;
    expect(orders.length).toBe(before + 1);
    expect(again.stdout).toContain(String(orders.at(-1)!.order_id));

    // Once that order reached the user, the next same order is a new one, with a key of its own.
    const third = await unheld(runCli(place, { configDir, baseUrl }));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toContain('abandoned');
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 120_000);

  // A person who found that order on the provider's dashboard and took its codes (codes get <id>) wants a new one:
  // reused without a word, the same codes came again (a review). At a terminal the key's reuse is asked, Yes first.
  it('at a terminal it is asked; No places a new order with a key of its own', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'steam-us-20', '--quantity', '1'];
    const { key } = await abandonedWhileOut(place);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: baseUrl });
    const asked = (await t.waitFor(/No places a new order with a key of its own/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toContain(
      `(key ${key}) may have been placed before it was stopped. Send its request again under that key`,
    );
    t.answer('n');
    expect(await unheld(t.waitFor(/\[exit \d+\]/, 30_000))).toContain('[exit 0]');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    // Declined: the next same order is not asked or told about it again, and order show still names the way to it.
    const next = await unheld(runCli(place, { configDir, baseUrl }));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('abandoned');
    expect((await ledger(server)).orders.length).toBe(before + 2);
    const shown = await runCli(['order', 'show', key], { configDir, baseUrl });
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain('it may have been placed before it was abandoned');
  }, 120_000);

  // A review: No to sending the abandoned key again, then No to the live order's own question: nothing was sent,
  // yet the abandoned order was recorded as declined, and the next night's run placed a second order beside it.
  it('No at the key question, then a cancelled live question: the abandoned key is not declined', async () => {
    const { configDir, url: baseUrl, server } = served;
    const live = await runCli(['login', '--api-key-stdin', '--env', 'live', '--base-url', baseUrl], {
      configDir,
      input: DEMO_KEYS.live,
    });
    expect(live.code, live.stderr).toBe(0);
    const place = ['order', 'place', '--env', 'live', '--product', 'google-play-us-25', '--quantity', '1'];
    const { key } = await abandonedWhileOut([...place, '--yes']);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: baseUrl });
    await t.waitFor(/No places a new order with a key of its own/, 30_000);
    t.answer('n');
    await t.waitFor(/LIVE/, 30_000);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before);
    // The night's run sends the abandoned key again: that order, no second one.
    const night = await unheld(runCli([...place, '--yes'], { configDir, baseUrl }));
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain(`(key ${key}) may have been placed before it was stopped`);
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // A third review: No, then the run killed as its own order began: the No was lost, and the next run sent the
  // abandoned key again and wrote the codes the person had taken from the dashboard.
  it('No, then the run killed as its own order begins: the No stands', async () => {
    const { configDir, url: baseUrl } = served;
    const place = ['order', 'place', '--product', 'steam-us-20', '--quantity', '4'];
    await abandonedWhileOut(place);
    const t = inTerminal(place, configDir, {
      GIFTCODES_BASE_URL: baseUrl,
      GIFTCODES_FAILPOINTS: 'intent.written=kill',
    });
    await t.waitFor(/No places a new order with a key of its own/, 30_000);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toMatch(/\[exit (137|-1|9)\]/);
    // The killed run's own order is resumed; then a new one: the abandoned key is never sent again.
    for (let night = 0; night < 2; night++) {
      const next = await unheld(runCli(place, { configDir, baseUrl }));
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toContain('may have been placed before it was stopped');
    }
  }, 120_000);

  // A fourth review: the key given again for another quantity was answered 422 idempotency_key_reused, which erased
  // the abandoned record of the charged order under it, and the next plain order place charged a second time.
  it('a key given again for another order after an abandon: the abandoned record stays, nothing is charged twice', async () => {
    const { configDir, url: baseUrl, server } = served;
    const key = `nightly-${Date.now()}`;
    const place = (quantity: number): string[] => [
      'order',
      'place',
      '--product',
      'apple-us-25',
      '--quantity',
      String(quantity),
      '--idempotency-key',
      key,
    ];
    await abandonedWhileOut(place(10));
    const before = (await ledger(server)).orders.length;
    // Refused before anything is sent (review F1: the server's 422 left a note "may have been charged" for good).
    const other = await unheld(runCli(place(12), { configDir, baseUrl }));
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain(`the idempotency key ${key} was sent at`);
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir, baseUrl })).stdout) as {
      key: string;
      quantity: number;
      outcome: string;
    }[];
    expect(listed.filter((r) => r.key === key).map((r) => [r.quantity, r.outcome])).toContainEqual([10, 'abandoned']);
    const again = await unheld(
      runCli(['order', 'place', '--product', 'apple-us-25', '--quantity', '10'], { configDir, baseUrl }),
    );
    // The plain command sends the abandoned order's request again under its key: that order, never a second.
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `(key ${key}) may have been placed before it was stopped: this run sends its request again under that key`,
    );
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // Ctrl-C at the question says what every order question says (docs/exit-codes.md), not "nothing was saved".
  it('Ctrl-C at the question: cancelled, nothing was sent (exit 130)', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'steam-us-20', '--quantity', '3'];
    await abandonedWhileOut(place);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: baseUrl });
    await t.waitFor(/No places a new order with a key of its own/, 30_000);
    t.press('C-c');
    const screen = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(screen).toContain('[exit 130]');
    expect(screen).toContain('cancelled: nothing was sent');
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // A review abandoned at 127.0.0.1, placed the same order again at localhost, and was charged twice without a word.
  it('placed again at another spelling of the server: said, with the command that sends the abandoned key', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'tesco-uk-20', '--quantity', '4'];
    const { key } = await abandonedWhileOut(place);
    const before = (await ledger(server)).orders.length;
    const elsewhere = await unheld(runCli(place, { configDir, baseUrl: baseUrl.replace('127.0.0.1', 'localhost') }));
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    const said = unstamped(elsewhere.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(`(key ${key}) at ${baseUrl} may have been placed before it was stopped`);
    // Pinned to the run's config directory, as every hint is (a review pasted it into a shell without it).
    expect(said).toContain(
      `GIFTCODES_CONFIG_DIR=${configDir} giftcodes order place --product tesco-uk-20 --quantity 4 --env test --base-url ${baseUrl}`,
    );
    expect((await ledger(server)).orders.length).toBe(before + 1);
  }, 120_000);

  // A review abandoned an order in profile "default" and placed it again in a second profile holding the same API key:
  // one reseller to the API, charged twice without a word.
  it('placed again in another profile holding the same API key: its key is sent again, one charge', async () => {
    const { configDir, url: baseUrl, server } = served;
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '3'];
    const { key } = await abandonedWhileOut(place);
    const login = await runCli(['login', '--profile', 'shop2', '--api-key-stdin', '--base-url', baseUrl], {
      configDir,
      input: DEMO_KEYS.test,
    });
    expect(login.code, login.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    const again = await unheld(runCli([...place, '--profile', 'shop2'], { configDir, baseUrl }));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      `(key ${key}) may have been placed before it was stopped: this run sends its request again under that key`,
    );
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // An adversarial review: a plan's row abandoned while out, then the plan edited (the row's file renamed): the row's
  // new key ordered it again without a word, two orders.
  it("a plan's row abandoned while out, then the plan edited: the row it no longer has is named, and asked", async () => {
    const { configDir, url: baseUrl, server } = served;
    const dir = tempDir();
    const plan = join(dir, 'edit.csv');
    writeFileSync(plan, 'product,quantity,out\ngoogle-play-us-25,3,a.csv\n');
    const { key } = await abandonedWhileOut(['order', 'place', '--plan', plan]);
    writeFileSync(plan, 'product,quantity,out\ngoogle-play-us-25,3,amazon.csv\n');
    const before = (await ledger(server)).orders.length;
    const edited = await unheld(runCli(['order', 'place', '--plan', plan], { configDir, baseUrl }));
    expect(edited.code, edited.stderr).toBe(2);
    const said = unstamped(edited.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(
      `the plan ${plan} changed since an earlier run sent 1 row it no longer has, abandoned before the API answered (it may have been placed and charged): 3 × google-play-us-25 (key ${key}, abandoned `,
    );
    expect(said).toContain('--yes');
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // A plan's row is sent again by its plan (its key is the plan's file name and batch), never by order place.
  it("a plan's row abandoned: order place does not take its key, and the hint names the plan", async () => {
    const { configDir, url: baseUrl, server } = served;
    const plan = join(tempDir(), 'p.csv');
    writeFileSync(plan, 'product,quantity\nzalando-de-25,2\n');
    const { key } = await abandonedWhileOut(['order', 'place', '--plan', plan]);
    expect(key).toMatch(/^plan-/);
    const shown = await runCli(['order', 'show', key], { configDir, baseUrl });
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain('its plan, run again within a day of');
    // Its file name and batch (none) named: the record keeps them.
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain('with the same file name (p.csv) and no --batch');
    const before = (await ledger(server)).orders.length;
    const single = await unheld(
      runCli(['order', 'place', '--product', 'zalando-de-25', '--quantity', '2'], { configDir, baseUrl }),
    );
    expect(single.code, single.stderr).toBe(0);
    // Said, never silent: a second order if the row's was placed (an adversarial review ordered the row by hand).
    expect(unstamped(single.stderr).replace(/\s+/g, ' ')).toContain(
      `a plan row of 2 × zalando-de-25 (plan p.csv) was abandoned at `,
    );
    expect(single.stderr).toContain(`while its request was out (key ${key}), and may have been placed`);
    expect(single.stderr).toContain('this run places a second order of 2 × zalando-de-25, with its own key');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    // The plan again sends the row's key, its day counted from the first send (a review: from the re-send), and
    // the order its first send placed is the row's: no second one.
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir, baseUrl })).stdout) as {
      key: string;
      createdAt: string;
    }[];
    const first = listed.find((r) => r.key === key)!.createdAt;
    const killed = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'sending.written=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(journalIntents(configDir).find((i) => i.key === key)?.keySince).toBe(first);
    const again = await unheld(runCli(['order', 'place', '--plan', plan], { configDir, baseUrl }));
    expect(again.code, again.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before + 1);
  }, 120_000);
});

describe('an order abandoned after the API placed it, then the same command again', () => {
  // An adversarial review: killed after its order was accepted, abandoned (whose warning named the order), and the
  // same command run again: a second order, charged, without a word.
  it('says it places a second order beside the abandoned one, naming it and its codes get', async () => {
    const { configDir, url: baseUrl } = served;
    const place = ['order', 'place', '--product', 'steam-us-50', '--quantity', '3'];
    const killed = await unheld(
      runCli(place, { configDir, baseUrl, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } }),
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [intent] = (await journalIntents(configDir)).filter((i) => i.productId === 'steam-us-50');
    expect(intent?.orderId).toMatch(/^ord_/);
    expect((await runCli(['order', 'abandon', intent!.key], { configDir, baseUrl })).code).toBe(0);
    const again = await unheld(runCli(place, { configDir, baseUrl }));
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr).replace(/\s+/g, ' ')).toContain(
      `the order ${intent!.orderId} of 3 × steam-us-50 was abandoned at `,
    );
    expect(again.stderr).toContain(
      `after the API had placed it (its codes: GIFTCODES_CONFIG_DIR=${configDir} giftcodes codes get ${intent!.orderId} --out CODES_FILE): this run places a second order of 3 × steam-us-50, with its own key`,
    );
    // Said once: the request's last record is now the second order.
    const third = await unheld(runCli(place, { configDir, baseUrl }));
    expect(third.stderr).not.toContain('after the API had placed it');
  });

  // A second review (stop 77, G2): `order abandon --quiet` of an order the API had placed said only "abandoned KEY": a
  // script read nothing charged, and the order id, the one way to its paid codes, was never shown.
  it('order abandon --quiet of an order the API placed still names it and its codes get', async () => {
    const { configDir, url: baseUrl } = served;
    const killed = await unheld(
      runCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '5'], {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      }),
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [intent] = (await journalIntents(configDir)).filter((i) => i.productId === 'steam-us-50' && i.quantity === 5);
    expect(intent?.orderId).toMatch(/^ord_/);
    const quiet = await runCli(['order', 'abandon', intent!.key, '--quiet'], { configDir, baseUrl });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr.replace(/\s+/g, ' ')).toContain(`it was placed as order ${intent!.orderId}`);
    expect(quiet.stderr).toContain(`giftcodes codes get ${intent!.orderId} --out CODES_FILE`);
    // One never sent placed nothing: no warning of money, so --quiet keeps stderr empty (a third review).
    const unsent = await runCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '6'], {
      configDir,
      baseUrl,
      env: { GIFTCODES_FAILPOINTS: 'intent.written=kill' },
    });
    expect(unsent.signal, unsent.stderr).toBe('SIGKILL');
    const [never] = (await journalIntents(configDir)).filter((i) => i.productId === 'steam-us-50' && i.quantity === 6);
    const dropped = await runCli(['order', 'abandon', never!.key, '--quiet'], { configDir, baseUrl });
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stderr).toBe('');
  });

  // A review (stop 77, F3): a plan's row killed after its order was accepted, abandoned, then the same product and
  // quantity ordered by hand: a second order without a word, where the single order above was said.
  it("a plan's row so abandoned, then the same order by hand: said the same way", async () => {
    const { configDir, url: baseUrl } = served;
    const plan = join(tempDir(), 'rows.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-50,4\n');
    const killed = await unheld(
      runCli(['order', 'place', '--plan', plan], {
        configDir,
        baseUrl,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      }),
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [row] = (await journalIntents(configDir)).filter((i) => i.key.startsWith('plan-') && i.quantity === 4);
    expect(row?.orderId).toMatch(/^ord_/);
    expect((await runCli(['order', 'abandon', row!.key], { configDir, baseUrl })).code).toBe(0);
    const byHand = await unheld(
      runCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '4'], { configDir, baseUrl }),
    );
    expect(byHand.code, byHand.stderr).toBe(0);
    expect(unstamped(byHand.stderr).replace(/\s+/g, ' ')).toContain(
      `the order ${row!.orderId} of 4 × steam-us-50 was abandoned at `,
    );
    expect(byHand.stderr).toContain('this run places a second order of 4 × steam-us-50, with its own key');
  });
});
