// A plan copied or renamed ("Save as…", `cp restock.csv "restock (copy).csv"`) is a plan of its own: every row is a
// new order. A review ran the copy right after the original and each row was charged twice, without a word. Now the
// run says that another plan delivered these same rows within the day, and asks at a terminal.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  heldRequests,
  ledger,
  loggedIn,
  releaseHeld,
  releasingHolds,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();

describe('a copied plan run after the original', () => {
  it('is said off a terminal (and run: a cron job may name each night its own file), asked at one (No orders nothing)', async () => {
    const { configDir, url: baseUrl, server } = served;
    const dir = tempDir();
    const rows = 'product,quantity\nzalando-de-25,2\ntesco-uk-20,3\n';
    for (const name of ['restock.csv', 'restock (copy).csv', 'restock-v2.csv']) writeFileSync(join(dir, name), rows);
    const before = (await ledger(server)).orders.length;
    const first = await runCli(['order', 'place', '--plan', join(dir, 'restock.csv')], { configDir, baseUrl });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('another plan (');
    expect((await ledger(server)).orders.length).toBe(before + 2);

    const t = inTerminal(['order', 'place', '--plan', join(dir, 'restock (copy).csv')], configDir, {
      GIFTCODES_BASE_URL: baseUrl,
    });
    const asked = (await t.waitFor(/Order all 2 rows again, as new orders\?/)).replace(/\s+/g, ' ');
    expect(asked.replace(/\s+/g, ' ')).toContain(
      'another plan (restock.csv, no --batch) delivered these same 2 rows here in the last 24 hours',
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before + 2);

    const copy = await runCli(['order', 'place', '--plan', join(dir, 'restock-v2.csv')], { configDir, baseUrl });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr.replace(/\s+/g, ' ')).toContain('delivered these same 2 rows here in the last 24 hours');
    expect(copy.stderr).toContain('is a plan of its own (a copied or renamed file, another directory or --batch)');
    expect((await ledger(server)).orders.length).toBe(before + 4);
  }, 120_000);

  // A review (stop 77, F1): the warnings that a plan's rows are charged again were silenced by --quiet, which a cron
  // line gives to keep its log short: the copy ordered every row twice with nothing on stderr. A warning that this
  // run charges again is said in every mode, as a single order's second order always was.
  it('under --quiet the copy still says its rows are charged again', async () => {
    const configDir = await loggedIn(served.server);
    const { url: baseUrl, server } = served;
    const dir = tempDir();
    const rows = 'product,quantity\nzalando-de-25,5\ntesco-uk-20,6\n';
    for (const name of ['quiet.csv', 'quiet (1).csv']) writeFileSync(join(dir, name), rows);
    const before = (await ledger(server)).orders.length;
    const first = await runCli(['order', 'place', '--plan', join(dir, 'quiet.csv'), '--quiet'], {
      configDir,
      baseUrl,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    const copy = await runCli(['order', 'place', '--plan', join(dir, 'quiet (1).csv'), '--quiet'], {
      configDir,
      baseUrl,
    });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr.replace(/\s+/g, ' ')).toContain('delivered these same 2 rows here in the last 24 hours');
    expect(copy.stderr).toContain('charged again');
    expect((await ledger(server)).orders.length).toBe(before + 4);
  }, 120_000);

  // A review: a 3-row plan delivered, its second download `restock (1).csv` (here weekly: the server keeps restock.csv's keys) edited (one row's quantity): the two rows
  // it kept were charged again without a word (the copy rule needed every row of the other plan).
  it('a copy by its name (` (1)`), edited: the rows the original delivered lately are said', async () => {
    const configDir = await loggedIn(served.server);
    const baseUrl = served.url;
    const dir = tempDir();
    writeFileSync(join(dir, 'weekly.csv'), 'product,quantity\nzalando-de-25,2\ntesco-uk-20,3\nsteam-us-20,1\n');
    writeFileSync(join(dir, 'weekly (1).csv'), 'product,quantity\nzalando-de-25,2\ntesco-uk-20,4\nsteam-us-20,1\n');
    const first = await runCli(['order', 'place', '--plan', join(dir, 'weekly.csv')], { configDir, baseUrl });
    expect(first.code, first.stderr).toBe(0);
    const copy = await runCli(['order', 'place', '--plan', join(dir, 'weekly (1).csv')], { configDir, baseUrl });
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr.replace(/\s+/g, ' ')).toContain(
      'another plan (weekly.csv, no --batch) delivered 2 of these 3 rows here in the last 24 hours',
    );
  }, 120_000);

  // A review: the recommended --dry-run of a renamed copy printed only "dry run: 2 orders…", while the real run said
  // that another plan delivered these same rows. The dry run says what the run would, and asks nothing.
  it('a dry run of the copy says what the run would say of it, asking nothing', async () => {
    const configDir = await loggedIn(served.server);
    const { url: baseUrl, server } = served;
    const dir = tempDir();
    const rows = 'product,quantity\ngoogle-play-us-25,2\napple-us-25,3\n';
    for (const name of ['monthly.csv', 'monthly-v2.csv']) writeFileSync(join(dir, name), rows);
    const first = await runCli(['order', 'place', '--plan', join(dir, 'monthly.csv')], { configDir, baseUrl });
    expect(first.code, first.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(['order', 'place', '--plan', join(dir, 'monthly-v2.csv'), '--dry-run'], configDir, {
      GIFTCODES_BASE_URL: baseUrl,
    });
    const screen = (await t.waitFor(/\[exit \d+\]/, 30_000)).replace(/\s+/g, ' ');
    expect(screen).toContain('[exit 0]');
    expect(screen).toContain(
      'another plan (monthly.csv, no --batch) delivered these same 2 rows here in the last 24 hours',
    );
    expect(screen).toContain('dry run: 2 orders');
    expect(screen).not.toContain('Order all 2 rows again');
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);

  // The cron recipe's --batch is the night's date: a copy run the same night has the same batch (a review: nothing
  // was said). The same file with the next night's batch is the recipe itself, and says nothing.
  it('with --batch: a copy is said; the same file under another batch is not', async () => {
    const configDir = await loggedIn(served.server);
    const baseUrl = served.url;
    const dir = tempDir();
    const rows = 'product,quantity\ngoogle-play-us-25,5\napple-us-25,5\n';
    for (const name of ['nightly.csv', 'nightly (copy).csv']) writeFileSync(join(dir, name), rows);
    const run = (name: string, batch: string) =>
      runCli(['order', 'place', '--plan', join(dir, name), '--batch', batch], { configDir, baseUrl });
    const first = await run('nightly.csv', '2026-11-30');
    expect(first.code, first.stderr).toBe(0);
    // The night before: the records dated 20 hours ago.
    const history = join(configDir, 'history');
    const dayAgo = new Date(Date.now() - 20 * 3_600_000).toISOString();
    for (const file of readdirSync(history).filter((f) => f.endsWith('.jsonl')))
      writeFileSync(
        join(history, file),
        readFileSync(join(history, file), 'utf8').replace(
          /"(createdAt|updatedAt|endedAt)":"[^"]+"/g,
          (_all, field: string) => `"${field}":"${dayAgo}"`,
        ),
      );
    const next = await run('nightly.csv', '2026-12-01');
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).not.toContain('another plan (');
    const copy = await run('nightly (copy).csv', '2026-12-01');
    expect(copy.code, copy.stderr).toBe(0);
    expect(copy.stderr.replace(/\s+/g, ' ')).toContain('delivered these same 2 rows here in the last 24 hours');
  }, 120_000);

  // A review mistyped the night's --batch, corrected it and ran again: every row was charged twice without a word.
  it('the same file under another --batch within hours (a corrected typo): said, and asked at a terminal', async () => {
    const configDir = await loggedIn(served.server);
    const { url: baseUrl, server } = served;
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-20,2\n');
    const typo = await runCli(['order', 'place', '--plan', plan, '--batch', '2026-12-1'], { configDir, baseUrl });
    expect(typo.code, typo.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    const t = inTerminal(['order', 'place', '--plan', plan, '--batch', '2026-12-01'], configDir, {
      GIFTCODES_BASE_URL: baseUrl,
    });
    const asked = (await t.waitFor(/Order all 1 row again, as new orders\?/)).replace(/\s+/g, ' ');
    expect(asked).toContain(
      'this plan under another --batch (nightly.csv --batch 2026-12-1) delivered this same row here at',
    );
    expect(asked).toContain('--batch 2026-12-01 is a batch of its own, so its row is a new order, charged again');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(server)).orders.length).toBe(before);
  }, 120_000);
});

