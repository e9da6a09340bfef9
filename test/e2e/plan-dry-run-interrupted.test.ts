// An adversarial review: a plan's --dry-run after a killed run priced every row as a new order, the row whose order
// the killed run had placed (its id known) included, so its total counted money the live run would never spend (that
// run finishes the order under its key). Now the dry run says which rows the run would finish, and counts only the
// new ones.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chargesFor, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--fulfil-after', '0']);

interface Row {
  row: number;
  key: string;
  dryRun?: boolean;
  resumed?: boolean;
  order?: { id: string };
}

describe("a plan's dry run after a run killed once its first row's order was placed", () => {
  it('names the row the run finishes under its key, with its order, and prices only the new row', async () => {
    const configDir = await loggedIn(served.server);
    const plan = join(tempDir(), 'night.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,2\n');
    const args = ['order', 'place', '--plan', plan, '--batch', 'd1'];
    const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    const orderId = left!.orderId!;
    expect(await chargesFor(served.server, 'amazon-us-10', 2)).toEqual([orderId]);

    // A row is added; the dry run before the night's run again.
    writeFileSync(plan, 'product,quantity\namazon-us-10,2\nsteam-us-20,1\n');
    const dry = await runCli([...args, '--dry-run'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`^2 +amazon-us-10 +2 .*dry run: resumes`, 'm'));
    const said = `${dry.stdout}\n${dry.stderr}`.replace(/\s+/g, ' ');
    expect(said).toMatch(
      new RegExp(
        `line 2, when run: finishes the order ${orderId} of 2 × amazon-us-10 an earlier run placed \\(and charged\\) at \\S+, under its key ${left!.key}: no new order, nothing charged again`,
      ),
    );
    expect(said).toContain(
      'dry run: 1 order, 1 code, 20.00 USD in all (1 row an earlier run left interrupted, finished under its key, not ordered anew); nothing was sent',
    );
    const json = JSON.parse((await runCli([...args, '--dry-run', '--json'], { configDir })).stdout) as Row[];
    expect(json.map((r) => [r.row, r.dryRun, r.resumed ?? false, r.order?.id])).toEqual([
      [2, true, true, orderId],
      [3, true, false, undefined],
    ]);

    // The run does what the dry run said: the placed order finished, one new order.
    const run = await runCli(args, { configDir });
    expect(run.code, run.stderr).toBe(0);
    expect(await chargesFor(served.server, 'amazon-us-10', 2)).toEqual([orderId]);
    expect(await chargesFor(served.server, 'steam-us-20', 1)).toHaveLength(1);
  }, 60_000);
});
