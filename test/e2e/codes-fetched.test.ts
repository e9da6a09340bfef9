// Codes of an order written by `codes get` or `order watch --out` are noted in the order's local record (Journal
// noteFetched), and a second file of codes already written elsewhere is said. Two reviews: an accepted plan row
// abandoned, its codes taken by id as the abandon's warning said, and the plan's next run wrote them to a second
// file with no word; support read "placed" for an order whose codes `order watch --out` had written, and its hint
// asked for a second copy; two terminals wrote one order's codes to two files, silently.
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, loggedIn, runCli, servedApi, spawnCli, tempDir, unstamped } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

// Servers for the whole file, one per kind the tests need: each `giftcodes serve` is a process whose start costs
// CPU the suite is short of, and no test here reads more of a server than its own orders (counts of the ledger are
// taken before and after, each config directory is its own).
/** Orders completed at once. */
const served = servedApi(['--fulfil-after', '0']);
/** Every order pending when placed and failed 300 ms later. */
const failing = servedApi(['--fail-orders', '1', '--fulfil-after', '300']);

/**
 * Runs `args` until the API has accepted its order, kills it there (the failpoint), then abandons that order as a
 * person would: the abandoned record holds the order id. Returns the key and the order.
 */
async function abandonedAfterAccept(configDir: string, args: string[]): Promise<{ key: string; orderId: string }> {
  const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const [row] = (await pendingNow(configDir)) as { key: string; orderId: string }[];
  expect(row?.orderId).toMatch(/^ord_/);
  expect((await runCli(['order', 'abandon', row!.key], { configDir })).code).toBe(0);
  return row!;
}

describe('codes fetched for an order that ended here', () => {
  it('an abandoned plan row whose codes were taken by id: the plan again reads it as delivered, writes no second file', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const plan = join(dir, 'restock.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,2,a.csv\n');
    const row = await abandonedAfterAccept(configDir, ['order', 'place', '--plan', plan]);
    const mine = join(dir, 'mine.csv');
    const taken = await runCli(['codes', 'get', row.orderId, '--out', mine], { configDir });
    expect(taken.code, taken.stderr).toBe(0);
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(`delivered by an earlier run at `);
    expect(again.stderr).toContain(`(order ${row.orderId}, its codes in ${mine}); not ordered again`);
    expect(existsSync(join(dir, 'a.csv'))).toBe(false);
  });

  it('order watch --out of an order placed without one: order show and order list name the file; no second copy asked for', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const placed = await runCli(['order', 'place', '--product', 'apple-us-50', '--quantity', '4', '--json'], {
      configDir,
    });
    const { id } = JSON.parse(placed.stdout) as { id: string };
    const file = join(tempDir(), 'w.csv');
    const watchedFrom = new Date().toISOString();
    expect((await runCli(['order', 'watch', id, '--out', file], { configDir })).code).toBe(0);
    const listed = JSON.parse((await runCli(['order', 'list', '--json'], { configDir })).stdout) as {
      orderId: string;
      out?: string;
    }[];
    expect(listed.find((r) => r.orderId === id)?.out).toBe(file);
    const watched = await runCli(['order', 'watch', id], { configDir });
    expect(watched.stdout + watched.stderr).toContain(`its codes were written to ${file} here`);
    expect(watched.stdout + watched.stderr).not.toContain('codes get');
    // A second file of them, on purpose: said, never silent.
    const second = await runCli(['codes', 'get', id, '--out', join(tempDir(), 'x.csv')], { configDir });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`the codes of order ${id} are in ${file} too`);
    // Dated when watch wrote them, after the order place delivered the order (a docs review read the delivery's time).
    const at = /too \(written there at (\S+)\)/.exec(second.stderr)?.[1];
    expect(at, second.stderr).toBeDefined();
    expect(at! >= watchedFrom, `${at} before ${watchedFrom}`).toBe(true);
    // A third file: both earlier ones named, not the first alone (a person's day met six copies, one named); order
    // show lists them.
    const x = join(tempDir(), 'x.csv');
    expect((await runCli(['codes', 'get', id, '--out', x], { configDir })).code).toBe(0);
    const third = await runCli(['codes', 'get', id, '--out', join(tempDir(), 'y.csv')], { configDir });
    expect(third.code, third.stderr).toBe(0);
    const said = unstamped(third.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(`are in ${file} (written there at `);
    expect(said).toContain(`; ${x} too: all 4 files hold the same codes: hand out one of them`);
    const shown = await runCli(['order', 'show', id], { configDir });
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain(`the same codes written to ${x} too`);
    // One deleted since is said so (a review read the list as all still there).
    rmSync(x);
    const after = await runCli(['order', 'show', id], { configDir });
    expect(after.stdout.replace(/\s+/g, ' ')).toContain(`the same codes written to ${x} too, no longer there`);
    expect(readFileSync(file, 'utf8')).toContain(id);
  });
});

