// order list's table at 80 columns (support staff read it in a terminal of that width): live and test orders are
// told apart. ENV gave way before AMOUNT, and a review found six live and test orders listed without it.
import { describe, expect, it } from 'vitest';
import { listColumns } from '../../src/commands/order/list.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { spokenMoney } from '../../src/money.js';
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

  // A person's day: QTY read 20000 where order show and every summary line say 20,000.
  it("groups a quantity's thousands, as every other line says it", () => {
    const lines = renderTable(terminal(80), [{ ...record(1, 'test'), quantity: 20_000 }], listColumns(amount)).split(
      '\n',
    );
    expect(lines[1]).toMatch(/ amazon-us-10 +20,000 +200000\.00 USD /);
  });

  // A person's day: `order list --refresh` at 80 columns said "order placed" of an order completed since, and "left
  // out at 80 columns: STATUS".
  it("keeps the server's last status before ENV and OUTCOME's whole words", () => {
    const rows = [
      { ...record(1, 'test'), out: undefined, productId: 'netflix-us-30', quantity: 4, status: 'completed' },
      { ...record(2, 'test'), quantity: 2, status: 'completed' },
    ] as OrderRecord[];
    const grouped = (r: OrderRecord) => `${(30 * r.quantity).toFixed(2)} USD`;
    const lines = renderTable(terminal(80), rows, listColumns(grouped)).split('\n');
    expect(lines[0]).toMatch(/^ORDER +PRODUCT +QTY +AMOUNT +STATUS +OUTCOME$/);
    expect(lines[1]).toMatch(/ netflix-us-30 +4 +120\.00 USD +completed +placed$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('a grouped amount stays beside the outcome, which takes its shorter words before AMOUNT gives way', () => {
    const rows = [
      { ...record(1, 'test'), quantity: 12345, amount: { amount: 123_450_000, currency: 'USD' } },
      { ...record(2, 'test'), productId: 'tesco-uk-20', quantity: 3, amount: { amount: 6000, currency: 'GBP' } },
    ] as OrderRecord[];
    const grouped = (r: OrderRecord) => (r.amount ? spokenMoney(r.amount.amount, r.amount.currency) : '');
    const lines = renderTable(terminal(80), rows, listColumns(grouped)).split('\n');
    expect(lines[0]).toMatch(/^ORDER +PRODUCT +QTY +AMOUNT +OUTCOME$/);
    expect(lines[1]).toMatch(/ amazon-us-10 +12,345 +1,234,500\.00 USD +(codes saved|saved)$/);
    expect(lines[2]).toMatch(/ tesco-uk-20 +3 +60\.00 GBP +(codes saved|saved)$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // Wide enough, the whole words.
    expect(renderTable(terminal(120), rows, listColumns(grouped))).toContain('codes saved to file');
  });

  it('an order not placed says why in words, not a code cut mid-word, beside its whole key', () => {
    const refused = {
      ...record(0, 'live'),
      key: '3f0e2c1a-7b9d-4e2f-8a6b-1c2d3e4f5a6b',
      orderId: undefined,
      quantity: 180000,
      outcome: 'refused',
      status: undefined,
      out: undefined,
      error: { code: 'insufficient_funds', message: 'the order costs 18,000,000.00 USD' },
      amount: { amount: 1_800_000_000, currency: 'USD' },
    } as unknown as OrderRecord;
    const rows = [
      { ...record(1, 'live'), out: undefined },
      refused,
      { ...refused, error: { code: 'odd_code', message: 'x' } },
    ];
    const grouped = (r: OrderRecord) => (r.amount ? spokenMoney(r.amount.amount, r.amount.currency) : '');
    const lines = renderTable(terminal(80), rows, listColumns(grouped)).split('\n');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.join('\n')).not.toContain('…');
    // The server's last status stays, OUTCOME in its shorter word beside it (a person's day read only "order placed" of
    // an order completed since).
    expect(lines[1]).toMatch(/ completed +placed\b/);
    expect(lines[2]).toMatch(/^3f0e2c1a-7b9d-4e2f-8a6b-1c2d3e4f5a6b +amazon-us-10 +180,000 +no funds\b/);
    // A code without words of its own is given whole.
    expect(lines[3]).toMatch(/ 180,000 +odd_code\b/);
    // Wide enough, the code in full.
    expect(renderTable(terminal(140), rows, listColumns(grouped))).toContain('not placed: insufficient_funds');
  });
});

describe('order list of more than one profile', () => {
  // A person's-day review listed orders of three profiles (two resellers, two servers) with nothing saying whose.
  it('has a PROFILE column, kept at 80 columns; of one profile, none', () => {
    const rows = [0, 1, 2].map((i) => ({ ...record(i, 'test'), profile: i === 1 ? 'small' : 'default' }));
    const lines = renderTable(terminal(80), rows, listColumns(amount, rows)).split('\n');
    expect(lines[0]).toMatch(/\bPROFILE\b/);
    const at = lines[0]!.indexOf('PROFILE');
    rows.forEach((row, i) => expect(lines[i + 1]!.slice(at).startsWith(row.profile)).toBe(true));
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const one = rows.map((r) => ({ ...r, profile: 'default' }));
    expect(renderTable(terminal(120), one, listColumns(amount, one))).not.toMatch(/PROFILE/);
  });
});

// A support review at 80 columns: two profiles' live and test orders, one abandoned before it got an id (named by its
// whole key, 36 characters) and one unfinished, read `abando…` and `unfini…` in OUTCOME (neither a word nor taken by
// --status).
describe('order list at 80 columns with every column it must keep', () => {
  it('shortens the widest ref to a prefix that pastes back before it cuts an OUTCOME word', () => {
    const rows = [
      {
        ...record(1, 'live'),
        profile: 'default',
        productId: 'google-play-us-25',
        outcome: 'abandoned',
        orderId: undefined,
        key: '9e88624d-1c2b-4e5f-8a6b-1c2d3e4f5a6b',
      },
      { ...record(2, 'test'), profile: 'small', productId: 'zalando-de-25', outcome: 'pending', quantity: 1000 },
      { ...record(3, 'live'), profile: 'small' },
    ] as OrderRecord[];
    const lines = renderTable(terminal(80), rows, listColumns(amount, rows)).split('\n');
    expect(lines[0]).toMatch(/^ORDER +PRODUCT +QTY +(AMOUNT +)?OUTCOME +ENV +PROFILE$/);
    expect(lines.join('\n')).not.toMatch(/abando…|unfini…/);
    expect(lines[1]).toMatch(/ abandoned +live +default$/);
    expect(lines[2]).toMatch(/ unfinished +test +small$/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // Each ref shown is its order's id or key, or a prefix of it with an ellipsis (order show takes a unique prefix).
    rows.forEach((row, i) => {
      const shown = lines[i + 1]!.split(/\s+/)[0]!;
      expect((row.orderId ?? row.key).startsWith(shown.replace(/…$/, ''))).toBe(true);
    });
  });
});
