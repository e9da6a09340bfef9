// A plan rehearsed under a test key, then run live: the live run is refused for the codes file the rehearsal wrote
// (orders/plan.ts outFileProblems), and its hint says so: the file holds the test rehearsal's codes, to move away or
// to name apart, never "another spelling of the server's address" to "run as it ran there" (under test again).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, ledger, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0']);

describe('a plan rehearsed under test, then run live', () => {
  for (const dryRun of [false, true])
    it(`${dryRun ? 'a live dry run' : 'the live run'} is refused for the rehearsal's codes file, and says it holds the test rehearsal's codes`, async () => {
      const { server } = served;
      const configDir = await loggedIn(server, BOTH_KEYS);
      const dir = tempDir();
      const plan = join(dir, `restock-${dryRun ? 'dry' : 'run'}.csv`);
      writeFileSync(plan, 'product,quantity,out\namazon-us-25,1,amazon-25.csv\n');
      const rehearsal = await runCli(['order', 'place', '--plan', plan, '--env', 'test', '--yes', '--json'], {
        configDir,
      });
      expect(rehearsal.code, rehearsal.stderr).toBe(0);
      const order = (JSON.parse(rehearsal.stdout) as { order: { id: string } }[])[0]!.order.id;
      const live = (await ledger(server)).orders.filter((o) => o.environment === 'live').length;
      const result = await runCli(
        ['order', 'place', '--plan', plan, '--env', 'live', '--yes', ...(dryRun ? ['--dry-run'] : [])],
        { configDir },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`holds the codes of order ${order}`);
      expect(result.stderr).toContain(
        `hint: that file holds the codes of the test rehearsal (order ${order}), not of a live order: move it away before the live run, or give the live run other file names ({batch} or the environment in the out column: amazon-25-live.csv); --force would overwrite those codes`,
      );
      expect(result.stderr).not.toContain('another spelling');
      expect((await ledger(server)).orders.filter((o) => o.environment === 'live')).toHaveLength(live);
    });
});
