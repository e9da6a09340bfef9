// Review F5: a terminal closed or an SSH session dropped sends SIGHUP. Unhandled, the run died with exit 129, no
// error line, and a plan's rows readied but never sent were left "may have been charged". It is an interruption as
// SIGINT and SIGTERM are (exit 130, the journal written back as it is). Node resets an ignored SIGHUP to its default
// at start, so `nohup` never kept a run alive: docs/exit-codes.md says what does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { heldRequests, loggedIn, releaseHeld, servedApi, spawnCli, tempDir } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const served = servedApi(['--admin', '--hold', '60000']);

describe('SIGHUP', () => {
  it('ends a plan as SIGTERM does: exit 130, an error line, the rows never sent left never sent', async () => {
    const { server, url: baseUrl } = served;
    const configDir = await loggedIn(server);
    const plan = join(tempDir(), 'h.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-20,1\nsteam-us-20,2\nsteam-us-20,3\n');
    const run = spawnCli(['order', 'place', '--plan', plan, '--concurrency', '1'], { configDir, baseUrl });
    run.proc.stdin?.end();
    await heldRequests(server);
    run.proc.kill('SIGHUP');
    const ended = await run.result;
    await releaseHeld(server);
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stderr).toContain(
      'error: interrupted by SIGHUP: the plan stopped, and 1 row of it may have been charged',
    );
    // The row whose request was out may have been charged; the one readied behind it was written back never sent.
    const pending = (await pendingNow(configDir)) as unknown as { phase: string; quantity: number }[];
    expect(pending.map((p) => [p.quantity, p.phase]).sort()).toEqual([
      [1, 'sending'],
      [2, 'prepared'],
    ]);
  }, 60_000);
});
