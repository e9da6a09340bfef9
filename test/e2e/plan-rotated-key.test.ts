// An adversarial review, confirmed by the server's ledger: the reseller rotated its API key (`giftcodes login` again in
// the same profile, with a second key of the same reseller) after a night's plan was killed while a row's request was
// out, and ran the night's line again (the cron line carries --yes). A row's key is made with the API key, so under the
// new key the row was a new order, and --yes answered the only guard (a warning): two orders of one row; and every row
// the night had delivered was ordered again too. The same situation for a single order is refused whatever the flags
// (exit 2, "so it is not resumed with this one"). Now the plan does what the single order does for another key of the
// same reseller: a row sent with it and never finished refuses the run (nothing sent, --yes or not), with the way to
// finish it with its own key; a row delivered with it is read as delivered, said in one line, and not ordered again.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEMO_KEYS,
  chargesFor,
  heldRequests,
  loggedIn,
  releaseHeld,
  releasingHolds,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  withServer,
} from '../helpers/e2e.js';
import { rotate, twoKeySeed } from '../helpers/rotated-key.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(() => ['--seed', twoKeySeed(), '--fulfil-after', '0']);

describe('a plan run again after the key was rotated to another key of the same reseller', () => {
  it('a row the killed night sent is refused, --yes or not, as a single order is; finished with its key, it is read as delivered', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity,out\ngoogle-play-us-25,3,g-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', '2026-12-01', '--yes'];
    const killed = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [charged] = await chargesFor(served.server, 'google-play-us-25', 3);
    expect(charged).toBeDefined();
    await rotate(configDir);

    // The single-order rule, for comparison: an order of the same request interrupted under the old key is refused.
    const single = ['order', 'place', '--product', 'apple-us-50', '--quantity', '2', '--yes'];
    const singleDir = await loggedIn(served.server);
    const singleKilled = await runCli(single, {
      configDir: singleDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(singleKilled.signal).toBe('SIGKILL');
    await rotate(singleDir);
    const refusedSingle = await runCli(single, { configDir: singleDir });
    expect(refusedSingle.code, refusedSingle.stderr).toBe(2);
    expect(refusedSingle.stderr).toContain('so it is not resumed with this one');
    expect(await chargesFor(served.server, 'apple-us-50', 2)).toHaveLength(1);

    // The night's line run again, as pasted from the crontab (--yes): refused, nothing sent.
    const again = await runCli(night, { configDir });
    expect(again.code, again.stderr).toBe(2);
    const [key] = (await pendingNow(configDir)).map((i) => i.key);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(
      `sent 1 row with another API key of the same reseller (rs_demo) in profile "default", never finished (it may have been charged): line 2: 3 × google-play-us-25 (key ${key},`,
    );
    expect(said).toContain('an order is never resumed with another API key than its own');
    expect(said).toMatch(
      /hint: finish it with the API key it was placed with \(the old API key, .* in place of OLD_KEY\)/,
    );
    expect(said).toContain(`giftcodes order resume ${key}`);
    expect(await chargesFor(served.server, 'google-play-us-25', 3)).toEqual([charged]);
    expect((await pendingNow(configDir)).map((i) => i.state)).toEqual(['interrupted']);
    expect(existsSync(join(dir, 'g-2026-12-01.csv'))).toBe(false);

    // Finished with the key it was placed with, as the hint says: its codes written, no second order.
    const resumed = await runCli(['order', 'resume', key!], { configDir, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(dir, 'g-2026-12-01.csv'))).toBe(true);
    expect(await pendingNow(configDir)).toEqual([]);

    // The night's line once more, with the new key: the row is read as delivered, said once, and not ordered again.
    const after = await runCli(night, { configDir });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr.replace(/\s+/g, ' ')).toMatch(
      /delivered 1 row with another API key of the same reseller \(rs_demo\), so it is read as delivered here and not ordered again: line 2: 3 × google-play-us-25 \(order ord_\w+/,
    );
    expect(await chargesFor(served.server, 'google-play-us-25', 3)).toEqual([charged]);

    // A new --batch is the way to order the plan anew.
    const next = await runCli(['order', 'place', '--plan', plan, '--batch', '2026-12-02', '--yes'], { configDir });
    expect(next.code, next.stderr).toBe(0);
    expect(await chargesFor(served.server, 'google-play-us-25', 3)).toHaveLength(2);
  }, 120_000);

  it('the rows a night delivered before the key was rotated are not ordered again, --yes or not', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'restock.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-20,2\nnetflix-us-30,1\n');
    const line = ['order', 'place', '--plan', plan, '--batch', 'n1', '--yes'];
    const first = await runCli(line, { configDir });
    expect(first.code, first.stderr).toBe(0);
    const before = {
      steam: await chargesFor(served.server, 'steam-us-20', 2),
      netflix: await chargesFor(served.server, 'netflix-us-30', 1),
    };
    await rotate(configDir);

    const again = await runCli([...line, '--json'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { row: number; already?: boolean }[];
    expect(rows.map((r) => [r.row, r.already])).toEqual([
      [2, true],
      [3, true],
    ]);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).toContain(
      'delivered 2 rows with another API key of the same reseller (rs_demo), so they are read as delivered here and not ordered again',
    );
    expect(said).not.toContain('charged again');
    // Their orders read again with the new key (one reseller's orders): nothing said of a read that failed.
    expect(said).not.toContain('could not be read again');
    expect(await chargesFor(served.server, 'steam-us-20', 2)).toEqual(before.steam);
    expect(await chargesFor(served.server, 'netflix-us-30', 1)).toEqual(before.netflix);
  }, 120_000);

  // Killed after its codes file was renamed into place, before the run recorded so: the codes reached the file, and the
  // night's line with --force (a file written over each night) ordered the row again under the new key.
  it('a row whose codes reached its file before the run was cut: refused too, and read as delivered once resumed', async () => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, 'cut.csv');
    writeFileSync(plan, 'product,quantity,out\napple-us-50,4,a-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', 'k1', '--yes', '--force'];
    const cut = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' } });
    expect(cut.signal, cut.stderr).toBe('SIGKILL');
    expect(existsSync(join(dir, 'a-k1.csv'))).toBe(true);
    const [placed] = await chargesFor(served.server, 'apple-us-50', 4);
    await rotate(configDir);

    const again = await runCli(night, { configDir });
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('an order is never resumed with another API key than its own');
    const [key] = (await pendingNow(configDir)).map((i) => i.key);
    const resumed = await runCli(['order', 'resume', key!], { configDir, env: { GIFTCODES_API_KEY: DEMO_KEYS.test } });
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = await runCli(night, { configDir });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toContain('so it is read as delivered here and not ordered again');
    expect(await chargesFor(served.server, 'apple-us-50', 4)).toEqual([placed]);
  }, 120_000);

  // A plan stopped by Ctrl-C leaves the row behind the one out readied, never sent. Finished with its key, the row out is
  // delivered; the key is then rotated, and the same plan run: the never-sent note of the old key is no order of this
  // run's, and left pending it was placed by order resume --all beside the row this run ordered with the new key.
  it('a row readied with the old key and never sent: ordered once with the new key, its old note dropped', async () => {
    await withServer(['--seed', twoKeySeed(), '--hold', '60000', '--fulfil-after', '0'], async (server) => {
      const configDir = await loggedIn(server);
      const plan = join(tempDir(), 'restock.csv');
      writeFileSync(plan, 'product,quantity\nsteam-us-20,2\nnetflix-us-30,1\n');
      const line = ['order', 'place', '--plan', plan, '--batch', 'c1', '--concurrency', '1', '--yes'];
      const first = spawnCli(line, { configDir });
      first.proc.stdin?.end();
      await heldRequests(server);
      first.proc.kill('SIGINT');
      expect((await first.result).code).toBe(130);
      await releaseHeld(server);
      const left = await pendingNow(configDir);
      expect(left.map((i) => i.phase).sort()).toEqual(['prepared', 'sending']);
      const sent = left.find((i) => i.phase === 'sending')!;
      const readied = left.find((i) => i.phase === 'prepared')!;
      const finished = await releasingHolds(server, runCli(['order', 'resume', sent.key], { configDir }));
      expect(finished.code, finished.stderr).toBe(0);
      await rotate(configDir);

      const again = await releasingHolds(server, runCli(line, { configDir }));
      expect(again.code, again.stderr).toBe(0);
      const said = again.stderr.replace(/\s+/g, ' ');
      expect(said).toContain('delivered 1 row with another API key of the same reseller (rs_demo)');
      expect(said).toContain(
        `has 1 row an earlier run of it readied with another API key of the same reseller (rs_demo) and never sent (nothing was charged); this run orders it with this key, so it dropped that note: 1 × netflix-us-30 (key ${readied.key},`,
      );
      expect(await pendingNow(configDir)).toEqual([]);
      const resumed = await releasingHolds(server, runCli(['order', 'resume', '--all'], { configDir }));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await chargesFor(server, 'steam-us-20', 2)).toHaveLength(1);
      expect(await chargesFor(server, 'netflix-us-30', 1)).toHaveLength(1);
    });
  }, 120_000);
});
