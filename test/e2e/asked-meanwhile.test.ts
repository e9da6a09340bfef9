// An adversarial review: what was checked before a question was not checked after it. A person's live order waited at
// its question while the nightly job placed the same order, and the yes was a second charge; a copy of the nightly
// plan run while the nightly job ran charged every row again without a word (asked only once that job had ended);
// a live plan's yes given while the nightly plan ran to its end did the same.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOTH_KEYS,
  chargesFor,
  heldRequests,
  loggedIn,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  type TestServer,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const inTerminal = giftcodesTerminals();

/**
 * `place --yes` paused for a minute right after its note is written: another run "placing right now". Returned once
 * its note is there, so that a run started after it reads it from its start.
 */
async function placingFor60s(place: string[], configDir: string): Promise<ReturnType<typeof spawnCli>> {
  const paused = spawnCli([...place, '--yes'], {
    configDir,
    env: { GIFTCODES_FAILPOINTS: 'intent.written=pause:60000' },
  });
  paused.proc.stdin?.end();
  const deadline = Date.now() + 30_000;
  while ((await pendingNow(configDir)).length === 0) {
    if (Date.now() > deadline) throw new Error('the paused run never wrote its note');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return paused;
}

/**
 * The question after a yes, of an order another run placed while it was asked: answered No, the run ends (exit 130)
 * and the server holds that other run's order alone.
 */
async function noToSecondOrder(
  t: ReturnType<typeof inTerminal>,
  server: TestServer,
  product: string,
  quantity: number,
): Promise<void> {
  const again = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
  expect(again).toContain(`Another giftcodes run placed ${quantity} × ${product} while you were asked (ord_`);
  t.answer('n');
  expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
  expect(await chargesFor(server, product, quantity)).toHaveLength(1);
}

describe('a live question answered after another run placed the same order', () => {
  const served = servedApi(['--fulfil-after', '0']);

  it('order place: the yes asks again, as a second order; No sends nothing', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'steam-us-20', '--quantity', '9'];
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.server.url });
    await t.waitFor(/Place a LIVE order[^]*\(y\/N\)/, 30_000);
    const nightly = await runCli([...place, '--yes'], { configDir });
    expect(nightly.code, nightly.stderr).toBe(0);
    t.answer('y');
    const again = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain('Another giftcodes run placed 9 × steam-us-20 while you were asked (ord_');
    // And again while the second question waited: a yes there was a third order without a word.
    expect((await runCli([...place, '--yes'], { configDir })).code).toBe(0);
    t.answer('y');
    await t.waitFor(/(Place\s+a\s+second\s+order[^]*){2}/, 30_000);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'steam-us-20', 9)).toHaveLength(2);
  });

  // A review: another run placing the same order before any question ("placing right now… second order?"), a third
  // finishing while that question waited: checked only after the live question, the third order went unnamed.
  it('a yes to an earlier question is checked too: an order finished while it waited is asked about', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'amazon-us-50', '--quantity', '2'];
    const paused = await placingFor60s(place, configDir);
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.server.url });
    await t.waitFor(/is\s+placing\s+2\s+×\s+amazon-us-50\s+right\s+now[^]*second\s+order/, 30_000);
    const third = await runCli([...place, '--yes'], { configDir });
    expect(third.code, third.stderr).toBe(0);
    t.answer('y');
    await t.waitFor(/Place a LIVE order[^]*\(y\/N\)/, 30_000);
    t.answer('y');
    const again = (await t.waitFor(/placed\s+2\s+×\s+amazon-us-50\s+while\s+you\s+were\s+asked/, 30_000)).replace(
      /\s+/g,
      ' ',
    );
    expect(again).toMatch(
      /Another giftcodes run placed 2 × amazon-us-50 while you were asked \(ord_\w+\)\. Place a second order/,
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    paused.proc.kill('SIGKILL');
    await paused.result;
    expect(await chargesFor(served.server, 'amazon-us-50', 2)).toHaveLength(1);
  });

  // A review: --idempotency-key given at a terminal beside the nightly job already sending the same order under its own
  // key: not a word, two charges of 900 USD.
  it('with --idempotency-key: another run placing the same order under another key is asked about too', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'amazon-us-100', '--quantity', '9'];
    const paused = await placingFor60s(place, configDir);
    const t = inTerminal([...place, '--idempotency-key', `mykey-${process.pid}`], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    const asked = (await t.waitFor(/second\s+order/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toMatch(/is placing 9 × amazon-us-100 right now/);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    paused.proc.kill('SIGKILL');
    await paused.result;
    expect(await chargesFor(served.server, 'amazon-us-100', 9)).toHaveLength(0);
  });

  // A review: the nightly job already placing the same order at `localhost` was not named beside a run at 127.0.0.1.
  it('another run placing the same order at another spelling of the address is named before the question', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'steam-us-20', '--quantity', '12'];
    const paused = await placingFor60s(
      [...place, '--base-url', served.server.url.replace('127.0.0.1', 'localhost')],
      configDir,
    );
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.server.url });
    const asked = (await t.waitFor(/second\s+order/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toMatch(/is placing 12 × steam-us-20 right now/);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    paused.proc.kill('SIGKILL');
    await paused.result;
    expect(await chargesFor(served.server, 'steam-us-20', 12)).toHaveLength(0);
  });

  it('a live plan: a single order, or the same plan at another spelling of the address, placed meanwhile is asked about', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    writeFileSync(join(dir, 'p1.csv'), 'product,quantity\nzalando-de-25,3\n');
    writeFileSync(join(dir, 'p2.csv'), 'product,quantity\nzalando-de-25,3\n');
    for (const meanwhile of [
      ['order', 'place', '--env', 'live', '--product', 'zalando-de-25', '--quantity', '3', '--yes'],
      [
        'order',
        'place',
        '--env',
        'live',
        '--plan',
        join(dir, 'p2.csv'),
        '--yes',
        '--base-url',
        served.server.url.replace('127.0.0.1', 'localhost'),
      ],
    ]) {
      const t = inTerminal(['order', 'place', '--env', 'live', '--plan', join(dir, 'p1.csv')], configDir, {
        GIFTCODES_BASE_URL: served.server.url,
      });
      await t.waitFor(/Place 1 LIVE order/, 30_000);
      const other = await runCli(meanwhile, { configDir });
      expect(other.code, other.stderr).toBe(0);
      t.answer('y');
      const again = (await t.waitFor(/all\s+the\s+same\?/, 30_000)).replace(/\s+/g, ' ');
      expect(again).toContain('placed or began the same order as this row while you were asked');
      expect(again).toContain("this plan's row is a second order beside it, charged again");
      expect(again).toMatch(/Order the 1 row of \S+ all the same\?/);
      t.answer('n');
      expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
      t.close();
    }
    expect(await chargesFor(served.server, 'zalando-de-25', 3)).toHaveLength(2);
  });

  // A review: the plan's "changed plan" question answered while another run placed the same order: the live
  // question's check, read after that question, took it for "before", and the row was charged twice.
  it("a live plan's earlier question (a changed plan) is a window too", async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'd.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-50,1\n');
    expect((await runCli(['order', 'place', '--env', 'live', '--plan', plan, '--yes'], { configDir })).code).toBe(0);
    writeFileSync(plan, 'product,quantity\nsteam-us-50,5\n');
    const t = inTerminal(['order', 'place', '--env', 'live', '--plan', plan], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/of\s+the\s+changed\s+plan\s+now/, 30_000);
    const single = ['order', 'place', '--env', 'live', '--product', 'steam-us-50', '--quantity', '5', '--yes'];
    expect((await runCli(single, { configDir })).code).toBe(0);
    t.answer('y');
    await t.waitFor(/Place 1 LIVE order/, 30_000);
    t.answer('y');
    const again = (await t.waitFor(/all\s+the\s+same\?/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain('placed or began the same order as this row while you were asked');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'steam-us-50', 5)).toHaveLength(1);
  });

  // A review: an order placed while a guided order's quantity was typed went unasked (read at the confirmation).
  it("a guided order's first question is a window too", async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const t = inTerminal(['order', 'place', '--env', 'live', '--product', 'google-play-us-25'], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/Quantity of google-play-us-25/, 30_000);
    const single = ['order', 'place', '--env', 'live', '--product', 'google-play-us-25', '--quantity', '1', '--yes'];
    expect((await runCli(single, { configDir })).code).toBe(0);
    t.answer('1');
    await t.waitFor(/Codes file, e\.g\. codes\.csv/, 30_000);
    t.press('Enter');
    await t.waitFor(/Place a LIVE order for 1 × google-play-us-25[^]*\(y\/N\)/, 30_000);
    t.answer('y');
    await noToSecondOrder(t, served.server, 'google-play-us-25', 1);
  });

  // A review: the question about an order abandoned after the API placed it names its codes get; run meanwhile, as it
  // says, it delivered that order, and the check after the yes asked about it as placed meanwhile (a false question).
  it('an older order delivered meanwhile, as a question said to, is not asked about as placed meanwhile', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    const place = ['order', 'place', '--env', 'live', '--product', 'amazon-us-25', '--quantity', '1'];
    const killed = await runCli([...place, '--yes', '--out', join(dir, 'c1.csv')], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    expect((await runCli(['order', 'abandon', left!.key, '--yes'], { configDir })).code).toBe(0);
    const t = inTerminal(place, configDir, { GIFTCODES_BASE_URL: served.server.url });
    const first = (await t.waitFor(/Place\s+a\s+second\s+order/, 30_000)).replace(/\s+/g, ' ');
    const orderId = /codes get (ord_\w+)/.exec(first)?.[1];
    expect(orderId, first).toBeDefined();
    const got = await runCli(['codes', 'get', orderId!, '--out', join(dir, 'got.csv'), '--wait'], { configDir });
    expect(got.code, got.stderr).toBe(0);
    t.answer('y');
    await t.waitFor(/Place a LIVE order[^]*\(y\/N\)/, 30_000);
    t.answer('y');
    const screen = (await t.waitFor(/\[exit \d+\]/, 30_000)).replace(/\s+/g, ' ');
    expect(screen).toContain('[exit 0]');
    expect(screen).not.toContain('while you were asked');
    expect(await chargesFor(served.server, 'amazon-us-25', 1)).toHaveLength(2);
  });

  // A review: `order resume KEY --force-stale` asked "Send the order … again anyway?", another run placed the same
  // order meanwhile, and the yes sent it without a word.
  it("order resume of a stale order: its question's yes is checked too", async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const place = ['order', 'place', '--env', 'live', '--product', 'steam-us-50', '--quantity', '3'];
    const killed = await runCli([...place, '--yes'], { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    // Sent more than a day ago: its note's dates (in its log, or its file once order pending read it) moved back 25 hours.
    const journal = join(configDir, 'journal');
    for (const name of readdirSync(journal).filter((n) => n.endsWith('.log') || n.endsWith('.json'))) {
      const text = readFileSync(join(journal, name), 'utf8');
      writeFileSync(
        join(journal, name),
        text.replace(
          /"createdAt": ?"([^"]+)"/g,
          (_, at: string) => `"createdAt":"${new Date(Date.parse(at) - 25 * 3_600_000).toISOString()}"`,
        ),
      );
    }
    const t = inTerminal(['order', 'resume', left!.key, '--force-stale'], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/again\s+anyway\?/, 30_000);
    // The same command beside it places nothing (it would refuse the stale order alone: a review's second charge
    // beside --force-stale); one given a key of its own is another order, placed meanwhile.
    const beside = await runCli([...place, '--yes'], { configDir });
    expect(beside.code, beside.stderr).toBe(2);
    expect(beside.stderr).toContain('is finishing the interrupted order of 3 × steam-us-50');
    expect((await runCli([...place, '--yes', '--idempotency-key', 'nightly-own'], { configDir })).code).toBe(0);
    t.answer('y');
    const again = (await t.waitFor(/Place\s+this\s+one\s+too/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain('Another giftcodes run placed 3 × steam-us-50 while you were asked (ord_');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
  });

  it('a guided order: its confirmation is checked again after the yes too', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const t = inTerminal(['order', 'place', '--env', 'live', '--product', 'steam-us-50'], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/Quantity of steam-us-50/, 30_000);
    t.answer('2');
    await t.waitFor(/Codes file, e\.g\. codes\.csv/, 30_000);
    t.press('Enter');
    await t.waitFor(/Place a LIVE order for 2 × steam-us-50[^]*\(y\/N\)/, 30_000);
    const nightly = await runCli(
      ['order', 'place', '--env', 'live', '--product', 'steam-us-50', '--quantity', '2', '--yes'],
      {
        configDir,
      },
    );
    expect(nightly.code, nightly.stderr).toBe(0);
    t.answer('y');
    await noToSecondOrder(t, served.server, 'steam-us-50', 2);
  });

  it('a live plan: the yes asks again when another plan sharing some of its rows placed them meanwhile', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    writeFileSync(join(dir, 'a.csv'), 'product,quantity\nsteam-us-20,4\nnetflix-us-30,4\ngoogle-play-us-25,4\n');
    writeFileSync(join(dir, 'b.csv'), 'product,quantity\nsteam-us-20,4\nnetflix-us-30,4\ntesco-uk-20,4\n');
    const t = inTerminal(['order', 'place', '--env', 'live', '--plan', join(dir, 'b.csv')], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/Place 3 LIVE orders/, 30_000);
    const other = await runCli(['order', 'place', '--env', 'live', '--plan', join(dir, 'a.csv'), '--yes'], {
      configDir,
    });
    expect(other.code, other.stderr).toBe(0);
    t.answer('y');
    const again = (await t.waitFor(/all\s+the\s+same\?/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain('placed or began the same orders as 2 of these 3 rows while you were asked');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'steam-us-20', 4)).toHaveLength(1);
    expect(await chargesFor(served.server, 'tesco-uk-20', 4)).toHaveLength(0);
  });

  it('a live plan: the yes asks again when another plan delivered the same rows meanwhile', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const dir = tempDir();
    writeFileSync(join(dir, 'nightly.csv'), 'product,quantity\napple-us-25,3\nsteam-us-50,2\n');
    writeFileSync(join(dir, 'copy.csv'), 'product,quantity\napple-us-25,3\nsteam-us-50,2\n');
    const t = inTerminal(['order', 'place', '--env', 'live', '--plan', join(dir, 'copy.csv')], configDir, {
      GIFTCODES_BASE_URL: served.server.url,
    });
    await t.waitFor(/Place 2 LIVE orders/, 30_000);
    const nightly = await runCli(
      ['order', 'place', '--env', 'live', '--plan', join(dir, 'nightly.csv'), '--batch', 'd5', '--yes'],
      { configDir },
    );
    expect(nightly.code, nightly.stderr).toBe(0);
    t.answer('y');
    const again = (await t.waitFor(/all\s+the\s+same\?/, 30_000)).replace(/\s+/g, ' ');
    expect(again).toContain(
      'another giftcodes run (plan nightly.csv --batch d5) placed or began the same orders as these 2 rows while you were asked',
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await chargesFor(served.server, 'apple-us-25', 3)).toHaveLength(1);
  });
});

