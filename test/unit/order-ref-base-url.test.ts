// A recorded order is read at the base URL its record names (src/orders/ref.ts), whatever --base-url says: a
// usability review found an explicit --base-url ignored without a word, and the hint of a record's server out of
// reach saying "check --base-url", which changes nothing for that order.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { orderRef } from '../../src/orders/ref.js';
import { capturedIo, freshJournal } from '../helpers/inprocess.js';
import { recordAt } from '../helpers/journal.js';

const record: OrderRecord = recordAt('k-1', '2026-11-29T00:00:00Z', {
  orderId: 'ord_31c0a1edfbd0',
  productId: 'p',
  quantity: 1,
  baseUrl: 'https://api.example',
});

function setup(current: { baseUrl: string; baseUrlGiven?: '--base-url' | 'GIFTCODES_BASE_URL' }) {
  const journal = freshJournal();
  journal.history.record(record);
  const { io, err } = capturedIo();
  const made: unknown[][] = [];
  const refDeps = {
    io,
    journal: () => Promise.resolve(journal),
    api: () => Promise.reject(new Error('not asked')),
    currentTarget: () => Promise.resolve({ profile: 'default', environment: 'test' as const, ...current }),
    connectionTo: (where: { baseUrl: string }) => Promise.resolve({ baseUrl: where.baseUrl, apiKey: 'sc_test_x' }),
    clientFor: (...args: unknown[]) => (made.push(args), Promise.resolve({} as ApiClient)),
  } as unknown as Parameters<typeof orderRef>[0];
  return { refDeps, err, made };
}

describe('a recorded order and a base URL given for the run', () => {
  it('--base-url or GIFTCODES_BASE_URL of another server: said once on stderr that the record’s is used, and why', async () => {
    for (const from of ['--base-url', 'GIFTCODES_BASE_URL'] as const) {
      const { refDeps, err } = setup({ baseUrl: 'https://staging.example', baseUrlGiven: from });
      await orderRef(refDeps, 'ord_31c0');
      const lines = err().trimEnd().split('\n');
      expect(lines, err()).toHaveLength(1);
      expect(lines[0]).toMatch(/ reading ord_31c0a1ed… at https:\/\/api\.example, where it was placed \(not [-\w]+\)$/);
      expect(lines[0]).toContain(`(not ${from})`);
    }
  });

  it('the same base URL given, or one from the profile: nothing more is said', async () => {
    const same = setup({ baseUrl: 'https://api.example', baseUrlGiven: '--base-url' });
    await orderRef(same.refDeps, 'ord_31c0');
    expect(same.err()).toBe('');
    const profile = setup({ baseUrl: 'https://staging.example' });
    await orderRef(profile.refDeps, 'ord_31c0');
    expect(profile.err()).not.toContain('(not ');
  });

  it("the client's hints name the record's base URL, never --base-url", async () => {
    const { refDeps, made } = setup({ baseUrl: 'https://api.example' });
    await orderRef(refDeps, 'ord_31c0');
    const [, , , , baseUrlFrom] = made[0]!;
    expect(baseUrlFrom).toBe(
      'the base URL order ord_31c0a1edfbd0 was placed at, https://api.example (from its record)',
    );
  });
});