// A person's day: a plan under a new --batch (after another batch of it delivered its rows) was stopped, then run
// again as its hint said. The re-run warned "every row is a new order, charged again" and asked, default No, to order
// them "as new orders", while it resumed them under their keys: a careful No left paid orders unfinished. Its rows
// readied and never sent were announced as "resuming its interrupted order" (review F2): this is their first request.
describe('a plan under a new --batch, stopped, then run again as its hint says', () => {
  const holding = servedApi(['--admin', '--hold', '60000']);
  it('says nothing of the other batch (that run was asked), and a row never sent is placed as its first request', async () => {
    const { url: baseUrl, server } = holding;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'plan3.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-25,2\nsteam-us-20,1\napple-us-50,2\n');
    const run = (batch: string, ...more: string[]) =>
      releasingHolds(
        server,
        runCli(['order', 'place', '--plan', plan, '--batch', batch, ...more], { configDir, baseUrl }),
      );
    const b1 = await run('b1');
    expect(b1.code, b1.stderr).toBe(0);
    const before = (await ledger(server)).orders.length;
    // Stopped while its first row's request is out (the server holds it), the other two readied, never sent.
    const b2 = spawnCli(['order', 'place', '--plan', plan, '--batch', 'b2', '--concurrency', '1', '--yes'], {
      configDir,
      baseUrl,
    });
    b2.proc.stdin?.end();
    await heldRequests(server);
    b2.proc.kill('SIGTERM');
    const stopped = await b2.result;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toContain('1 row of it may have been charged');
    await releaseHeld(server);
    const again = await run('b2');
    expect(again.code, again.stderr).toBe(0);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).not.toContain('is a batch of its own');
    expect(said).not.toContain('charged again');
    expect(said).toContain('row 2: resuming its interrupted order');
    expect(said).toMatch(/row 3: placing it now, its first request/);
    expect(said).not.toContain('row 3: resuming');
    expect(said).toContain("1 of them was an earlier run's interrupted order");
    expect((await ledger(server)).orders.length).toBe(before + 3);
    // At a terminal the same: nothing asked of the other batch, nothing ordered again.
    const t = inTerminal(['order', 'place', '--plan', plan, '--batch', 'b2'], configDir, {
      GIFTCODES_BASE_URL: baseUrl,
    });
    const end = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(end).toContain('[exit 0]');
    expect(end).not.toContain('as new orders?');
    expect((await ledger(server)).orders.length).toBe(before + 3);
  }, 120_000);
});

