// Issue 29, finding 4: a record, an intent and a plan row are keyed by what they are (the idempotency key
// with its server, environment and API key; a row by its product, quantity, out cell and occurrence), never
// by the key alone or by the plan's bytes and line numbers. Each case is the reproduction of the finding,
// checked against the reference server's ledger.
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdOf } from '../../src/journal/intent.js';
import { History } from '../../src/journal/history.js';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BOTH_KEYS,
  configCopy,
  DEMO_KEYS,
  ledger,
  loggedIn,
  runCli,
  servedApi,
  staleCatalog,
  tempDir,
  unstamped,
  type TestServer,
} from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0']);

async function reset(server: TestServer): Promise<void> {
  const res = await fetch(`${server.url}/_admin/reset`, { method: 'POST' });
  expect(res.status).toBe(200);
}

/** One order of 1 × amazon-us-10 under the idempotency key `key`, with `env`'s key. */
function placeKeyed(configDir: string, key: string, env: string): ReturnType<typeof runCli> {
  return runCli(
    [
      'order',
      'place',
      '--product',
      'amazon-us-10',
      '--quantity',
      '1',
      '--idempotency-key',
      key,
      '--env',
      env,
      '--yes',
      '--json',
    ],
    { configDir },
  );
}

/** The server's orders under these idempotency keys, of one environment. */
async function chargedUnder(
  server: TestServer,
  keys: Iterable<string>,
  environment: 'test' | 'live',
): Promise<Record<string, unknown>[]> {
  const wanted = new Set(keys);
  return (await ledger(server)).orders.filter(
    (o) => wanted.has(String(o.idempotency_key)) && o.environment === environment,
  );
}

describe('a record is the key on one server, environment and API key', () => {
  /**
   * One key used live, then under test, from a config dir holding both keys: what both tests here start from, made
   * once (two orders fewer); each test takes a copy of the dir.
   */
  const both = { configDir: '', key: '', liveOrderId: '' };
  beforeAll(async () => {
    const { server } = served;
    both.configDir = await loggedIn(server, BOTH_KEYS);
    both.key = `restock-${Date.now()}`;
    for (const env of ['live', 'test']) {
      const placed = await placeKeyed(both.configDir, both.key, env);
      expect(placed.code, placed.stderr).toBe(0);
      if (env === 'live') both.liveOrderId = (JSON.parse(placed.stdout) as { id: string }).id;
    }
  });

  it('order list and order show still find the records of every scope', async () => {
    const { key } = both;
    const configDir = configCopy(both.configDir);
    const list = await runCli(['order', 'list', '--json'], { configDir });
    expect(list.code, list.stderr).toBe(0);
    const records = JSON.parse(list.stdout) as { key: string; environment: string }[];
    expect(
      records
        .filter((r) => r.key === key)
        .map((r) => r.environment)
        .sort(),
    ).toEqual(['live', 'test']);
    // One key, two orders: `order show <key>` names both rather than pick one.
    const show = await runCli(['order', 'show', key], { configDir });
    expect(show.code).toBe(2);
    expect(show.stderr).toContain('matches 2 orders');
  });

  it('a key used live, then under test, then live again: the third is recognised as the live order, nothing sent', async () => {
    const { server } = served;
    const { key } = both;
    const configDir = configCopy(both.configDir);
    // The server forgets its keys (24 h later): only the local record stands between this and a second charge.
    await reset(server);
    const again = await placeKeyed(configDir, key, 'live');
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('idempotency_key_used');
    expect(again.stderr).toContain(both.liveOrderId);
    expect(await chargedUnder(server, [key], 'live')).toEqual([]);
  });

  it('a plan run live, then under test, then live again: nothing more is charged live', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, BOTH_KEYS);
    const plan = join(tempDir(), 'plan.csv');
    writeFileSync(plan, `product,quantity\namazon-us-10,1\namazon-us-10,2\nsteam-us-20,1\n`);
    const run = (env: string) =>
      runCli(['order', 'place', '--plan', plan, '--env', env, '--yes', '--json'], { configDir });
    const live = await run('live');
    expect(live.code, live.stderr).toBe(0);
    const keys = (JSON.parse(live.stdout) as { key: string }[]).map((r) => r.key);
    expect(await chargedUnder(server, keys, 'live')).toHaveLength(3);
    const test = await run('test');
    expect(test.code, test.stderr).toBe(0);
    await reset(server);
    await run('live');
    expect((await ledger(server)).orders.filter((o) => o.environment === 'live')).toEqual([]);
  });
});

