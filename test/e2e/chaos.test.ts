// Exactly once under SIGKILL at random instants and at every named failpoint, over every mode (place --json,
// --wait, --out, --out --force, resume <key>, resume --all [--json], watch --out, codes get --out, plan rows;
// plans run under test then live, edited between runs, and under two profiles; profiles, products and folders
// whose names hold key-shaped text),
// counted from outside the journal's code: the server's ledger holds exactly one order per order asked for,
// each reached the user (its id on stdout, or its very codes in its file), no intent file is left in
// journal/, no codes in a hidden temporary file beside an --out, and each charged order has its delivered record
// in history/.
import { describe, expect, it } from 'vitest';
import { MODES, failed, runChaos } from '../../scripts/chaos.mjs';
import { ledger, loggedIn, runCli, withServer } from '../helpers/e2e.js';

const ROUNDS = 50;

describe('chaos: random kills over every way an order reaches the user (scripts/chaos.mjs)', () => {
  it(
    `charges exactly once per order and loses or leaves nothing over ${ROUNDS} rounds`,
    { timeout: 300_000 },
    async () => {
      const result = await runChaos({ rounds: ROUNDS, concurrency: 4 });
      console.log(`chaos: ${JSON.stringify(result)}`);
      const seed = `seed ${result.seed}`;
      expect(result.rounds).toBe(ROUNDS);
      // A plan round asks for three orders (its rows; a plan run twice, under test and live or under two
      // profiles, for six), every other round for one.
      const {
        plan,
        'plan edited': edited,
        'plan test+live': testLive,
        'plan two profiles': twoProfiles,
      } = result.byMode;
      expect(result.orders).toBe(ROUNDS + 2 * (plan! + edited!) + 5 * (testLive! + twoProfiles!));
      expect(result.charges, seed).toBe(result.orders);
      expect(result.double, seed).toBe(0);
      expect(result.lost, seed).toBe(0);
      expect(result.left, seed).toBe(0);
      expect(result.unrecorded, seed).toBe(0);
      expect(result.noCharge, seed).toBe(0);
      expect(result.stuck, seed).toBe(0);
      // No codes left in a hidden temporary file beside an --out once every order reached the user.
      expect(result.hidden, seed).toBe(0);
      expect(failed(result)).toBe(false);
      expect(Object.keys(result.byMode)).toEqual(MODES);
      expect(MODES).toEqual(
        expect.arrayContaining([
          'plan',
          'watch --out',
          'codes get --out',
          'plan test+live',
          'plan edited',
          'plan two profiles',
        ]),
      );
      expect(Object.values(result.byMode).every((n) => n >= 3)).toBe(true);
      // Kills must land, or the journal was never put to the test.
      expect(result.kills).toBeGreaterThan(ROUNDS / 2);
    },
  );

  it('a round fails on anything left, lost, doubled, unrecorded or never charged', () => {
    const clean = { lost: 0, double: 0, left: 0, unrecorded: 0, noCharge: 0, stuck: 0 };
    expect(failed(clean)).toBe(false);
    for (const name of Object.keys(clean)) expect(failed({ ...clean, [name]: 1 }), name).toBe(true);
  });
});

describe('overlapping cron jobs', () => {
  it('8 concurrent order place processes with the same product and quantity make 8 orders', async () => {
    await withServer(['--hold', '300'], async (server) => {
      const configDir = await loggedIn(server);
      const runs = await Promise.all(
        Array.from({ length: 8 }, () =>
          runCli(['order', 'place', '--product', 'steam-us-50', '--quantity', '2', '--json'], { configDir }),
        ),
      );
      for (const run of runs) expect(run.code, run.stderr).toBe(0);
      const ids = runs.map((run) => (JSON.parse(run.stdout) as { id: string }).id);
      expect(new Set(ids).size).toBe(8);
      const orders = (await ledger(server)).orders;
      expect(orders).toHaveLength(8);
      expect(new Set(orders.map((o) => o.order_id))).toEqual(new Set(ids));
      expect(JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout)).toEqual([]);
    });
  });
});