describe('two terminals, one order', () => {
  const slow = servedApi(['--fulfil-after', '2500']);

  it("order watch --out while the order's own order place --out is still writing: both named, never silent", async () => {
    const configDir = await loggedIn(slow.server, DEMO_KEYS.test);
    const dir = tempDir();
    const first = spawnCli(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '2', '--out', join(dir, 'a.csv'), '--json'],
      { configDir },
    );
    first.proc.stdin?.end();
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      const pending = (await pendingNow(configDir)) as { orderId?: string | null }[];
      id = pending.find((p) => p.orderId)?.orderId ?? undefined;
      if (!id) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(id).toMatch(/^ord_/);
    const watched = await runCli(['order', 'watch', id!, '--out', join(dir, 'mine.csv')], { configDir });
    expect((await first.result).code).toBe(0);
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stderr).toContain(join(dir, 'a.csv'));
    expect(watched.stderr).toContain('hand out one of them');
  });
});

describe('an order abandoned after the API placed it, its key sent again', () => {
  // A review: within the day the server replays the key's order; after it, the same key placed a second one without a
  // word. The key names that order: refused, never sent (an --idempotency-key), read and not ordered again (a plan row).
  it('the same --idempotency-key is refused before anything is sent, naming the order and its codes get', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--idempotency-key', 'inv-1001'];
    const intent = await abandonedAfterAccept(configDir, place);
    // order show names its codes get once, on its HERE line (a support review: a second hint under it, another file).
    const shown = await runCli(['order', 'show', intent.orderId!], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect((shown.stdout + shown.stderr).match(/giftcodes codes get/g)).toHaveLength(1);
    const before = (await ledger(served.server)).orders.length;
    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(unstamped(again.stderr)).toContain(
      `error: the idempotency key inv-1001 already placed order ${intent.orderId}, abandoned here at `,
    );
    expect(again.stderr).toContain(
      `hint: its codes: GIFTCODES_CONFIG_DIR=${configDir} giftcodes codes get ${intent.orderId} --out CODES_FILE`,
    );
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('a plan row: read as that order, not ordered again, its file not written', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const plan = join(dir, 'restock.csv');
    writeFileSync(plan, 'product,quantity,out\ntesco-uk-20,1,a.csv\n');
    const row = await abandonedAfterAccept(configDir, ['order', 'place', '--plan', plan]);
    const before = (await ledger(served.server)).orders.length;
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(`row 2: its order ${row.orderId} was abandoned here at `);
    // Pinned to this config directory, as every command said is (a second review found it bare).
    expect(again.stderr).toContain(
      `not ordered again (its codes: GIFTCODES_CONFIG_DIR=${configDir} giftcodes codes get`,
    );
    // Never "a --batch of its own", which orders every row again (a review): the row alone.
    // Never "a --batch of its own", which orders every row again, nor an order place of the row by itself, which the
    // plan's next run doubled once that order failed (reviews).
    expect(again.stderr).toContain(
      `completed now; not ordered again (its codes: GIFTCODES_CONFIG_DIR=${configDir} giftcodes codes get ${row.orderId} --out CODES_FILE)`,
    );
    expect(again.stderr).not.toContain('--batch');
    expect(again.stderr).not.toContain('order place');
    expect(again.stderr).toContain('0 of 1 row ordered (0 codes), 1 abandoned earlier, not ordered again');
    expect((await ledger(served.server)).orders.length).toBe(before);
    expect(existsSync(join(dir, 'a.csv'))).toBe(false);
    const json = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(JSON.parse(json.stdout)).toMatchObject([{ already: true, abandoned: true }]);
    // A copy of the plan is another plan with the same rows: said, as for delivered rows (a review: silent).
    const copy = join(dir, 'restock (copy).csv');
    writeFileSync(copy, 'product,quantity,out\ntesco-uk-20,1,b.csv\n');
    const copied = await runCli(['order', 'place', '--plan', copy], { configDir });
    // Placed, not delivered: its codes never reached anyone (a second review read "delivered" of an abandoned row).
    expect(copied.stderr).toMatch(/another plan \([^)]*\) placed this same row here in the last 24 hours/);
    expect(copied.stderr).toContain(`order ${row.orderId}, abandoned here after it was placed,`);
  });

  // A review: an abandoned row whose order then failed read "1 delivered by an earlier run" every night, exit 0.
  it('a plan row abandoned after placing, whose order then failed: said as failed (exit 6), never as done', async () => {
    // Pending when placed (and abandoned), failed 300 ms later.
    const configDir = await loggedIn(failing.server, DEMO_KEYS.test);
    const plan = join(tempDir(), 'restock.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\n');
    const row = await abandonedAfterAccept(configDir, ['order', 'place', '--plan', plan]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const before = (await ledger(failing.server)).orders.length;
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(again.code, again.stderr).toBe(6);
    expect((await ledger(failing.server)).orders.length).toBe(before);
    expect(again.stderr).toContain(`order ${row.orderId}, abandoned here after the API placed it, ended failed`);
    expect(again.stderr).not.toContain('delivered by an earlier run');
    // Its failure noted, the plan's next run orders the row anew, under its next key.
    const next = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect((JSON.parse(next.stdout) as { key: string }[])[0]!.key).toBe(`${row.key}-g2`);
    expect((await ledger(failing.server)).orders.length).toBe(before + 1);
  });
});

// A person's-day review followed `order watch`'s hint (`codes get <B> --out codes.csv`) into the quickstart's file of
// order A's codes: "codes.csv exists; pass --force to overwrite it", and --force wrote over A's codes.
describe("codes get or order watch --out a file that holds another order's codes by the record", () => {
  it('is refused naming that order (exit 2), its hint away from --force; the file untouched', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const file = join(dir, 'codes.csv');
    const first = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', file, '--json'],
      { configDir },
    );
    expect(first.code, first.stderr).toBe(0);
    const a = (JSON.parse(first.stdout) as { id: string }).id;
    const bytes = readFileSync(file, 'utf8');
    const second = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--wait', '--json'],
      {
        configDir,
      },
    );
    const b = (JSON.parse(second.stdout) as { id: string }).id;
    for (const verb of [
      ['codes', 'get', b],
      ['order', 'watch', b],
    ]) {
      const result = await runCli([...verb, '--out', file], { configDir });
      expect(result.code, result.stderr).toBe(2);
      expect(unstamped(result.stderr)).toContain(
        `error: ${file} exists and holds the codes of order ${a} (2 × amazon-us-25, written `,
      );
      expect(unstamped(result.stderr)).toContain(
        `hint: write the codes of ${b} to another --out file; --force would write over that order's codes`,
      );
      expect(readFileSync(file, 'utf8')).toBe(bytes);
    }
    // With --force it is written over, as asked, and said, with the way to the first order's codes again (a second
    // review, stop 78: the only file of an order's codes went without a word). Under --quiet too.
    const forced = await runCli(['codes', 'get', b, '--out', file, '--force', '--quiet'], { configDir });
    expect(forced.code, forced.stderr).toBe(0);
    expect(unstamped(forced.stderr)).toContain(
      `warning: ${file} held the codes of order ${a}, written over now with those of ${b}; ${a}'s codes again, charging nothing: `,
    );
    expect(forced.stderr).toContain(`giftcodes codes get ${a} --out OTHER_FILE`);
    // Its own file written again: nothing said.
    const again = await runCli(['codes', 'get', b, '--out', file, '--force', '--quiet'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('held the codes');
  });

  // A review: codes marked sold in the file (a line removed, the file written a minute after its delivery), then the
  // night's command run again by hand: "exists; choose another --out file", and that other file was a second order.
  it('a delivered file changed since: order place and codes get name the order whose codes were written there', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const file = join(tempDir(), 'codes.csv');
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', file];
    const first = await runCli([...place, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const a = (JSON.parse(first.stdout) as { id: string }).id;
    const lines = readFileSync(file, 'utf8').split('\r\n');
    writeFileSync(file, [lines[0], lines[1], ''].join('\r\n'));
    const later = new Date(Date.now() + 120_000);
    utimesSync(file, later, later);
    const before = (await ledger(served.server)).orders.length;
    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(unstamped(again.stderr)).toMatch(
      new RegExp(
        `error: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} exists; the codes of order ${a} \\(2 × amazon-us-25\\) were written there at \\S+, and it has changed since; nothing was ordered\n`,
      ),
    );
    expect(again.stderr).toMatch(
      new RegExp(`to get those codes again: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes codes get ${a} --out CODES_FILE`),
    );
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  // A copy (codes get --out into a second file) was refused as "exists" alone, and its hint's "another --out file" was
  // a second paid order for a person running the order's command again into the file they had last used.
  it("a copy's file: order place and codes get name the order whose codes were copied there", async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '2', '--out', join(dir, 'first.csv')];
    const first = await runCli([...place, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const a = (JSON.parse(first.stdout) as { id: string }).id;
    const copy = join(dir, 'copy.csv');
    expect((await runCli(['codes', 'get', a, '--out', copy], { configDir })).code).toBe(0);
    const before = (await ledger(served.server)).orders.length;
    const again = await runCli([...place.slice(0, -1), copy], { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(unstamped(again.stderr)).toContain(
      `error: ${copy} exists and holds a copy of the codes of order ${a} (2 × amazon-us-25); nothing was ordered\n`,
    );
    expect(again.stderr).toMatch(
      new RegExp(`to get those codes again: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes codes get ${a} --out CODES_FILE`),
    );
    const b = JSON.parse(
      (
        await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--wait', '--json'], {
          configDir,
        })
      ).stdout,
    ) as { id: string };
    const got = await runCli(['codes', 'get', b.id, '--out', copy], { configDir });
    expect(got.code, got.stderr).toBe(2);
    expect(unstamped(got.stderr)).toContain(`error: ${copy} exists and holds a copy of the codes of order ${a} (2 ×`);
    expect((await ledger(served.server)).orders.length).toBe(before + 1);
  });
});

// A person's day: `codes get <id> --out f.csv` over a file that was not these codes fetched every page (a minute and a
// half for 60,000 codes, a spreadsheet warning about a file never written), then refused. A file that certainly
// cannot hold them (empty, or fewer lines than the order has codes) is refused before a page is asked for.
describe('codes get --out a file that cannot hold the order', () => {
  it('is refused before any page is fetched; the file that holds them is still read as such', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    // --json for the order's id (order list would be one more process for it).
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '40', '--out', join(dir, 'mine.csv'), '--json'],
      { configDir },
    );
    expect(placed.code, placed.stderr).toBe(0);
    const { id } = JSON.parse(placed.stdout) as { id: string };
    writeFileSync(join(dir, 'other.csv'), 'hello,world\n');
    writeFileSync(join(dir, 'empty.jsonl'), '');
    for (const name of ['other.csv', 'empty.jsonl']) {
      const refused = await runCli(['-v', 'codes', 'get', id, '--out', join(dir, name)], { configDir });
      expect(refused.code, name).toBe(2);
      expect(unstamped(refused.stderr)).toContain(
        `error: ${join(dir, name)} exists and ${name === 'other.csv' ? 'holds 1 line, too few for the 40 codes' : 'is empty, too few for the 40 codes'} of order ${id} (${name === 'other.csv' ? 'csv' : 'jsonl'}): nothing was fetched or written`,
      );
      expect(refused.stderr, name).not.toMatch(/GET \/v1\/orders\/\S+\/codes/);
      expect(refused.stderr).not.toContain('spreadsheet');
    }
    // The file its own codes went to: read, compared, left as it was (exit 0).
    const same = await runCli(['codes', 'get', id, '--out', join(dir, 'mine.csv')], { configDir });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toContain('already holds the 40 codes');
  }, 60_000);

  // A review: an empty file refused "too few for the 3 codes" of an order that had failed (exit 2 for 6).
  it('an order that failed is said as failed, whatever file is there', async () => {
    const configDir = await loggedIn(failing.server);
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '3', '--json'], {
      configDir,
    });
    expect(placed.code, placed.stderr).toBe(0);
    const { id } = JSON.parse(placed.stdout) as { id: string };
    // Read once it has failed (order watch ends it, exit 6); what it says is what codes get must say.
    const watched = await runCli(['order', 'watch', id], { configDir });
    expect(watched.code).toBe(6);
    const file = join(tempDir(), 'f.csv');
    writeFileSync(file, '');
    const codes = await runCli(['codes', 'get', id, '--out', file], { configDir });
    expect(codes.code, codes.stderr).toBe(6);
    expect(codes.stderr).not.toContain('too few');
    // Said as order watch says it (a person's day: codes get gave "failed; it has no codes" and "see it with order
    // show", where watch gave the provider's reason and how to order it anew).
    const said = (r: { stderr: string }) =>
      r.stderr
        .split('\n')
        .filter((l) => /(error|hint): /.test(l))
        .map((l) => l.replace(/^.*?(error|hint): /, '$1: '));
    const words = said(watched);
    expect(words[0]).toMatch(new RegExp(`^error: order ${id} ended failed \\(\\w+`));
    expect(words[1]).toContain(`ask the provider about order ${id}; to order it anew: `);
    expect(said(codes)).toEqual(words);
    expect(said(await runCli(['codes', 'get', id], { configDir }))).toEqual(words);
  }, 60_000);
});

