// order show's `here` for an order whose run ended before it was finished here. Once the order has ended on the
// server, what is left is this machine's part: an `order place --out` interrupted while writing the codes of a
// completed order read "unfinished: its run ended before the order did" under `status completed`.
import { describe, expect, it } from 'vitest';
import { unfinishedHere } from '../../src/commands/order/show.js';

const WAY = 'finish it with: giftcodes order resume k1';

describe('unfinishedHere', () => {
  it('a completed order whose codes were not written here: completed on the server, its file, the way to finish', () => {
    expect(unfinishedHere('/srv/partial.xlsx', 'completed', WAY)).toBe(
      'completed on the server; its codes were not written here yet (/srv/partial.xlsx); finish it with: giftcodes order resume k1',
    );
    expect(unfinishedHere('/srv/partial.xlsx', 'COMPLETE', WAY)).toMatch(/^completed on the server; /);
    expect(unfinishedHere(undefined, 'completed', WAY)).toBe(
      'completed on the server; its run here ended before recording it; finish it with: giftcodes order resume k1',
    );
  });

  it('a failed order: failed on the server, its ending not recorded here', () => {
    for (const status of ['failed', 'DECLINED'])
      expect(unfinishedHere('/srv/a.csv', status, WAY)).toBe(
        'failed on the server; its run here ended before recording it; finish it with: giftcodes order resume k1',
      );
  });

  it('an order still in progress, or of no status read: its run ended before the order did, as before', () => {
    for (const status of ['pending', 'processing', undefined]) {
      expect(unfinishedHere('/srv/a.csv', status, WAY)).toBe(
        'unfinished: its run ended before the order did (its codes go to /srv/a.csv); finish it with: giftcodes order resume k1',
      );
      expect(unfinishedHere(undefined, status, WAY)).toBe(
        'unfinished: its run ended before the order did; finish it with: giftcodes order resume k1',
      );
    }
  });
});
