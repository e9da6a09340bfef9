// A plan killed mid-run, then run as a copy (or renamed, or without its --batch): a plan of its own, whose rows are
// new orders. An adversarial review ran `restock (1).csv` after `restock.csv` was killed with its rows charged: every
// row was ordered again, asked nothing, and the copy's rows took the files the interrupted rows were to write; the
// original's refusal then hinted at a new --batch, a third set of orders.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configCopy,
  heldRequests,
  ledger,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
} from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
// Each order request held until released: a run is stopped while its request is out.
const held = servedApi(['--hold', '600000', '--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();

/** A plan of two rows in a directory of its own, killed once its first row's order was accepted (charged). */
async function killedPlan(): Promise<{ configDir: string; dir: string; plan: string; key: string }> {
  const configDir = configCopy(served.configDir);
  const dir = tempDir();
  const plan = join(dir, 'restock.csv');
  writeFileSync(plan, 'product,quantity,out\napple-us-25,3,a.csv\nnetflix-us-30,2,n.csv\n');
  const killed = await runCli(['order', 'place', '--plan', plan, '--concurrency', '1'], {
    configDir,
    baseUrl: served.url,
    env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    cwd: dir,
  });
  expect(killed.signal, killed.stderr).toBe('SIGKILL');
  const pending = (await pendingNow(configDir)) as { key: string; orderId?: string | null }[];
  const sent = pending.find((p) => p.orderId);
  expect(sent?.key).toMatch(/^plan-/);
  return { configDir, dir, plan, key: sent!.key };
}

describe('a plan killed mid-run, then run as a copy', () => {
  it('off a terminal: the copy names the rows the plan left unfinished before ordering its own', async () => {
    const { configDir, dir, plan, key } = await killedPlan();
    const copy = join(dir, 'restock (1).csv');
    copyFileSync(plan, copy);
    const run = await runCli(['order', 'place', '--plan', copy], { configDir, baseUrl: served.url, cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const said = unstamped(run.stderr).replace(/\s+/g, ' ');
    // Its second row is said too: readied for sending when the run was killed, it may have gone out.
    expect(said).toMatch(
      /(1 row of this plan was|2 rows of this plan were) sent by another run \(another plan or --batch\) and never finished/,
    );
    expect(said).toContain(`3 × apple-us-25 (key ${key}, started `);
    expect(said).toContain(', plan restock.csv, no --batch');
    expect(said).toMatch(/by running (its|their) plan as it ran there, or \S*\s?giftcodes order resume --all/);

    // The original plan again: its row's file is the copy's now. Moving it away finishes the row; a new --batch
    // would order it a third time, and the hint no longer says so.
    const again = await runCli(['order', 'place', '--plan', plan], { configDir, baseUrl: served.url, cwd: dir });
    expect(again.code, again.stderr).toBe(2);
    expect(unstamped(again.stderr).replace(/\s+/g, ' ')).toContain(
      `line 2 is an order an earlier run of this plan sent and never finished (key ${key}: it was placed and charged): move the file away, then run the same command to finish it into its own file, or point the row's out cell at another file, which finishes it there; another --batch would order it again`,
    );
    expect(again.stderr).not.toContain('{batch}');
  }, 120_000);

  // A review: rows abandoned while out, then the plan without its --batch (or a copy): charged twice, no word.
  it('rows abandoned while their requests were out, then the plan without its --batch: named before ordering', async () => {
    const configDir = configCopy(held.configDir);
    const dir = tempDir();
    const plan = join(dir, 'nightly.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-50,2\n');
    const first = spawnCli(['order', 'place', '--plan', plan, '--batch', '2026-12-01'], {
      configDir,
      baseUrl: held.url,
      cwd: dir,
    });
    first.proc.stdin?.end();
    await heldRequests(held.server);
    first.proc.kill('SIGINT');
    expect((await first.result).code).toBe(130);
    const [row] = (await pendingNow(configDir)) as { key: string }[];
    expect((await runCli(['order', 'abandon', row!.key], { configDir, baseUrl: held.url })).code).toBe(0);
    await releaseHeld(held.server);
    // Stopped where its own row would be sent (the server holds every order): the warning comes before that.
    const again = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      baseUrl: held.url,
      cwd: dir,
      env: { GIFTCODES_FAILPOINTS: 'sending.written=kill' },
    });
    expect(unstamped(again.stderr).replace(/\s+/g, ' ')).toContain(
      `1 row of this plan was sent by another run (another plan or --batch) and never finished (it may have been charged): 2 × steam-us-50 (key ${row!.key}, started `,
    );
  }, 120_000);

  it('at a terminal: asked first; No orders nothing', async () => {
    const { configDir, dir, plan } = await killedPlan();
    const copy = join(dir, 'restock-copy.csv');
    copyFileSync(plan, copy);
    const before = (await ledger(served.server)).orders.length;
    const t = inTerminal(
      ['order', 'place', '--plan', copy],
      configDir,
      { GIFTCODES_BASE_URL: served.url },
      undefined,
      dir,
    );
    await t.waitFor(/Order the 2 rows as new orders beside the unfinished ones?\?/, 30_000);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(served.server)).orders.length).toBe(before);
  }, 120_000);
});

// An adversarial review: `order place --product steam-us-50 --quantity 3` stopped with Ctrl-C while its request was
// out, then a plan with that row: only the general "an order interrupted" line, and the row was charged twice.
describe('a single order interrupted, then a plan with the same row', () => {
  async function interruptedSingle(): Promise<{ configDir: string; dir: string; plan: string; key: string }> {
    const configDir = configCopy(held.configDir);
    const dir = tempDir();
    const single = spawnCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '3'], {
      configDir,
      baseUrl: held.url,
    });
    single.proc.stdin?.end();
    await heldRequests(held.server);
    single.proc.kill('SIGINT');
    expect((await single.result).code).toBe(130);
    await releaseHeld(held.server);
    const [left] = (await pendingNow(configDir)) as { key: string }[];
    const plan = join(dir, 'plan.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-50,3\napple-us-50,1\n');
    return { configDir, dir, plan, key: left!.key };
  }

  it('off a terminal: the row is named with its order resume before the plan orders it', async () => {
    const { configDir, dir, plan, key } = await interruptedSingle();
    // Stopped where its own rows would be sent (the server holds every order): the warning comes before that.
    const run = await runCli(['order', 'place', '--plan', plan], {
      configDir,
      baseUrl: held.url,
      cwd: dir,
      env: { GIFTCODES_FAILPOINTS: 'sending.written=kill' },
    });
    const said = unstamped(run.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(
      `1 row of this plan was sent by another run (a single order place) and never finished (it may have been charged): 3 × steam-us-50 (key ${key}, started `,
    );
    expect(said).toMatch(new RegExp(`finish that one: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes order resume ${key}`));
    // Named once, as the row it is: not the general line of orders other runs left too.
    expect(said).not.toContain('an order interrupted in an earlier run');
  }, 120_000);

  it('at a terminal: asked first; No orders nothing', async () => {
    const { configDir, dir, plan } = await interruptedSingle();
    const before = (await ledger(held.server)).orders.length;
    const t = inTerminal(
      ['order', 'place', '--plan', plan],
      configDir,
      { GIFTCODES_BASE_URL: held.url },
      undefined,
      dir,
    );
    await t.waitFor(/Order the 2 rows as new orders beside the unfinished one\?/, 30_000);
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(held.server)).orders.length).toBe(before);
  }, 120_000);
});