describe('a copy of a plan run while that plan runs', () => {
  const held = servedApi(['--hold', '600000', '--fulfil-after', '0']);

  it('is said, and asked at a terminal: No sends nothing', async () => {
    const configDir = await loggedIn(held.server, BOTH_KEYS);
    const dir = tempDir();
    writeFileSync(join(dir, 'nightly.csv'), 'product,quantity\nnetflix-us-30,1\nsteam-us-50,2\n');
    writeFileSync(join(dir, 'copy.csv'), 'product,quantity\nnetflix-us-30,1\nsteam-us-50,2\n');
    const nightly = spawnCli(['order', 'place', '--plan', join(dir, 'nightly.csv'), '--batch', 'd6'], { configDir });
    nightly.proc.stdin?.end();
    await heldRequests(held.server, 2);
    const t = inTerminal(['order', 'place', '--plan', join(dir, 'copy.csv')], configDir, {
      GIFTCODES_BASE_URL: held.server.url,
    });
    const asked = (await t.waitFor(/beside\s+that\s+run's\?/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toMatch(
      /another giftcodes run \(pid \d+: nightly\.csv --batch d6\) is placing these same 2 rows right now/,
    );
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect(await releaseHeld(held.server)).toBe(2);
    expect((await nightly.result).code).toBe(0);
    expect(await chargesFor(held.server, 'netflix-us-30', 1)).toHaveLength(1);
  });
});

// A review: a second window's run at the same codes file was refused as busy with "choose another --out file", and
// that other file was a second order of the same codes (a plan's edited out cell the same; its refusal then said "pass
// --yes", and --yes was the row charged twice).
describe('a codes file another run holds while placing the same order', () => {
  const served = servedApi(['--fulfil-after', '0']);

  it('order place and the plan are refused without sending another file; the plan edited to another file says the run', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const codes = join(dir, 's.csv');
    const plan = join(dir, 'r1.csv');
    writeFileSync(plan, `product,quantity,out\nsteam-us-20,4,${codes}\n`);
    const paused = await placingFor60s(['order', 'place', '--plan', plan], configDir);
    const pid = paused.proc.pid!;
    const single = await runCli(['order', 'place', '--product', 'steam-us-20', '--quantity', '4', '--out', codes], {
      configDir,
    });
    const again = await runCli(['order', 'place', '--plan', plan], { configDir });
    for (const run of [single, again]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`another giftcodes process (pid ${pid}) holds ${codes}`);
      expect(run.stderr).toContain(
        `if it is this same order, its codes will be in ${codes}, and another file would order them a second time`,
      );
      expect(run.stderr).not.toContain('choose another');
    }
    writeFileSync(plan, `product,quantity,out\nsteam-us-20,4,${join(dir, 's2.csv')}\n`);
    const edited = await runCli(['order', 'place', '--plan', plan], { configDir });
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toContain(
      `changed since another run (pid ${pid}) started 1 row it no longer has, which it is placing right now: 4 × steam-us-20`,
    );
    expect(edited.stderr).toMatch(
      new RegExp(`hint: wait for the run \\(pid ${pid}\\) placing the rows this plan no longer has to finish`),
    );
    expect(edited.stderr).not.toContain('pass --yes');
    paused.proc.kill('SIGKILL');
    await paused.result;
    expect(await chargesFor(served.server, 'steam-us-20', 4)).toHaveLength(0);
  });

  it('codes get at a file another run writes keeps its words: another --out file is only another copy', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const codes = join(dir, 'c.csv');
    const paused = await placingFor60s(
      ['order', 'place', '--product', 'steam-us-20', '--quantity', '3', '--out', codes],
      configDir,
    );
    const got = await runCli(['codes', 'get', 'ord_missing', '--out', codes], { configDir });
    expect(got.code, got.stderr).toBe(2);
    expect(got.stderr).toContain(`another giftcodes process (pid ${paused.proc.pid}) is writing ${codes}`);
    expect(got.stderr).toContain('or choose another --out file');
    paused.proc.kill('SIGKILL');
    await paused.result;
  });
});
