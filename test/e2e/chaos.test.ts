// Exactly once under SIGKILL at random instants and at named failpoints, over every mode (place --json,
// --wait, --out, --out --force, resume <key>, resume --all [--json], watch --out, codes get --out): the
// server's ledger then holds exactly one order per round, each reached the user, and nothing is pending.
import { describe, expect, it } from 'vitest';
import { runChaos } from '../../scripts/chaos.mjs';
import { ledger, loggedIn, runCli, startServer } from '../helpers/e2e.js';

const ROUNDS = 50;

describe('chaos: random kills over every way an order reaches the user (scripts/chaos.mjs)', () => {
  it(`charges exactly once per round and loses nothing over ${ROUNDS} rounds`, { timeout: 300_000 }, async () => {
    const result = await runChaos({ rounds: ROUNDS, concurrency: 4 });
    console.log(`chaos: ${JSON.stringify(result)}`);
    expect(result.rounds).toBe(ROUNDS);
    expect(result.charges, `seed ${result.seed}`).toBe(ROUNDS);
    expect(result.double, `seed ${result.seed}`).toBe(0);
    expect(result.lost, `seed ${result.seed}`).toBe(0);
    expect(result.left, `seed ${result.seed}`).toBe(0);
    expect(Object.values(result.byMode).every((n) => n >= 5)).toBe(true);
    // Kills must land, or the journal was never put to the test.
    expect(result.kills).toBeGreaterThan(ROUNDS / 2);
  });
});

describe('overlapping cron jobs', () => {
  it('8 concurrent order place processes with the same product and quantity make 8 orders', async () => {
    const server = await startServer(['--hold', '300']);
    try {
      const configDir = await loggedIn(server);
      const runs = await Promise.all(
        Array.from({ length: 8 }, () => runCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '2', '--json'], { configDir })),
      );
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const ids = runs.map((run) => (JSON.parse(run.stdout) as { id: string }).id);
      expect(new Set(ids).size).toBe(8);
      const orders = (await ledger(server)).orders;
      expect(orders).toHaveLength(8);
      expect(new Set(orders.map((o) => o.order_id))).toEqual(new Set(ids));
      expect(JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});
