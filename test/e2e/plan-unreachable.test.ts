// A plan against a server that cannot be reached (nothing listens: connection refused, so nothing is sent)
// stops beginning rows once one row has gone through its retries: every other row goes to the same server.
// Each of a 1,000-row plan's rows used to wait through the same retries, 4 minutes for 1,000 identical
// errors (seen at a terminal). The rows not begun say so, the run exits 5, and no order is left pending:
// the same plan run again sends every row. Two retries, not the default five: the rule is the same, and the
// default's backoff made these two tests 30 s of the suite.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, journalIntents, runCli, tempDir, withServer } from '../helpers/e2e.js';
import { freePort } from '../helpers/ports.js';

const ROWS = 40;

/**
 * A loopback port nothing listens on: taken, then closed, below the ephemeral range (helpers/ports.ts). One the
 * kernel handed out for listen(0) could be handed again to a server another test file starts while this plan's
 * rows connect (every reference server listens on port 0), or be a connection's own source port (a self-connect).
 */
const closedPort = freePort;

describe('order place --plan when the server cannot be reached', () => {
  it('stops beginning rows after the first wave: the rest are not attempted, exit 5, nothing pending', async () => {
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, `product,quantity\n${Array.from({ length: ROWS }, () => 'amazon-us-10,1').join('\n')}\n`);
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const result = await runCli(['order', 'place', '--plan', plan, '--json', '--concurrency', '4', '--retries', '2'], {
      baseUrl,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(5);
    const rows = JSON.parse(result.stdout) as { row: number; error?: { code: string; message: string } }[];
    expect(rows).toHaveLength(ROWS);
    const tried = rows.filter((r) => r.error?.code === 'network_error');
    const skipped = rows.filter((r) => r.error?.code === 'not_attempted');
    // The rows in flight when the first gave up, and those the workers had readied behind them: a few per
    // worker (4 here), not the 40 rows of the plan.
    expect(tried.length).toBeGreaterThan(0);
    expect(tried.length).toBeLessThanOrEqual(12);
    expect(tried.length + skipped.length).toBe(ROWS);
    expect(skipped[0]!.error!.message).toMatch(
      /^not sent: the server could not be reached for an earlier row \(cannot reach/,
    );
    const { error } = JSON.parse(result.stderr.trim().split('\n').at(-1)!) as {
      error: { code: string; exitCode: number; message: string; hint: string };
    };
    expect(error).toMatchObject({ code: 'plan_rows_failed', exitCode: 5 });
    expect(error.message).toBe(
      `${tried.length} of ${ROWS} plan rows failed and ${skipped.length} ${skipped.length === 1 ? 'was' : 'were'} not attempted: the server could not be reached, and nothing was sent or charged (first: line ${tried[0]!.row}: ${tried[0]!.error!.message})`,
    );
    // The cause's own hint, as \`order place\` alone gives it: nothing listens on that loopback port.
    expect(error.hint).toMatch(
      /^nothing listens on 127\.0\.0\.1:(\d+): start the reference server with (GIFTCODES_CONFIG_DIR=\S+ )?giftcodes serve --port \1, or check GIFTCODES_BASE_URL; then run the same plan again/,
    );
    // Refused before anything was sent: ended, never left for a later run to send.
    expect(journalIntents(result.configDir)).toEqual([]);
  }, 150_000);

  it("says so in the run's summary line (a log, cron's mail)", async () => {
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, `${Array.from({ length: 12 }, () => 'amazon-us-10,1').join('\n')}\n`);
    const result = await runCli(['order', 'place', '--plan', plan, '--concurrency', '2', '--retries', '2'], {
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(
      /done: plan .*rows ordered \(0 codes\), \d failed, \d+ not attempted \(the server could not be reached\)/,
    );
  }, 150_000);

  it('a plan every row of which an earlier run delivered, run again while the server is down: done, exit 0, shown as recorded', async () => {
    const dir = tempDir();
    const plan = join(dir, 'night.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-25,2\namazon-us-10,3\n');
    const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
    const configDir = tempDir();
    const first = await withServer(['--fulfil-after', '0'], (server) =>
      runCli(['order', 'place', '--plan', plan, '--json'], { baseUrl: server.url, env, configDir }).then((run) => ({
        run,
        baseUrl: server.url,
      })),
    );
    expect(first.run.code, first.run.stderr).toBe(0);
    const placed = (JSON.parse(first.run.stdout) as { order: { id: string } }[]).map((r) => r.order.id);
    expect(placed).toHaveLength(3);

    // The same server address, nothing listening now: the delivered rows are read from the local record.
    const again = await runCli(['order', 'place', '--plan', plan, '--json', '--retries', '0'], {
      baseUrl: first.baseUrl,
      env,
      configDir,
      timeoutMs: 120_000,
    });
    expect(again.code, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { already?: boolean; order?: { id: string }; error?: unknown }[];
    expect(rows.map((r) => r.order?.id)).toEqual(placed);
    expect(rows.every((r) => r.already === true && r.error === undefined)).toBe(true);
    // One warning for the whole run, not one per row.
    expect(again.stderr.match(/could not be read again/g)).toHaveLength(1);
    expect(again.stderr).toContain('the rows earlier runs delivered are shown as those runs recorded them');
  }, 150_000);
});
