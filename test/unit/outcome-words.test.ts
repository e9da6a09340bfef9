// order list's OUTCOME column in a support agent's words. A record that ended without an order is "not placed":
// a walkthrough read "refused: network_error" (the server unreachable, nothing sent) as the API refusing it.
import { describe, expect, it } from 'vitest';
import { outcomeShort, outcomeWords } from '../../src/commands/order/list.js';
import type { OrderRecord } from '../../src/journal/history.js';

const record = (r: Partial<OrderRecord>): OrderRecord => ({ ...(r as OrderRecord) });

describe('outcomeWords', () => {
  it('an order that ended without being placed says so, and why, whatever the cause', () => {
    expect(outcomeWords(record({ outcome: 'refused', error: { code: 'network_error', message: 'x' } }))).toBe(
      'not placed: network_error',
    );
    expect(outcomeWords(record({ outcome: 'refused', error: { code: 'insufficient_funds', message: 'x' } }))).toBe(
      'not placed: insufficient_funds',
    );
    expect(outcomeWords(record({ outcome: 'refused' }))).toBe('not placed');
  });

  it('the other outcomes', () => {
    expect(outcomeWords(record({ outcome: 'delivered', out: { path: 'a.csv' } as never }))).toBe('codes saved to file');
    expect(outcomeWords(record({ outcome: 'delivered' }))).toBe('order placed');
    // Codes that went to standard output (codes get of an interrupted order) were printed, not saved to a file.
    expect(outcomeWords(record({ outcome: 'delivered', out: '-' }))).toBe('codes printed');
    expect(outcomeShort(record({ outcome: 'delivered', out: '-' }))).toEqual(['printed']);
    expect(
      outcomeShort(record({ outcome: 'refused', error: { code: 'order_placed_elsewhere', message: 'x' } })),
    ).toEqual(['not placed: placed elsewhere', 'placed elsewhere']);
    expect(outcomeWords(record({ outcome: 'failed' }))).toBe('order failed');
    expect(outcomeWords(record({ outcome: 'abandoned' }))).toBe('abandoned, not resumed');
    expect(outcomeWords(record({ outcome: 'pending' }))).toBe('unfinished: resume it');
  });

  it('shorter, for a narrow OUTCOME: why an order was not placed in a word, the other outcomes as --status names them', () => {
    const refused = (code: string) => outcomeShort(record({ outcome: 'refused', error: { code, message: 'x' } }));
    expect(refused('insufficient_funds')).toEqual(['not placed: no funds', 'no funds']);
    expect(refused('insufficient_supply')).toEqual(['not placed: no stock', 'no stock']);
    expect(refused('network_error')).toEqual(['not placed: unreachable', 'unreachable']);
    expect(refused('some_new_code')).toEqual(['some_new_code']);
    expect(outcomeShort(record({ outcome: 'refused' }))).toEqual([]);
    expect(outcomeShort(record({ outcome: 'delivered', out: { path: 'a.csv' } as never }))).toEqual([
      'codes saved',
      'saved',
    ]);
    expect(outcomeShort(record({ outcome: 'delivered' }))).toEqual(['placed']);
    expect(outcomeShort(record({ outcome: 'failed' }))).toEqual(['failed']);
    expect(outcomeShort(record({ outcome: 'abandoned' }))).toEqual(['abandoned']);
    expect(outcomeShort(record({ outcome: 'pending' }))).toEqual(['unfinished']);
  });
});

describe('order list --status takes the words the table shows', () => {
  it('"no funds", "placed", "saved", "codes printed": each finds the rows it words so, and only those', async () => {
    const { filterRecords, unknownStatus } = await import('../../src/orders/history-query.js');
    const at = '2026-01-01T00:00:00.000Z';
    const base = {
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'default',
      baseUrl: 'u',
      createdAt: at,
      updatedAt: at,
    };
    const rows: OrderRecord[] = [
      { ...base, key: 'funds', outcome: 'refused', error: { code: 'insufficient_funds', message: 'x' } },
      { ...base, key: 'stock', outcome: 'refused', error: { code: 'insufficient_supply', message: 'x' } },
      { ...base, key: 'placed', outcome: 'delivered' },
      { ...base, key: 'saved', outcome: 'delivered', out: '/srv/a.csv' },
      { ...base, key: 'printed', outcome: 'delivered', out: '-' },
    ] as OrderRecord[];
    const words = (r: OrderRecord): readonly string[] => [outcomeWords(r), ...outcomeShort(r)];
    const keys = (status: string) => filterRecords(rows, { status, words }).map((r) => r.key);
    expect(keys('no funds')).toEqual(['funds']);
    expect(keys('NOT PLACED: NO STOCK')).toEqual(['stock']);
    expect(keys('placed')).toEqual(['placed']);
    expect(keys('order placed')).toEqual(['placed']);
    expect(keys('saved')).toEqual(['saved']);
    expect(keys('codes printed')).toEqual(['printed']);
    // The outcome words as before: delivered is every delivered one, "not placed" every refused one.
    expect(keys('delivered')).toEqual(['placed', 'saved', 'printed']);
    expect(keys('not placed')).toEqual(['funds', 'stock']);
    expect(unknownStatus(rows, 'no funds', words, { short: [], whole: [] })).toBeUndefined();
    expect(unknownStatus(rows, 'no fundz', words, { short: [], whole: [] })?.message).toBe(
      '--status "no fundz" is not an outcome, a server status or a word of the OUTCOME column: did you mean no funds?',
    );
  });
});
