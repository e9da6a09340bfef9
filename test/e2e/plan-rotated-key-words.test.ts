// An adversarial review of the words of the plan's rule for another API key of the same reseller: a row whose order
// the old key's run placed is shown (table and --json) under the key it was placed with, not this key's row key, under
// which no order exists (`order show` of it: a 404); a row the old key's run placed and then abandoned (its codes
// never written) is said as abandoned, not "delivered … read as delivered"; and while the old key's run is still
// placing a row, the second run says so with its pid, not "never finished" with a resume or abandon a live hold refuses.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chargesFor,
  heldRequests,
  journalIntents,
  loggedIn,
  releaseHeld,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  withServer,
} from '../helpers/e2e.js';
import { rotate, twoKeySeed } from '../helpers/rotated-key.js';

const served = servedApi(() => ['--seed', twoKeySeed(), '--fulfil-after', '0']);

describe('the words of a row another key of the reseller placed', () => {
  it('names the key the order was placed with, and an abandoned row as abandoned, not delivered', async () => {
    const configDir = await loggedIn(served.server);
    const plan = join(tempDir(), 'night.csv');
    writeFileSync(plan, 'product,quantity,out\napple-us-50,5,q-{batch}.csv\n');
    const night = ['order', 'place', '--plan', plan, '--batch', 'n1', '--yes'];
    const killed = await runCli(night, { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const [left] = journalIntents(configDir);
    const abandoned = await runCli(['order', 'abandon', left!.key], { configDir });
    expect(abandoned.code, abandoned.stderr).toBe(0);
    await rotate(configDir);

    const again = await runCli([...night, '--json'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const said = again.stderr.replace(/\s+/g, ' ');
    expect(said).not.toMatch(/delivered 1 row with another API key .* read as delivered/);
    expect(said).toContain(
      'placed 1 row with another API key of the same reseller (rs_demo), its order then abandoned here before its codes were written (placed and charged, not delivered), so it is not ordered again',
    );
    const [row] = JSON.parse(again.stdout) as { key: string; already?: boolean }[];
    expect(row).toMatchObject({ key: left!.key, already: true });
    expect(await chargesFor(served.server, 'apple-us-50', 5)).toHaveLength(1);
  }, 120_000);

  it('a row the old key is placing right now: said with its pid, no resume or abandon offered, nothing sent', async () => {
    await withServer(['--seed', twoKeySeed(), '--hold', '60000', '--fulfil-after', '0'], async (server) => {
      const configDir = await loggedIn(server);
      const plan = join(tempDir(), 'night.csv');
      writeFileSync(plan, 'product,quantity\nsteam-us-20,3\n');
      const night = ['order', 'place', '--plan', plan, '--batch', 'l1', '--yes'];
      const first = spawnCli(night, { configDir });
      first.proc.stdin?.end();
      await heldRequests(server);
      await rotate(configDir);

      const again = await runCli(night, { configDir });
      expect(again.code, again.stderr).toBe(2);
      const said = again.stderr.replace(/\s+/g, ' ');
      expect(said).toContain(
        `has 1 row being placed right now with another API key of the same reseller (rs_demo) in profile "default", by pid ${first.proc.pid}`,
      );
      expect(said).not.toContain('never finished');
      expect(said).not.toContain('order resume');
      expect(said).not.toContain('order abandon');
      await releaseHeld(server);
      expect((await first.result).code).toBe(0);
      expect(await chargesFor(server, 'steam-us-20', 3)).toHaveLength(1);
    });
  }, 120_000);
});