// Review F6: one folder per shop, each with its restock.csv, one config directory, one --batch a night. A row's key is
// the plan's file name and --batch, not its folder (so that a plan moved to another folder is still that plan), so
// the second shop's plan read every row as delivered and ordered nothing, exit 0, every night.
describe('two plans of one file name in two folders under one --batch', () => {
  it('the second is refused before anything is sent (exit 2) while the first is there; a plan moved is still that plan', async () => {
    const configDir = await loggedIn(served.server);
    const { url: baseUrl, server } = served;
    const root = tempDir();
    const rows = 'product,quantity\nzalando-de-25,4\nsteam-us-20,9\n';
    for (const shop of ['shopA', 'shopB']) {
      mkdirSync(join(root, shop));
      writeFileSync(join(root, shop, 'restock.csv'), rows);
    }
    const place = (path: string, ...more: string[]) =>
      runCli(['order', 'place', '--plan', path, '--batch', '2026-12-04', ...more], { configDir, baseUrl });
    const before = (await ledger(server)).orders.length;
    const a = await place(join(root, 'shopA', 'restock.csv'));
    expect(a.code, a.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before + 2);
    const b = await place(join(root, 'shopB', 'restock.csv'), '--json');
    expect(b.code, b.stderr).toBe(2);
    const { error } = JSON.parse(b.stderr.trim().split('\n').at(-1)!) as {
      error: { code: string; message: string; hint: string };
    };
    expect(error.code).toBe('plan_keys_shared');
    expect(error.message).toContain(join(root, 'shopA', 'restock.csv'));
    expect(error.message).toContain('nothing was sent');
    expect(error.hint).toContain('--batch');
    expect((await ledger(server)).orders.length).toBe(before + 2);
    // The dry run says the same, before the night.
    const dry = await place(join(root, 'shopB', 'restock.csv'), '--dry-run');
    expect(dry.code, dry.stderr).toBe(2);
    // A --batch of its own orders its rows.
    const own = await runCli(
      ['order', 'place', '--plan', join(root, 'shopB', 'restock.csv'), '--batch', '2026-12-04-shopB'],
      {
        configDir,
        baseUrl,
      },
    );
    expect(own.code, own.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before + 4);
    // The first plan moved to another folder (its old one gone): still that plan, nothing ordered again.
    mkdirSync(join(root, 'moved'));
    renameSync(join(root, 'shopA', 'restock.csv'), join(root, 'moved', 'restock.csv'));
    rmSync(join(root, 'shopA'), { recursive: true });
    const moved = await place(join(root, 'moved', 'restock.csv'));
    expect(moved.code, moved.stderr).toBe(0);
    expect((await ledger(server)).orders.length).toBe(before + 4);
  }, 120_000);
});

// A person's day: a dry run at 80 columns dropped KEY without a word, while every row's STATUS said "dry run".
describe('a dry run at 80 columns', () => {
  it('says which columns it left out; its STATUS gives way first, kept only in room no other column fits', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'dr.csv');
    writeFileSync(
      plan,
      'product,quantity,out\namazon-us-10,2,amazon-10-{batch}.csv\nsteam-us-20,1,steam-{batch}.csv\n',
    );
    // Run where the plan is, as a person would: its files are shown from there.
    const t = inTerminal(
      ['order', 'place', '--plan', 'dr.csv', '--batch', '2026-12-01', '--dry-run'],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
      { columns: 80, rows: 30 },
      dir,
    );
    const screen = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(screen).toContain('[exit 0]');
    expect(screen).toMatch(/^ROW +PRODUCT +QTY +UNIT PRICE +AMOUNT +(STATUS +)?OUT *$/m);
    expect(screen).toMatch(/^2 +amazon-us-10 +2 +10\.00 USD +20\.00 USD +(dry run +)?amazon-10-2026-12-01\.csv *$/m);
    expect(screen).toContain('left out at 80 columns: KEY (--json has them)');
    expect(screen).toContain('dry run: 2 orders, 3 codes, 40.00 USD in all; nothing was sent');
  }, 60_000);
});