type Row = {
  row: number;
  key: string;
  already?: boolean;
  out?: string;
  order?: { id: string };
  error?: { code: string; message?: string };
};

describe('a plan row is keyed by what it is', () => {
  it("a fixed typo orders the fixed row once and never the delivered rows again (the plan's own hint)", async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'typo.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,3\nstem-us-20,2\n');
    // The typo passes a catalog cache that lists it (a product dropped since): the API refuses its row alone.
    await staleCatalog(configDir, ['stem-us-20']);
    const first = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(4);
    expect(first.stderr).toContain('fix what failed and run the same plan again');
    const [a] = JSON.parse(first.stdout) as Row[];
    writeFileSync(plan, 'product,quantity\namazon-us-10,3\nsteam-us-20,2\n');
    const fixed = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(fixed.code, fixed.stderr).toBe(0);
    const rows = JSON.parse(fixed.stdout) as Row[];
    expect(rows[0]).toMatchObject({ key: a!.key, already: true, order: { id: a!.order!.id } });
    expect(rows[1]!.already).toBeUndefined();
    expect(await chargedUnder(server, [a!.key], 'test')).toHaveLength(1);
    expect(await chargedUnder(server, [rows[1]!.key], 'test')).toHaveLength(1);
    // No warning: nothing the plan delivered is missing from it.
    expect(fixed.stderr).not.toContain('changed since');
  });

  it('an edited plan whose rows were delivered today says so, and orders its new rows only with --yes', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'edited.csv');
    writeFileSync(plan, 'amazon-us-10,4\nsteam-us-20,5\n');
    const first = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const [a, b] = JSON.parse(first.stdout) as Row[];
    writeFileSync(plan, 'amazon-us-10,4\nsteam-us-20,6\n');
    const refused = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `changed since it delivered 1 row it no longer has, in the last 24 hours: 5 × steam-us-20 (order ${b!.order!.id}`,
    );
    expect(refused.stderr).toContain('confirmation_required');
    const yes = await runCli(['order', 'place', '--plan', plan, '--json', '--yes'], { configDir });
    expect(yes.code, yes.stderr).toBe(0);
    const rows = JSON.parse(yes.stdout) as Row[];
    expect(rows[0]).toMatchObject({ key: a!.key, already: true });
    expect(await chargedUnder(server, [a!.key, b!.key, rows[1]!.key], 'test')).toHaveLength(3);
  });

  it('a row killed after its charge, then its quantity fixed: the re-run names the row placed and charged before it orders, and asks', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'fixed.csv');
    writeFileSync(plan, 'amazon-us-25,50\n');
    // Killed once its order was answered (Ctrl-C, a crash): charged, and left unfinished.
    const killed = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    expect(left).toBeDefined();
    expect(await chargedUnder(server, [left!.key], 'test')).toHaveLength(1);
    // The person fixes the quantity (50 was a typo for 5) and runs it again: asked first, with the 50 named (an
    // adversarial review found the question said nothing of it, and the warning came after the answer). Its order id
    // known, it is said as placed and charged, never "may have been" (another review), with the way to its codes.
    writeFileSync(plan, 'amazon-us-25,5\n');
    const refused = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `changed since an earlier run started 1 row it no longer has, never finished \\(it was placed and charged\\): 50 × amazon-us-25 \\(order ${left!.orderId}, placed and charged, its codes never reached you; key ${left!.key}, `,
      ),
    );
    expect(refused.stderr).toContain(`giftcodes codes get ${left!.orderId} --out CODES_FILE (that finishes it)`);
    expect(refused.stderr).not.toContain('may have been charged');
    expect(refused.stderr).toContain(`see GIFTCODES_CONFIG_DIR=${configDir} giftcodes order pending`);
    expect(refused.stderr).toContain('confirmation_required');
    // Not said twice, as one more order left elsewhere.
    expect(refused.stderr).not.toMatch(/interrupted in an earlier run is still unfinished/);
    const yes = await runCli(['order', 'place', '--plan', plan, '--json', '--yes'], { configDir });
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('never finished (it was placed and charged): 50 × amazon-us-25');
    // The 50 is still there to finish or drop; the 5 is a new order.
    expect((await pendingNow(configDir)).map((i) => i.key)).toEqual([left!.key]);
  });

  // An adversarial review: one row fixed of two killed rows, and the refusal said "ordering 2 rows of a changed plan";
  // the unchanged row is finished, not ordered.
  it('the question counts the rows it orders; interrupted rows it finishes are counted apart', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'two.csv');
    writeFileSync(plan, 'apple-us-50,40\nsteam-us-50,2\n');
    const killed = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const left = await pendingNow(configDir);
    expect(left).toHaveLength(2);
    writeFileSync(plan, 'apple-us-50,4\nsteam-us-50,2\n');
    const refused = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('error: ordering 1 row of a changed plan needs confirmation');
    // A second adversarial review: the hint said only "pass --yes to confirm without a prompt", and --yes placed the
    // fixed row beside the placed one. It says what --yes does, and the way that charges nothing first.
    const hint = refused.stderr.split('\n').find((l) => l.includes('hint: '));
    expect(hint).toMatch(
      /hint: the rows the plan no longer has were placed or may have been: see them with (?:GIFTCODES_CONFIG_DIR=\S+ )?giftcodes order pending \(codes get or order resume finishes each\); --yes orders the changed rows as new orders beside them, charged again$/,
    );
  });

  it('rows an earlier version delivered today that no row matches (its keys came from the whole file): said, and asked, before the same product is ordered', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    // What a version before these keys left: a row of a plan delivered an hour ago, keyed by the file and line.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    new History(join(configDir, 'history')).record({
      key: `plan-${'7'.repeat(24)}-r2`,
      keyId: keyIdOf(DEMO_KEYS.test),
      orderId: 'ord_from_the_older_version',
      productId: 'amazon-us-25',
      quantity: 2,
      status: 'completed',
      environment: 'test',
      profile: 'default',
      baseUrl: server.url,
      createdAt: hourAgo,
      updatedAt: hourAgo,
      endedAt: hourAgo,
      outcome: 'delivered',
    });
    const plan = join(tempDir(), 'restock.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-25,2\nsteam-us-20,3\n');
    const before = (await ledger(server)).orders.length;
    const refused = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'an earlier version of giftcodes delivered 1 plan row of these products here in the last 24 hours that no row of',
    );
    expect(refused.stderr).toContain('2 × amazon-us-25 (order ord_from_the_older_version');
    expect(refused.stderr).toContain('confirmation_required');
    expect((await ledger(server)).orders).toHaveLength(before);
    // A plan of other products is not held up by it.
    const other = join(tempDir(), 'other.csv');
    writeFileSync(other, 'steam-us-50,1\n');
    const unrelated = await runCli(['order', 'place', '--plan', other, '--json'], { configDir });
    expect(unrelated.code, unrelated.stderr).toBe(0);
    expect(unrelated.stderr).not.toContain('earlier version');
    const yes = await runCli(['order', 'place', '--plan', plan, '--json', '--yes'], { configDir });
    expect(yes.code, yes.stderr).toBe(0);
  });

  it("the same plan run from a second config directory: the server replays the first one's order, and its codes are not written a second time", async () => {
    const { server } = served;
    // Two people (or cron and a person) with their own config directories, the same key and the same plan file name.
    const alice = await loggedIn(server);
    const bob = await loggedIn(server);
    const plans = [tempDir(), tempDir()];
    for (const dir of plans)
      writeFileSync(join(dir, 'restock.csv'), 'product,quantity,out\namazon-us-25,3,amazon.csv\n');
    const before = (await ledger(server)).orders.length;
    const first = await runCli(['order', 'place', '--plan', join(plans[0]!, 'restock.csv'), '--json'], {
      configDir: alice,
      cwd: plans[0]!,
    });
    expect(first.code, first.stderr).toBe(0);
    const [a] = JSON.parse(first.stdout) as Row[];
    const second = await runCli(['order', 'place', '--plan', join(plans[1]!, 'restock.csv'), '--json'], {
      configDir: bob,
      cwd: plans[1]!,
    });
    // An adversarial review: the second run said "1 of 1 row ordered" and wrote the first one's codes to its file.
    expect(second.code).toBe(4);
    const [b] = JSON.parse(second.stdout) as Row[];
    expect(b!.key).toBe(a!.key);
    expect(b!.error).toMatchObject({ code: 'order_placed_elsewhere' });
    expect(b!.error!.message).toContain(`order ${a!.order!.id}`);
    expect(readFileSync(join(plans[0]!, 'amazon.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(4);
    expect(existsSync(join(plans[1]!, 'amazon.csv'))).toBe(false);
    // Nothing to fix and nothing to order again by itself (a review: "once it is fixed, order it by itself" bought
    // the order a second time); ordering the row here too is said as what it is, a plan with a --batch of its own.
    expect(second.stderr).toContain("line 2's order was placed by another run of this plan");
    expect(second.stderr).toContain(
      'giftcodes order place --env test --product amazon-us-25 --quantity 3 (never a --batch of its own',
    );
    expect(second.stderr).not.toContain('order it by itself');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    // Run again, that row is refused before any request: sent once the server forgot the key (a day later), it was
    // a second order under the same key (a review).
    const third = await runCli(['order', 'place', '--plan', join(plans[1]!, 'restock.csv'), '--json'], {
      configDir: bob,
      cwd: plans[1]!,
    });
    expect(third.code).toBe(4);
    expect(third.stderr).toContain('so it is never sent from here again, and nothing was sent now');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    // Its dry run does not count that row as an order to place (a review: "1 order, 50.00 USD").
    const dry = await runCli(['order', 'place', '--plan', join(plans[1]!, 'restock.csv'), '--dry-run', '--json'], {
      configDir: bob,
      cwd: plans[1]!,
    });
    expect(dry.code, dry.stderr).toBe(0);
    const [dryRow] = JSON.parse(dry.stdout) as { dryRun?: boolean; error?: { code: string } }[];
    expect(dryRow).toMatchObject({ error: { code: 'order_placed_elsewhere' } });
    expect(dryRow!.dryRun).toBeUndefined();
  });

  it("the same plan and batch at another spelling of the server's address: named, and asked, before its rows are charged again", async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'amazon-us-25,2\nsteam-us-20,3\n');
    const night = ['order', 'place', '--plan', plan, '--batch', '2026-11-30', '--json'];
    const first = await runCli(night, { configDir });
    expect(first.code, first.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    // The same server as localhost: a row's key is made with the address as written, so every row was ordered
    // again, with no word (an adversarial review: 6 orders for a 2-row plan under one --batch).
    const localhost = server.url.replace('127.0.0.1', 'localhost');
    const again = await runCli([...night, '--base-url', localhost], { configDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `delivered 2 rows in the last 24 hours at another address with this API key (${server.url}: this same API under another spelling, or another server)`,
    );
    expect(again.stderr).toContain('confirmation_required');
    // Asked as what the rows are, new orders: the plan did not change (a person's day read "changed" and said No).
    expect(again.stderr).toContain('ordering 2 rows as new orders needs confirmation');
    // What --yes does is said (a second review: "pass --yes to confirm without a prompt" alone).
    expect(again.stderr).toContain(
      'those rows were delivered with another API key or at another address: --yes orders them here again, charged again',
    );
    expect((await ledger(server)).orders).toHaveLength(before);
    const yes = await runCli([...night, '--base-url', localhost, '--yes'], { configDir });
    expect(yes.code, yes.stderr).toBe(0);
    expect((await ledger(server)).orders).toHaveLength(before + 2);
  });

  it('a row sent at one spelling of the address and never finished, the plan run again at another: named, and asked', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'apple-us-50,4\n');
    const night = ['order', 'place', '--plan', plan, '--batch', '2026-11-30', '--json'];
    // A cron job killed after its charge (at its timeout), then run again at localhost: the row was ordered again,
    // with only "may have been charged" said (an adversarial review).
    const killed = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const before = (await ledger(server)).orders.length;
    const localhost = server.url.replace('127.0.0.1', 'localhost');
    const again = await runCli([...night, '--base-url', localhost], { configDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `sent 1 row at another address with this API key (${server.url}: this same API under another spelling, or another server) that never finished (it may have been charged)`,
    );
    expect(again.stderr).toContain('confirmation_required');
    expect(again.stderr.replace(/\s+/g, ' ')).toMatch(
      /those rows were sent with another API key or at another address and never finished: finish them with the key and base URL they were placed with \(see (?:GIFTCODES_CONFIG_DIR=\S+ )?giftcodes order pending\); --yes orders them here as new orders beside them, charged again/,
    );
    expect((await ledger(server)).orders).toHaveLength(before);
  });

  it('a row killed after its charge and abandoned, the plan run again: the API replays its own order, delivered here once', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const dir = tempDir();
    const plan = join(dir, 'nightly.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,2,a.csv\n');
    const before = (await ledger(server)).orders.length;
    const killed = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    expect((await runCli(['order', 'abandon', left!.key], { configDir })).code).toBe(0);
    // An adversarial review: the re-run's first request met the replay of this directory's own order and refused it
    // as placed elsewhere; the hint's order place then charged the row a second time.
    const again = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(3);
    expect((await ledger(server)).orders).toHaveLength(before + 1);
  });

  it("a row's codes file written by the same plan at another spelling of the address: the refusal says so, not that the row changed", async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,2,night-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', '2026-11-30'];
    expect((await runCli(night, { configDir })).code).toBe(0);
    const localhost = server.url.replace('127.0.0.1', 'localhost');
    const again = await runCli([...night, '--base-url', localhost], { configDir });
    // A walkthrough under cron read "this batch's row changed since that order wrote its codes": it had not.
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`hint: that order was placed for this same row at ${server.url}`);
    expect(again.stderr).not.toContain("this batch's row changed");
  });

  it('--batch orders the same plan again on purpose; the same batch again orders nothing more', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'amazon-us-10,7\n');
    const keys: string[] = [];
    for (const batch of ['2026-11-28', '2026-11-29', '2026-11-29']) {
      const run = await runCli(['order', 'place', '--plan', plan, '--batch', batch, '--json'], { configDir });
      expect(run.code, run.stderr).toBe(0);
      keys.push((JSON.parse(run.stdout) as Row[])[0]!.key);
    }
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[1]).toBe(keys[2]);
    expect(await chargedUnder(server, keys, 'test')).toHaveLength(2);
    const single = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--batch', 'x'], {
      configDir,
    });
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--batch is for --plan');
  });
});

