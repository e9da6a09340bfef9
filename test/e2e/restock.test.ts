// The cron restock, killed at random instants: `order place --out f.csv --yes` re-run until it exits 0
// (or 2, because f.csv already exists) leaves one charged order and a complete f.csv in every round.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledger, runCli, servedApi, spawnCli, tempDir, seedFile } from '../helpers/e2e.js';
import { registerSecret } from '../helpers/leaks.js';

// Scaled in `npm test` (GIFTCODES_FUZZ_SCALE=0.3, as the fuzz suites: 8 rounds, the floor); 20 when this file runs alone.
const ROUNDS = Math.max(8, Math.round(20 * Math.min(1, Number(process.env.GIFTCODES_FUZZ_SCALE ?? '1') || 1)));
const QUANTITY = 100;
const RESTOCK_TEST_KEY = 'sc_test_restock_5b8e2f7a1c4d9e06';
const RESTOCK_LIVE_KEY = 'sc_live_restock_8d3a6c1f9b2e7a45';
registerSecret(RESTOCK_TEST_KEY);
registerSecret(RESTOCK_LIVE_KEY);

describe('restock chaos: order place --out killed at random instants', () => {
  const served = servedApi(() => {
    // A wallet deep enough for every round's live order.
    const seed = seedFile({
      resellers: [
        {
          id: 'rs_restock',
          keys: { test: [RESTOCK_TEST_KEY], live: [RESTOCK_LIVE_KEY] },
          wallet: { USD: 100_000_000 },
          supply: {},
        },
      ],
      products: [
        { id: 'amazon-us-10', name: 'Amazon $10', brand: 'Amazon', price: 1000, currency: 'USD', supply: 1_000_000 },
        { id: 'steam-us-20', name: 'Steam $20', brand: 'Steam', price: 2000, currency: 'USD', supply: 1_000_000 },
      ],
    });
    return ['--seed', seed, '--drop-after-commit', '0.3', '--hold', '100', '--fulfil-after', '300'];
  });

  it(`one charge and a complete file in each of ${ROUNDS} rounds`, { timeout: 300_000 }, async () => {
    // A live key, as a real restock uses: --yes answers the confirmation.
    const { server } = served;
    const env = { GIFTCODES_API_KEY: RESTOCK_LIVE_KEY };
    const configDir = tempDir();
    const files: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const dir = tempDir('giftcodes-restock-');
      const file = join(dir, 'f.csv');
      const product = round % 2 === 0 ? 'amazon-us-10' : 'steam-us-20';
      const args = [
        'order',
        'place',
        '--product',
        product,
        '--quantity',
        String(QUANTITY),
        '--out',
        file,
        '--yes',
        '--interval',
        '0.1',
      ];
      let finished = false;
      for (let attempt = 1; !finished; attempt++) {
        expect(attempt, `round ${round} never finished`).toBeLessThan(40);
        const { proc, result } = spawnCli(args, { configDir, baseUrl: server.url, env, timeoutMs: 120_000 });
        proc.stdin?.end();
        const timer = setTimeout(() => proc.kill('SIGKILL'), Math.random() * (300 + attempt * 250));
        const run = await result;
        clearTimeout(timer);
        if (run.signal !== null) continue;
        // Not killed: it finished, or refused because an earlier (killed) run had already written the file.
        expect([0, 2], run.stderr).toContain(run.code);
        if (run.code === 2) expect(run.stderr).toMatch(/exists/);
        finished = true;
      }
      files.push(file);
      // The target is either complete or absent, never partial: it must be there now.
      expect(existsSync(file), `round ${round}: ${file}`).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines[0]!.split(',')[0]).toBe('order_id');
      expect(lines).toHaveLength(QUANTITY + 1);
      // No stray temporary file of a finished run is left beside it.
      expect(readdirSync(dir).filter((name) => name !== 'f.csv' && !name.endsWith('.tmp'))).toEqual([]);
    }
    const book = await ledger(server);
    const orders = book.orders.filter((o) => o.environment === 'live');
    expect(orders).toHaveLength(ROUNDS);
    // The wallet was debited exactly once per order: half the rounds at $10, half at $20, 100 units each.
    const wallets = book.wallets as Record<string, Record<string, number>>;
    expect(wallets.rs_restock?.USD).toBe(100_000_000 - (ROUNDS / 2) * QUANTITY * (1000 + 2000));
    // Each file holds the codes of its own order: ROUNDS different orders.
    const orderIds = files.map((file) => readFileSync(file, 'utf8').split('\n')[1]!.split(',')[0]);
    expect(new Set(orderIds).size).toBe(ROUNDS);
    expect(new Set(orderIds)).toEqual(new Set(orders.map((o) => o.order_id)));
    const pending = await runCli(['order', 'pending', '--json'], { configDir, baseUrl: server.url, env });
    expect(pending.code).toBe(0);
    // A run killed between writing its file and crossing out its intent is settled, not resumed twice.
    expect(JSON.parse(pending.stdout)).toEqual([]);
  });
});
