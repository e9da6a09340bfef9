// order list's table at 80 columns (support staff read it in a terminal of that width): live and test orders are
// told apart. ENV gave way before AMOUNT, and a review found six live and test orders listed without it.
import { describe, expect, it } from 'vitest';
import { listColumns } from '../../src/commands/order/list.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { renderTable } from '../../src/output/table.js';
import { terminalIo as terminal } from '../helpers/inprocess.js';

function record(i: number, environment: 'live' | 'test'): OrderRecord {
  return {
    key: `plan-${'e392c912162627605ac6cea6'.slice(i)}${i}-r${i + 2}`,
    orderId: `ord_${String(i).repeat(24).slice(0, 24)}`,
    productId: 'amazon-us-10',
    quantity: i + 1,
    environment,
    status: 'completed',
    outcome: 'delivered',
    out: { path: `restock-${i}.csv` },
    createdAt: '2026-11-30T08:59:24.638Z',
  } as unknown as OrderRecord;
}

const amount = (r: OrderRecord) => `${(10 * r.quantity).toFixed(2)} USD`;

describe('order list at 80 columns', () => {
  it('keeps ENV while live and test orders are listed together, and every line fits', () => {
    const rows = [0, 1, 2, 3, 4, 5].map((i) => record(i, i % 3 === 0 ? 'live' : 'test'));
    const lines = renderTable(terminal(80), rows, listColumns(amount)).split('\n');
    // Narrow amounts: AMOUNT fits beside OUTCOME, but not ENV too (the review's table).
    expect(lines[0]).toMatch(/\bENV\b/);
    const envAt = lines[0]!.indexOf('ENV');
    rows.forEach((row, i) => {
      expect(lines[i + 1]!.slice(envAt).startsWith(row.environment)).toBe(true);
      expect(lines[i + 1]).toContain(row.orderId!);
    });
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('where every order is of one environment, ENV may give way and is said once under the table', () => {
    const rows = [0, 1, 2, 3, 4, 5].map((i) => record(i, 'live'));
    const text = renderTable(terminal(80), rows, listColumns(amount));
    const lines = text.split('\n');
    if (!/\bENV\b/.test(lines[0]!)) expect(lines).toContain('env of every row: live');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });
});