describe('a plan under another connection (issue 29: stuck)', () => {
  it('killed at order.accepted under test, then run live: every row is ordered live', async () => {
    const { server } = served;
    const configDir = await loggedIn(server, BOTH_KEYS);
    const plan = join(tempDir(), 'stuck.csv');
    writeFileSync(plan, 'amazon-us-10,8\nsteam-us-20,8\n');
    const killed = await runCli(['order', 'place', '--plan', plan, '--env', 'test', '--json', '--concurrency', '1'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const live = await runCli(['order', 'place', '--plan', plan, '--env', 'live', '--yes', '--json'], { configDir });
    expect(live.code, live.stderr).toBe(0);
    const rows = JSON.parse(live.stdout) as Row[];
    expect(
      await chargedUnder(
        server,
        rows.map((r) => r.key),
        'live',
      ),
    ).toHaveLength(2);
    // The test run's interrupted row is still its own, and finishes under test.
    const test = await runCli(['order', 'place', '--plan', plan, '--env', 'test', '--json'], { configDir });
    expect(test.code, test.stderr).toBe(0);
    const testRows = JSON.parse(test.stdout) as Row[];
    expect(testRows.map((r) => r.key)).not.toEqual(rows.map((r) => r.key));
    expect(
      await chargedUnder(
        server,
        testRows.map((r) => r.key),
        'test',
      ),
    ).toHaveLength(2);
  });

  it("the same plan under another profile (another reseller on the server) is that reseller's orders", async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const login = await runCli(['login', '--profile', 'other', '--api-key-stdin', '--base-url', server.url], {
      configDir,
      input: DEMO_KEYS.smallTest,
    });
    expect(login.code, login.stderr).toBe(0);
    const plan = join(tempDir(), 'shared.csv');
    writeFileSync(plan, 'amazon-us-10,9\n');
    const mine = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(mine.code, mine.stderr).toBe(0);
    const theirs = await runCli(['order', 'place', '--plan', plan, '--profile', 'other', '--json'], { configDir });
    expect(theirs.code, theirs.stderr).toBe(0);
    const [row] = JSON.parse(theirs.stdout) as Row[];
    expect(row!.already).toBeUndefined();
    const orders = (await ledger(server)).orders.filter((o) => o.idempotency_key === row!.key);
    expect(orders.map((o) => o.reseller_id)).toEqual(['rs_small']);
  });
});

// A copy of a plan in a new folder, the first still there, shares its rows' keys: it read every row as delivered and
// named that run's files (a review made it name no file it did not write). Two shops' plans of one name are the same
// case, and there it ordered nothing, exit 0, every night (review F6): refused now before anything is sent, naming
// the first plan, and writing no file; the first plan moved (its old file gone) still reads its rows as delivered.
describe('a copy of a plan in a new folder', () => {
  it('is refused while the first is there (exit 2, nothing sent, no file written); moved, it is that plan', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const first = tempDir();
    writeFileSync(join(first, 'night.csv'), 'product,quantity,out\namazon-us-10,11,codes.csv\n');
    const ran = await runCli(['order', 'place', '--plan', join(first, 'night.csv'), '--json'], { configDir });
    expect(ran.code, ran.stderr).toBe(0);
    const second = join(tempDir(), 'tonight');
    mkdirSync(second);
    writeFileSync(join(second, 'night.csv'), readFileSync(join(first, 'night.csv')));
    const copy = await runCli(['order', 'place', '--plan', join(second, 'night.csv')], { configDir });
    expect(copy.code, copy.stderr).toBe(2);
    expect(copy.stderr).toContain(`shares its rows' keys with ${join(first, 'night.csv')}`);
    expect(copy.stdout).toBe('');
    expect(existsSync(join(second, 'codes.csv'))).toBe(false);
    rmSync(join(first, 'night.csv'));
    const moved = await runCli(['order', 'place', '--plan', join(second, 'night.csv')], { configDir });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toMatch(
      /row 2: delivered by an earlier run at \S+Z \(order ord_\S+, its codes in .*codes\.csv\); not ordered again/,
    );
    expect(moved.stdout).toContain(join(first, 'codes.csv'));
    expect(moved.stdout).not.toContain(second);
    expect(existsSync(join(second, 'codes.csv'))).toBe(false);
    const keys = (JSON.parse(ran.stdout) as Row[]).map((r) => r.key);
    expect(await chargedUnder(server, keys, 'test')).toHaveLength(1);
  });
});

