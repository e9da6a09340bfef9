// A plan killed (SIGKILL) at every durable step its rows pass, then the natural recovery: the same plan again,
// then `order pending`. Issue 16 made a plan's rows overlap their journal writes (a row armed while another's
// POST is out, the summary's rows recorded and removed in two batched steps): whatever instant the kill
// hits, every row is one order on the server's ledger, the re-run reports each, and nothing stays pending.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Failpoint } from '../../src/failpoints.js';
import { journalFiles, ledger, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const POINTS: Failpoint[] = [
  'journal.locked',
  'request.sent',
  'order.accepted',
  'codes.tmp-written',
  'codes.renamed',
  'delivered',
  'resolved',
];

describe('a plan killed at every durable step, then run again', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it.each(POINTS)('killed at %s: one order per row, each reported, nothing pending', async (point) => {
    const configDir = await loggedIn(served.server);
    const dir = tempDir();
    const plan = join(dir, `plan-${randomUUID()}.csv`);
    // Six rows, one with a codes file (the codes.* steps), at two at a time: rows are armed ahead and overlap.
    writeFileSync(
      plan,
      `# ${point}\nproduct,quantity,out\n${[1, 2, 3, 4, 5].map((q) => `amazon-us-10,${q}`).join('\n')}\nsteam-us-20,2,codes.csv\n`,
    );
    const killed = await runCli(
      ['order', 'place', '--plan', plan, '--json', '--concurrency', '2', '--interval', '0.05'],
      { configDir, env: { GIFTCODES_FAILPOINTS: `${point}=kill` } },
    );
    expect(killed.signal, `${killed.code} ${killed.stderr}`).toBe('SIGKILL');

    const again = await runCli(
      ['order', 'place', '--plan', plan, '--json', '--concurrency', '2', '--interval', '0.05'],
      { configDir },
    );
    expect(again.code, again.stderr).toBe(0);
    const rows = JSON.parse(again.stdout) as { key: string; quantity: number; order?: { id: string } }[];
    expect(rows).toHaveLength(6);
    const prefix = rows[0]!.key.slice(0, 17);
    const orders = (await ledger(served.server)).orders.filter((o) => String(o.idempotency_key).startsWith(prefix));
    // One charge per row: never a second order for a key, and the re-run reports the very orders placed.
    expect(orders).toHaveLength(6);
    expect(new Set(orders.map((o) => o.idempotency_key)).size).toBe(6);
    for (const row of rows) expect(orders.find((o) => o.idempotency_key === row.key)?.order_id).toBe(row.order?.id);
    expect(readFileSync(join(dir, 'codes.csv'), 'utf8').trimEnd().split('\n')).toHaveLength(3);

    const pending = await runCli(['order', 'pending', '--json'], { configDir });
    expect(pending.code, pending.stderr).toBe(0);
    expect(JSON.parse(pending.stdout)).toEqual([]);
    // No intent is left, in a file or a log (a writer killed mid-write may leave its hidden temporary file, never read).
    expect(journalFiles(configDir)).toEqual([]);
  });
});
