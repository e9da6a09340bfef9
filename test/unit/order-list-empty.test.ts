// order list over a config directory whose journal exists and holds no order yet: a support desk's own directory,
// where `order show` or `codes get` of an order placed elsewhere made the journal. It said "no orders in the local
// record match" with nothing asked to match, read as the order never having happened; it says the record is empty.
import { describe, expect, it } from 'vitest';
import type { ListOptions } from '../../src/commands/order/list.js';
import { unstamped } from '../helpers/e2e.js';
import { recordAt } from '../helpers/journal.js';
import { listed } from '../helpers/order-list.js';

const AT = '2026-01-01T00:00:00.000Z';

async function list(options: ListOptions, records: ReturnType<typeof recordAt>[]) {
  const { configDir, out, err } = await listed(options, records, { now: AT });
  return { configDir, out, err: unstamped(err) };
}

describe('order list of an empty record', () => {
  it('says no order was placed or tried with this config directory, not that none match', async () => {
    const empty = await list({}, []);
    expect(empty.out).toBe('');
    expect(empty.err).toBe(
      `no order record in ${empty.configDir} yet: no order was placed or tried with this config directory\n`,
    );
  });

  it('still says none match where the record holds orders the filters leave out', async () => {
    const filtered = await list({ product: 'steam' }, [recordAt('k', AT, { orderId: 'ord_k', status: 'completed' })]);
    expect(filtered.err).toBe('no orders in the local record match\n');
  });
});