// Review F3: a test plan run again named its row's codes file as holding that row's codes, after the live run of the
// plan had written its own codes there. A file written again since, or gone, is said as such.
describe('a plan run again whose row file was written again since', () => {
  it('says the file was written again since, or is no longer there, not that it holds the codes', async () => {
    const { server } = served;
    const configDir = await loggedIn(server);
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,12,codes.csv\n');
    expect((await runCli(['order', 'place', '--plan', plan], { configDir })).code).toBe(0);
    const again = async () => (await runCli(['order', 'place', '--plan', plan], { configDir })).stderr;
    expect(await again()).toMatch(
      /row 2: delivered by an earlier run at \S+ \(order ord_\S+, its codes in \S+codes\.csv\)/,
    );
    const later = new Date(Date.now() + 5 * 60_000);
    writeFileSync(join(dir, 'codes.csv'), 'order_id,code\nord_other,LIVE-1\n');
    utimesSync(join(dir, 'codes.csv'), later, later);
    expect(await again()).toContain(`its codes written to ${join(dir, 'codes.csv')}, a file written again since)`);
    rmSync(join(dir, 'codes.csv'));
    expect(await again()).toContain(`its codes written to ${join(dir, 'codes.csv')}, no longer there)`);
  });
});

// A person's day: a 1,000-row plan run again whole said 1,000 lines of "row N: delivered by an earlier run … not
// ordered again" (3,000 at 80 columns, and as many in a cron log) before its summary, which lists each row anyway.
describe('a plan run again whole', () => {
  const served = servedApi(['--fulfil-after', '0'], { login: true });

  it('says the first five rows an earlier run did, then counts the rest once', async () => {
    const { configDir } = served;
    const plan = join(tempDir(), 'many.csv');
    writeFileSync(plan, Array.from({ length: 8 }, (_, i) => `amazon-us-10,${i + 1}\n`).join(''));
    const first = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const before = (await ledger(served.server)).orders.length;
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const said = unstamped(again.stderr);
    expect(said.match(/^row \d+: ordered by an earlier run at /gm)).toHaveLength(5);
    expect(said).toMatch(/^3 more rows were done by an earlier run, not ordered again \(the summary lists each\)$/m);
    expect((await ledger(served.server)).orders.length).toBe(before);
  });
});

// A newcomer's walkthrough: a plan row whose out file held the codes of an order placed by itself (the cron recipe's
// order place --out) was told "this batch's row changed since that order wrote its codes", of a row that never ran.
describe("a plan row whose out file holds a single order's codes", () => {
  const served = servedApi(['--fulfil-after', '0'], { login: true });

  it('names that order as placed by itself, not by a plan', async () => {
    const { configDir } = served;
    const dir = tempDir();
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', join(dir, 'amazon-25.csv')],
      { configDir },
    );
    expect(placed.code, placed.stderr).toBe(0);
    const plan = join(dir, 'nightly.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-25,1,amazon-25.csv\n');
    const refused = await runCli(['order', 'place', '--plan', plan, '--batch', '2026-12-01', '--dry-run'], {
      configDir,
    });
    expect(refused.code).toBe(2);
    expect(unstamped(refused.stderr)).toContain('hint: that order was placed by itself (order place), not by a plan');
    expect(refused.stderr).not.toContain("this batch's row changed");
  });
});
