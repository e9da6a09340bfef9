// Orders an earlier run left interrupted are named in the next run's log, whatever that run orders. A night's
// plan killed mid-run, followed by the next night's plan with a new --batch (new keys), said nothing of the
// orders the first one may have been charged for: only `order pending` showed them (a persona's cron walkthrough).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, configCopy, loggedIn, runCli, servedApi, tempDir, unstamped } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';
import { pendingNow } from '../helpers/pending.js';

const WARNING = /an order interrupted in an earlier run is still unfinished \(it may have been charged\)/;
const ANY_WARNING = /interrupted in (?:an )?earlier runs? (?:is|are) still unfinished/;

describe('orders left interrupted by an earlier run', () => {
  const served = servedApi(['--fulfil-after', '0'], { login: true });

  it('a single order killed, then another order: the second run names the first, with the command that finishes it', async () => {
    const configDir = configCopy(served.configDir);
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = await pendingNow(configDir);
    expect(left).toBeDefined();

    const other = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1'], { configDir });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toMatch(WARNING);
    expect(other.stderr).toContain('2 × amazon-us-10');
    expect(other.stderr).toContain(`giftcodes order resume ${left!.key}`);

    // With --json, an error is still the last line of stderr, whole, after the warning (docs/exit-codes.md): a
    // script reads it with tail -n 1 (a review's script parsed stderr whole and broke on the warning).
    const refused = await runCli(['order', 'place', '--product', 'no-such-product', '--quantity', '1', '--json'], {
      configDir,
    });
    expect(refused.code).toBe(4);
    const lines = refused.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(0, -1).join('\n')).toMatch(WARNING);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ error: { exitCode: 4 } });

    // The same order run again resumes it: nothing else is left, and nothing is said of it.
    const again = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('resuming the interrupted order');
    expect(again.stderr).not.toMatch(ANY_WARNING);
    expect(await pendingNow(configDir)).toHaveLength(0);
  });

  it("a plan killed one night, the next night's batch: its log names them; the killed night's batch run again does not", async () => {
    const configDir = configCopy(served.configDir);
    const plan = join(tempDir(), 'nightly.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,1\namazon-us-25,2\n');
    const night = (batch: string, env: NodeJS.ProcessEnv = {}) =>
      runCli(['order', 'place', '--plan', plan, '--batch', batch, '--concurrency', '1'], { configDir, env });

    const killed = await night('n1', { GIFTCODES_FAILPOINTS: 'order.accepted=kill' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // Every row's intent is written before the first is sent: both are left.
    expect(await pendingNow(configDir)).toHaveLength(2);

    // A batch a shell would split is named quoted, as it must be pasted (a review).
    const next = await night('n 2');
    expect(next.code, next.stderr).toBe(0);
    // Named with this run's config directory, as its errors' hints are (a cron job's is not the operator's).
    // The rows of tonight's plan that the killed night left are named as such, with their keys (not as two orders
    // somewhere): this night orders them anew beside those.
    const said = unstamped(next.stderr).replace(/\s+/g, ' ');
    expect(said).toContain(
      '2 rows of this plan were sent by another run (another plan or --batch) and never finished (they may have been charged)',
    );
    // Each named with the batch it ran as, and this run with its own.
    expect(said).toContain(', plan nightly.csv --batch n1');
    expect(said).toContain(
      `this run (nightly.csv --batch 'n 2') orders them anew beside those; finish those by running their plan as it ran there, or GIFTCODES_CONFIG_DIR=${configDir} giftcodes order resume --all (see GIFTCODES_CONFIG_DIR=${configDir} giftcodes order pending)`,
    );
    expect(said).not.toContain('2 orders interrupted in earlier runs');

    // The killed night's own batch finishes its row, and says nothing of it as left by another run.
    const rerun = await night('n1');
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).not.toMatch(ANY_WARNING);
    expect(await pendingNow(configDir)).toHaveLength(0);
  });

  const terminal = giftcodesTerminals();

  it('a live order retried by hand under another key: the order that may have been charged is named before the question', async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const killed = await runCli(
      ['order', 'place', '--env', 'live', '--yes', '--product', 'steam-us-20', '--quantity', '8'],
      {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      },
    );
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    // "To be safe", a new key: a second order beside the one left, asked about first, naming it (the warning came after
    // the answer, then only before the live question: adversarial reviews).
    const t = terminal(
      [
        'order',
        'place',
        '--env',
        'live',
        '--product',
        'steam-us-20',
        '--quantity',
        '8',
        '--idempotency-key',
        'restock-steam-8',
      ],
      configDir,
    );
    const asked = (await t.waitFor(/Place\s+a\s+second\s+order/)).replace(/\s+/g, ' ');
    const [left] = await pendingNow(configDir);
    expect(asked).toContain(
      `(key ${left!.key}) was placed (order ${left!.orderId}) and interrupted before it reached you`,
    );
    expect(asked).toContain(`giftcodes order resume ${left!.key}`);
    expect(asked).not.toContain('Place a LIVE order');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/)).toContain('[exit 130]');
    expect(await pendingNow(configDir)).toHaveLength(1);

    // A guided order (no --product, no --quantity): named before its first question, not after the order its own
    // confirmation placed (a review answered yes, then read that the order it meant to retry may have been charged).
    const guided = terminal(['order', 'place', '--env', 'live'], configDir);
    const first = await guided.waitFor(/Product \(type to search/);
    const said = first.search(WARNING);
    expect(said, first).toBeGreaterThanOrEqual(0);
    expect(said).toBeLessThan(first.search(/Product \(type to search/));
    guided.press('C-c');
    await guided.waitFor(/\[exit \d+\]/);
    expect(await pendingNow(configDir)).toHaveLength(1);
  });
});
