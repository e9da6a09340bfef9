// order list's OUTCOME column in a support agent's words. A record that ended without an order is "not placed":
// a walkthrough read "refused: network_error" (the server unreachable, nothing sent) as the API refusing it.
import { describe, expect, it } from 'vitest';
import { outcomeWords } from '../../src/commands/order/list.js';
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
    expect(outcomeWords(record({ outcome: 'failed' }))).toBe('order failed');
    expect(outcomeWords(record({ outcome: 'abandoned' }))).toBe('abandoned, not resumed');
    expect(outcomeWords(record({ outcome: 'pending' }))).toBe('unfinished: resume it');
  });
});
