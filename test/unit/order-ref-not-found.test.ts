// The 404 of an order this machine recorded (src/orders/ref.ts recordedNotFound): the cause that fits, and where its
// codes went when this machine wrote them to a file (a person's day: codes get of an order a restarted server forgot
// said only "ask the provider", while order show listed the file).
import { describe, expect, it } from 'vitest';
import type { OrderRecord } from '../../src/journal/history.js';
import { recordedNotFound } from '../../src/orders/ref.js';

const record = (o: Partial<OrderRecord> = {}): OrderRecord =>
  ({
    key: 'k-1',
    orderId: 'ord_1',
    productId: 'amazon-us-10',
    quantity: 2,
    environment: 'test',
    profile: 'default',
    baseUrl: 'http://127.0.0.1:4010',
    createdAt: '2026-12-01T02:00:00.000Z',
    updatedAt: '2026-12-01T02:00:05.000Z',
    endedAt: '2026-12-01T02:00:06.000Z',
    outcome: 'delivered',
    ...o,
  }) as OrderRecord;

const hintOf = async (r: OrderRecord): Promise<string | undefined> =>
  (await recordedNotFound({ connection: () => Promise.reject(new Error('no key')) }, r, r.baseUrl, 'see it here')).hint;

describe('recordedNotFound', () => {
  it('names the file this machine wrote the codes to, and when', async () => {
    expect(await hintOf(record({ out: '/srv/codes/night.csv' }))).toMatch(
      /; see it here; its codes were written here to \/srv\/codes\/night\.csv at 2026-12-01T02:00:06\.000Z \(a copy of them, if that file is still there\)$/,
    );
    // Without an end, when it was last updated.
    expect(await hintOf(record({ out: '/srv/a.csv', endedAt: undefined }))).toContain(
      'written here to /srv/a.csv at 2026-12-01T02:00:05.000Z',
    );
  });

  it('not of codes printed, an order placed without a file, or one not delivered here', async () => {
    for (const r of [
      record({ out: '-' }),
      record({ out: undefined }),
      record({ out: '/srv/a.csv', outcome: 'abandoned' }),
      record({ out: '/srv/a.csv', outcome: 'failed' }),
    ])
      expect(await hintOf(r)).toMatch(/; see it here$/);
  });
});