// A third review (stop 77, H1, H2): the warning "both hold the same codes: hand out one of them" named a file another
// order's codes had been written over since (`--force`), or a file the person's `codes get --force` had put another
// order's codes into: the person who kept that file and deleted the other handed out one order's codes twice and
// the other's never. A file is named only while this order wrote it last.
describe("the same codes in two files, said only of files still holding this order's codes", () => {
  it("neither a file another order was written over, nor one a copy of another order's codes went into", async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const f = join(dir, 'f.csv');
    const idOf = (stdout: string): string => (JSON.parse(stdout) as { id: string }).id;
    const a = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--out', f, '--json'], {
      configDir,
    });
    expect(a.code, a.stderr).toBe(0);
    const b = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', f, '--force', '--json'],
      { configDir },
    );
    expect(b.code, b.stderr).toBe(0);
    const aCopy = await runCli(['codes', 'get', idOf(a.stdout), '--out', join(dir, 'g.csv')], { configDir });
    expect(aCopy.code, aCopy.stderr).toBe(0);
    expect(aCopy.stderr).not.toContain(`are in ${f}`);
    // B's codes in f.csv, then A's copied over it (--force): f.csv is A's now, and B's codes are nowhere else.
    const over = await runCli(['codes', 'get', idOf(a.stdout), '--out', f, '--force'], { configDir });
    expect(over.code, over.stderr).toBe(0);
    const bCopy = await runCli(['codes', 'get', idOf(b.stdout), '--out', join(dir, 'h.csv')], { configDir });
    expect(bCopy.code, bCopy.stderr).toBe(0);
    expect(bCopy.stderr).not.toContain('hold the same codes');
    // order show says so too: f.csv was B's, and A's codes went over it since (a fourth review, F2).
    const shown = await runCli(['order', 'show', idOf(b.stdout)], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.replace(/\s+/g, ' ')).toContain(`written over since with the codes of order ${idOf(a.stdout)}`);
    // And an order place to f.csv names A, whose copy wrote it last.
    const next = await runCli(['order', 'place', '--product', 'amazon-us-50', '--quantity', '1', '--out', f], {
      configDir,
    });
    expect(next.code, next.stderr).toBe(2);
    expect(next.stderr).toContain(idOf(a.stdout));
    expect(next.stderr).not.toContain(idOf(b.stdout));
  }, 60_000);
});

