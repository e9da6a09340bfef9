// order list --status takes what --help and docs/support-desk.md say it takes: an outcome, a server status
// (openapi.yaml's, docs/dialects.md's, or one the record holds) or a word of the OUTCOME column, whole or short. Any
// other value exited 0 with an empty list (a review: `--status bogus`), read by a script as "no such orders": it is
// refused before anything is read from the API (exit 2), naming what --status takes.
import { describe, expect, it } from 'vitest';
import { STATUS_VALUES, type ListOptions } from '../../src/commands/order/list.js';
import { recordAt } from '../helpers/journal.js';
import { listed } from '../helpers/order-list.js';

const AT = '2026-01-01T00:00:00.000Z';

/** order list's run over a record of `records`, with every way to the API failing the test. */
async function list(options: ListOptions, records = [recordAt('k', AT, { orderId: 'ord_k', status: 'pending' })]) {
  const { out, err } = await listed(options, records, { json: true, now: AT });
  return { rows: JSON.parse(out || '[]') as { key: string }[], err };
}

describe('order list --status', () => {
  it('a value it does not take: exit 2 before --refresh reads anything, naming what it takes', async () => {
    const refused = list({ status: 'bogus', refresh: true });
    await expect(refused).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('"bogus"'),
      hint: expect.stringMatching(
        /delivered, failed, refused, abandoned, pending.*processing, completed.*unfinished, not placed, placed, codes saved/,
      ),
    });
    // A word near none is not given a guess (docs/support-desk.md: `bogus` would have read "did you mean error?").
    await expect(refused).rejects.toMatchObject({ message: expect.not.stringContaining('did you mean') });
    // A typo is named with the nearest word.
    await expect(list({ status: 'delivred' })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringContaining('did you mean delivered?'),
    });
  });

  it('takes every documented word, in any case, with no order of it in the record', async () => {
    for (const status of ['delivered', 'Refused', 'unfinished', 'not placed', 'processing', 'COMPLETED', 'declined'])
      expect((await list({ status }, [])).rows, status).toEqual([]);
    for (const status of ['placed', 'saved', 'printed', 'codes saved to file', 'no funds', 'not placed: no stock'])
      expect((await list({ status }, [])).rows, status).toEqual([]);
    expect((await list({ status: 'pending' })).rows.map((r) => r.key)).toEqual(['k']);
  });

  it("takes a status or a code the record holds that no document names (a dialect's own)", async () => {
    const records = [
      recordAt('q', AT, { orderId: 'ord_q', status: 'QUEUED' }),
      recordAt('r', AT, { outcome: 'refused', error: { code: 'odd_code', message: 'x' } }),
    ];
    expect((await list({ status: 'queued' }, records)).rows.map((r) => r.key)).toEqual(['q']);
    expect((await list({ status: 'odd_code' }, records)).rows.map((r) => r.key)).toEqual(['r']);
    await expect(list({ status: 'queued' })).rejects.toMatchObject({ exitCode: 2 });
  });

  it('TAB offers the words of one word it takes (a shell splits the others), each of them taken', async () => {
    expect(STATUS_VALUES).toEqual([
      ...['delivered', 'failed', 'refused', 'abandoned', 'pending', 'unfinished'],
      ...['processing', 'completed', 'complete', 'cancelled', 'canceled', 'rejected', 'expired', 'refunded', 'error'],
      ...['declined', 'placed', 'saved', 'printed', 'unreachable'],
    ]);
    for (const status of STATUS_VALUES) expect((await list({ status }, [])).rows, status).toEqual([]);
  });
});
