// A plan's rows as another API key of the same reseller made them (plan.ts resellerKeyRows): a key rotated in a
// profile after a killed night, and the same cron line (--yes) run again, ordered the charged row a second time, and
// the rows the night delivered too (an adversarial review). Matched to the rows here by key (the plan parsed under
// that key's family), so that the run refuses the unfinished ones and reads the delivered ones, as a single order does.
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/journal/history.js';
import { parsePlan, planFamily, resellerKeyRows, type ScopedRow } from '../../src/orders/plan.js';

const base = 'http://127.0.0.1:4010';
const scope: Scope = { baseUrl: base, environment: 'test', keyId: 'new', resellerId: 'rs_demo' };
const old: Scope = { baseUrl: base, environment: 'test', keyId: 'old', resellerId: 'rs_demo' };
const PLAN = '/plans/night.csv';
const bytes = Buffer.from('product,quantity,out\nsteam-us-20,2,s.csv\ngoogle-play-us-25,3\ngoogle-play-us-25,3\n');
const keyedUnder = (family: string, batch = 'd1') => parsePlan(bytes, PLAN, family, batch);
const rows = keyedUnder(planFamily(scope, PLAN, 'd1'));
const theirs = keyedUnder(planFamily(old, PLAN, 'd1'));
const plan = { path: PLAN, batch: 'd1', dir: '/plans' };

const item = (key: string, over: Partial<ScopedRow & { planDir: string }> = {}): ScopedRow & { planDir?: string } => ({
  key,
  productId: 'google-play-us-25',
  quantity: 3,
  profile: 'default',
  ...old,
  ...over,
});

describe('resellerKeyRows: this plan and batch as another key of the same reseller made its rows', () => {
  it("each matched to its own row by key, the second of two identical rows too, and a row's later key (-g2)", () => {
    const second = item(theirs[2]!.key);
    const later = item(`${theirs[0]!.key}-g2`, { productId: 'steam-us-20', quantity: 2 });
    const matched = resellerKeyRows([second, later], scope, rows, keyedUnder, plan);
    expect([...matched.entries()]).toEqual([
      [rows[2]!.key, second],
      [rows[0]!.key, later],
    ]);
  });

  it("another reseller's key, a key whose reseller is unknown, this very key, another API or environment: not matched", () => {
    const key = theirs[1]!.key;
    const others = [
      item(key, { resellerId: 'rs_other' }),
      item(key, { resellerId: undefined }),
      item(rows[1]!.key, { ...scope }),
      item(keyedUnder(planFamily({ ...old, baseUrl: 'https://api.example.test' }, PLAN, 'd1'))[1]!.key, {
        baseUrl: 'https://api.example.test',
      }),
      item(keyedUnder(planFamily({ ...old, environment: 'live' }, PLAN, 'd1'))[1]!.key, { environment: 'live' }),
    ];
    expect(resellerKeyRows(others, { ...scope }, rows, keyedUnder, plan).size).toBe(0);
    // A key of the same reseller whose reseller this run's key has no id for (logged in before it was kept): not matched.
    expect(resellerKeyRows([item(key)], { ...scope, resellerId: undefined }, rows, keyedUnder, plan).size).toBe(0);
  });

  it('another --batch, another plan file, a plan of this name in another directory: not matched', () => {
    const otherBatch = keyedUnder(planFamily(old, PLAN, 'd2'), 'd2');
    const otherFile = parsePlan(bytes, '/plans/weekly.csv', planFamily(old, '/plans/weekly.csv', 'd1'), 'd1');
    const items = [
      item(otherBatch[1]!.key),
      item(otherFile[1]!.key),
      item(theirs[1]!.key, { planDir: '/elsewhere' }),
      item('3f2c1d9e-5b1a-4c2e-9a7d-0e1f2a3b4c5d'),
    ];
    expect(resellerKeyRows(items, scope, rows, keyedUnder, plan).size).toBe(0);
    // One written before the plan's directory was kept is this plan's.
    expect(resellerKeyRows([item(theirs[1]!.key)], scope, rows, keyedUnder, plan).get(rows[1]!.key)).toBeDefined();
  });
});