// A third review (stop 77, H5): a reseller marked codes SOLD in an order's own file; `codes get` of that order into
// it said only "exists, pass --force", and --force wrote the codes back without the marks. It now says whose file it
// is and that it changed since, and what --force would lose.
describe("codes get into the order's own file, changed since it was written", () => {
  it('refused naming the order and the change; the hint says what --force loses', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const f = join(tempDir(), 'mine.csv');
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', f, '--json'],
      { configDir },
    );
    expect(placed.code, placed.stderr).toBe(0);
    const id = (JSON.parse(placed.stdout) as { id: string }).id;
    writeFileSync(f, `${readFileSync(f, 'utf8').trimEnd()} SOLD\n`);
    const later = (Date.now() + 120_000) / 1000;
    utimesSync(f, later, later);
    const again = await runCli(['codes', 'get', id, '--out', f], { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`the codes of order ${id} (2 × amazon-us-10) were written there at `);
    expect(again.stderr).toContain('and it has changed since');
    expect(again.stderr).toContain('--force writes them there again as the API has them, losing what changed');
    expect(readFileSync(f, 'utf8')).toContain('SOLD');
    // A copy of its codes marked so too (a fourth review: still "exists, pass --force").
    const copy = join(tempDir(), 'copy.csv');
    expect((await runCli(['codes', 'get', id, '--out', copy], { configDir })).code).toBe(0);
    writeFileSync(copy, `${readFileSync(copy, 'utf8').trimEnd()} SOLD\n`);
    utimesSync(copy, later, later);
    const onCopy = await runCli(['codes', 'get', id, '--out', copy], { configDir });
    expect(onCopy.code, onCopy.stderr).toBe(2);
    expect(onCopy.stderr).toContain(`a copy of the codes of order ${id} (2 × amazon-us-10) was written there`);
    expect(onCopy.stderr).toContain('--force writes them there again as the API has them, losing what changed');
  }, 60_000);
});

// A fourth review (stop 77, F6): a plan's row file another row's codes were written over since (order watch --out
// --force) was still "its codes in r1.csv" when the plan ran again: a cron log's reader handed out the wrong codes.
describe("a plan run again, a row's file written over since with another order's codes", () => {
  it('says whose codes went over it, not "its codes in" that file', async () => {
    const configDir = await loggedIn(served.server, DEMO_KEYS.test);
    const dir = tempDir();
    const plan = join(dir, 'over.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,1,r1.csv\namazon-us-25,1,r2.csv\n');
    const first = await runCli(['order', 'place', '--plan', plan, '--json'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const rows = JSON.parse(first.stdout) as { order: { id: string } }[];
    const [r1, r2] = rows.map((r) => r.order.id);
    const watched = await runCli(['order', 'watch', r2!, '--out', join(dir, 'r1.csv'), '--force'], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const said = unstamped(again.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(
      `(order ${r1}, its codes written to ${join(dir, 'r1.csv')}, written over since with the codes of order ${r2})`,
    );
    expect(said).not.toContain(`its codes in ${join(dir, 'r1.csv')}`);
  }, 60_000);
});
