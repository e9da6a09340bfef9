// An adversarial review, confirmed by the server's ledger: a plan stopped by Ctrl-C while its first row's request was
// out left the row it had readied behind it `prepared` (never sent). The person fixed that row's quantity (3 → 4) and
// ran the same plan again: the edited row was ordered, and the old row's note was left pending, the run's own warning
// saying "place it with order resume <key>". The support routine the docs give (order pending, then order resume
// --all, "does the same as re-running each command") then placed the replaced row too: two orders of one plan row.
// Now the run of the plan as it is drops the never-sent note of a row it no longer has (edited or removed: nothing of
// it was sent, so nothing was charged), says so in one line, and order pending and order resume --all no longer offer it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOTH_KEYS,
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
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--hold', '60000', '--fulfil-after', '0']);

/** The quantities of the orders the server placed of `productId`. */
async function ordersOf(productId: string): Promise<unknown[]> {
  return (await ledger(served.server)).orders.filter((o) => o.product_id === productId).map((o) => o.quantity);
}

/**
 * Runs the plan `amazon-us-100,5` then `steam-us-50,3` one row at a time and stops it with Ctrl-C while the first row's
 * request is held by the server: the second row was readied behind it, never sent.
 */
async function stoppedWithRowReadied(configDir: string, plan: string, args: readonly string[]): Promise<void> {
  writeFileSync(plan, 'product,quantity\namazon-us-100,5\nsteam-us-50,3\n');
  const before = await ordersOf('steam-us-50');
  const first = spawnCli([...args], { configDir });
  first.proc.stdin?.end();
  await heldRequests(served.server);
  first.proc.kill('SIGINT');
  expect((await first.result).code).toBe(130);
  await releaseHeld(served.server);
  expect((await pendingNow(configDir)).map((i) => i.phase).sort()).toEqual(['prepared', 'sending']);
  expect(await ordersOf('steam-us-50')).toEqual(before);
}

describe('a plan row never sent, then edited or removed from the plan, and the plan run again', () => {
  it('the edited row is ordered once; the replaced note is dropped, said, and order resume --all places nothing', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'restock.csv');
    const args = ['order', 'place', '--plan', plan, '--concurrency', '1', '--env', 'live', '--yes'];
    await stoppedWithRowReadied(configDir, plan, args);

    // The person fixes row 3's quantity. The dry run says what the run will drop, and drops nothing itself.
    writeFileSync(plan, 'product,quantity\namazon-us-100,5\nsteam-us-50,4\n');
    const dry = await runCli([...args, '--dry-run'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr.replace(/\s+/g, ' ')).toMatch(
      /no longer has 1 row an earlier run of it readied and never sent \(nothing was charged\), so the run drops it, placing nothing for it: 3 × steam-us-50 \(key plan-/,
    );
    expect(await pendingNow(configDir)).toHaveLength(2);

    // The same command, as the hint said.
    const edited = await releasingHolds(served.server, runCli(args, { configDir }));
    expect(edited.code, edited.stderr).toBe(0);
    const said = edited.stderr.replace(/\s+/g, ' ');
    expect(said).toMatch(
      /the plan \S*restock\.csv no longer has 1 row an earlier run of it readied and never sent \(nothing was charged\), so this run dropped it, placing nothing for it: 3 × steam-us-50 \(key plan-\w+, started [^)]+\) \(giftcodes order list shows it abandoned, replaced by the plan as it is now\)/,
    );
    expect(said).not.toContain('order resume plan-');
    expect(await ordersOf('steam-us-50')).toEqual([4]);
    expect(await pendingNow(configDir)).toEqual([]);

    // Support, the next morning, as docs/exactly-once.md says: order pending, then order resume --all.
    const pending = await runCli(['order', 'pending'], { configDir });
    expect(pending.stdout).not.toContain('steam-us-50');
    const resumed = await releasingHolds(served.server, runCli(['order', 'resume', '--all'], { configDir }));
    expect(resumed.code, resumed.stderr).toBe(0);
    // One order of the row, by the ledger: the edited row's.
    expect(await ordersOf('steam-us-50')).toEqual([4]);
    expect(await ordersOf('amazon-us-100')).toEqual([5]);
    // Its record says how it ended.
    const list = await runCli(['order', 'list', '--json'], { configDir });
    const records = JSON.parse(list.stdout) as {
      productId: string;
      quantity: number;
      outcome: string;
      error?: { code: string };
    }[];
    expect(records.find((r) => r.productId === 'steam-us-50' && r.quantity === 3)).toMatchObject({
      outcome: 'abandoned',
      error: { code: 'replaced_by_plan' },
    });
  }, 120_000);

  it('the plan run again as it was, killed as it arms the row taken over `prepared`: one order of each row after', async () => {
    // A plan's new row is written `sending` at once (Journal.begin's armed); a row left `prepared` by a stop is the one
    // whose `prepared` → `sending` a plan still writes: killed right there, the next run sends it with its key, once.
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'restock.csv');
    const args = ['order', 'place', '--plan', plan, '--batch', 'b3', '--concurrency', '1', '--env', 'live', '--yes'];
    const before = { steam: await ordersOf('steam-us-50'), amazon: await ordersOf('amazon-us-100') };
    await stoppedWithRowReadied(configDir, plan, args);

    const killed = await releasingHolds(
      served.server,
      runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'sending.written=kill' } }),
    );
    expect(killed.signal, `${killed.code} ${killed.stderr}`).toBe('SIGKILL');
    const phases = new Map((await pendingNow(configDir)).map((i) => [i.productId, i.phase]));
    expect(phases.size).toBe(2);
    expect(phases.get('steam-us-50')).toBe('sending');
    // The row before it, taken over and sent again with its key while this one was readied: its answer may be on disk
    // before the kill or not (2 runs of 10 on a fresh machine had it `accepted`, the tree before this test's change too).
    expect(['sending', 'accepted']).toContain(phases.get('amazon-us-100'));

    const again = await releasingHolds(served.server, runCli(args, { configDir }));
    expect(again.code, again.stderr).toBe(0);
    expect(await pendingNow(configDir)).toEqual([]);
    expect(await ordersOf('steam-us-50')).toEqual([...before.steam, 3]);
    expect(await ordersOf('amazon-us-100')).toEqual([...before.amazon, 5]);
  }, 120_000);

  it('the row removed from the plan: its note is dropped the same way, and it is never ordered', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'restock.csv');
    // A batch of its own: the server keeps the keys the test above sent, and a row's key is the plan's name and batch.
    const args = ['order', 'place', '--plan', plan, '--batch', 'b2', '--concurrency', '1', '--env', 'live', '--yes'];
    const before = { steam: await ordersOf('steam-us-50'), amazon: await ordersOf('amazon-us-100') };
    await stoppedWithRowReadied(configDir, plan, args);

    // The person decided not to order it.
    writeFileSync(plan, 'product,quantity\namazon-us-100,5\n');
    const again = await releasingHolds(served.server, runCli(args, { configDir }));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.replace(/\s+/g, ' ')).toMatch(
      /so this run dropped it, placing nothing for it: 3 × steam-us-50/,
    );
    expect(await pendingNow(configDir)).toEqual([]);
    const resumed = await releasingHolds(served.server, runCli(['order', 'resume', '--all'], { configDir }));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await ordersOf('steam-us-50')).toEqual(before.steam);
    expect(await ordersOf('amazon-us-100')).toEqual([...before.amazon, 5]);
  }, 120_000);
});
