// Exactly once under SIGKILL at random instants: every round is killed and re-run until a run has printed
// its order; the server's ledger then holds exactly one order per round, and nothing is left pending.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledger, loggedIn, runCli, spawnCli, startServer, type TestServer } from '../helpers/e2e.js';

const ROUNDS = 50;
const PRODUCT = 'amazon-us-25';

/** The order a run printed, if its stdout holds the whole JSON document. */
function printedOrder(stdout: string): { id: string; quantity: number } | undefined {
  try {
    const order = JSON.parse(stdout) as { id?: unknown; quantity?: unknown };
    return typeof order.id === 'string' && typeof order.quantity === 'number' ? { id: order.id, quantity: order.quantity } : undefined;
  } catch {
    return undefined;
  }
}

describe('chaos: order place killed at random instants', () => {
  let server: TestServer;
  let configDir: string;
  beforeAll(async () => {
    // Commit-then-drop on a third of new orders and a held key make every phase of placement long enough to hit.
    server = await startServer(['--drop-after-commit', '0.3', '--hold', '150']);
    configDir = await loggedIn(server);
  });
  afterAll(() => server.stop());

  it(`charges exactly once per round over ${ROUNDS} rounds`, { timeout: 240_000 }, async () => {
    const printed = new Map<number, string>();
    let kills = 0;
    let resumes = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      // Each round orders a distinct quantity, so the ledger tells the rounds apart.
      const args = ['order', 'place', '--product', PRODUCT, '--quantity', String(round), '--json', '--retries', '8'];
      for (let attempt = 1; !printed.has(round); attempt++) {
        expect(attempt, `round ${round} never finished`).toBeLessThan(40);
        const { proc, result } = spawnCli(args, { configDir, timeoutMs: 60_000 });
        proc.stdin?.end();
        // Later attempts run longer before the kill, so every round ends.
        const killAfter = Math.random() * (150 + attempt * 120);
        const timer = setTimeout(() => {
          kills++;
          proc.kill('SIGKILL');
        }, killAfter);
        const run = await result;
        clearTimeout(timer);
        if (run.stderr.includes('resuming')) resumes++;
        const order = printedOrder(run.stdout);
        if (order) {
          expect(order.quantity).toBe(round);
          printed.set(round, order.id);
          if (run.signal !== null) {
            // Killed after printing: if that was before the intent was crossed out (the contract allows that
            // instant), `order pending` shows it, and running the same command again, as a user would,
            // prints the same order and charges nothing.
            const pending = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as { quantity: number }[];
            if (pending.some((intent) => intent.quantity === round)) {
              const again = await runCli(args, { configDir, timeoutMs: 60_000 });
              expect(again.code, again.stderr).toBe(0);
              expect(printedOrder(again.stdout)?.id).toBe(order.id);
            }
          }
        } else if (run.signal === null) {
          // A run that was not killed must have succeeded.
          expect(run.code, run.stderr).toBe(0);
        }
      }
    }

    const orders = (await ledger(server)).orders.filter((o) => o.product_id === PRODUCT);
    for (let round = 1; round <= ROUNDS; round++) {
      const charged = orders.filter((o) => o.quantity === round);
      expect(charged.map((o) => o.order_id), `round ${round}`).toEqual([printed.get(round)]);
    }
    expect(new Set(printed.values()).size).toBe(ROUNDS);
    const pending = await runCli(['order', 'pending', '--json'], { configDir });
    expect(JSON.parse(pending.stdout)).toEqual([]);
    expect(kills).toBeGreaterThan(ROUNDS / 2);
    // Some kills must land after the intent was journaled, or the journal was never put to the test.
    expect(resumes).toBeGreaterThan(0);
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
