// Where single orders delivered their codes within the day (history.ts DELIVERED_TO): what `order place` reads at a
// terminal when its --out is not there (recover.ts deliveredToGone), one small file instead of every record.
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codesFileNow, History } from '../../src/journal/history.js';
import { recordAt } from '../helpers/journal.js';

const scope = { keyId: 'k1' };
const now = new Date().toISOString();

function history(): History {
  return new History(join(mkdtempSync(join(tmpdir(), 'delivered-to-')), 'history'));
}

describe('History.lastDeliveredTo', () => {
  it("names the single order last delivered to a file, by the file's resolved path, as its record is now", async () => {
    const h = history();
    await h.recordAll([recordAt('a', now, { ...scope, orderId: 'ord_a', out: '/srv/codes.csv' })]);
    await h.recordAll([recordAt('b', now, { ...scope, orderId: 'ord_b', out: '/srv/other.csv' })]);
    expect(h.lastDeliveredTo('/srv/./codes.csv')).toMatchObject({ key: 'a', orderId: 'ord_a' });
    expect(h.lastDeliveredTo('/srv/other.csv')?.key).toBe('b');
    expect(h.lastDeliveredTo('/srv/none.csv')).toBeUndefined();
    // A later order to the same file is the one named.
    await h.recordAll([recordAt('c', now, { ...scope, orderId: 'ord_c', out: '/srv/codes.csv' })]);
    expect(h.lastDeliveredTo('/srv/codes.csv')?.key).toBe('c');
    // The same order's codes written again elsewhere (codes get --out): named by its new file, not its old one.
    await h.recordAll([recordAt('c', now, { ...scope, orderId: 'ord_c', out: '/srv/moved.csv' })]);
    expect(h.lastDeliveredTo('/srv/moved.csv')?.key).toBe('c');
    expect(h.lastDeliveredTo('/srv/codes.csv')?.key).toBe('a');
  });

  it('a record written again (a status refreshed) keeps its place; an order of days ago is not noted', async () => {
    const h = history();
    await h.recordAll([recordAt('a', now, { ...scope, orderId: 'ord_a', out: '/srv/codes.csv' })]);
    await h.recordAll([recordAt('b', now, { ...scope, orderId: 'ord_b', out: '/srv/codes.csv' })]);
    await h.recordAll([recordAt('a', now, { ...scope, orderId: 'ord_a', out: '/srv/codes.csv', status: 'completed' })]);
    expect(h.lastDeliveredTo('/srv/codes.csv')?.key).toBe('b');
    const old = new Date(Date.now() - 3 * 24 * 3_600_000).toISOString();
    await h.recordAll([recordAt('o', old, { ...scope, orderId: 'ord_o', out: '/srv/old.csv' })]);
    expect(h.lastDeliveredTo('/srv/old.csv')).toBeUndefined();
  });

  it("never a plan's row, a file of no codes (stdout), or an order that did not reach the user", async () => {
    const h = history();
    await h.recordAll([
      recordAt('plan-abc-1', now, { ...scope, orderId: 'ord_p', out: '/srv/row.csv' }),
      recordAt('s', now, { ...scope, orderId: 'ord_s', out: '-' }),
      recordAt('f', now, { ...scope, orderId: 'ord_f', out: '/srv/failed.csv', outcome: 'failed' }),
      recordAt('x', now, { ...scope, out: '/srv/abandoned.csv', outcome: 'abandoned' }),
    ]);
    for (const path of ['/srv/row.csv', '-', '/srv/failed.csv', '/srv/abandoned.csv'])
      expect(h.lastDeliveredTo(path)).toBeUndefined();
  });

  it('forgets entries older than a day, keeps the newest 50, and skips a line a crash cut', async () => {
    const h = history();
    const day = 24 * 3_600_000;
    await h.recordAll([recordAt('old', now, { ...scope, orderId: 'ord_o', out: '/srv/old.csv' })]);
    expect(h.lastDeliveredTo('/srv/old.csv', Date.now() + day + 60_000)).toBeUndefined();
    expect(h.lastDeliveredTo('/srv/old.csv', Date.now())?.key).toBe('old');
    for (let i = 0; i < 50; i++)
      await h.recordAll([recordAt(`k${i}`, now, { ...scope, orderId: `ord_${i}`, out: `/srv/${i}.csv` })]);
    expect(h.lastDeliveredTo('/srv/old.csv')).toBeUndefined();
    expect(h.lastDeliveredTo('/srv/0.csv')?.key).toBe('k0');
    const file = join(h.dir, '.delivered-to');
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"out":"/srv/cut`);
    expect(h.lastDeliveredTo('/srv/49.csv')?.key).toBe('k49');
    // A line of another shape (an older or a foreign file): skipped, never an error.
    const at = Date.now();
    const where = `"baseUrl":"http://127.0.0.1:1","environment":"test","keyId":"k1","at":${at}`;
    writeFileSync(
      file,
      [
        `{"out":5,"key":"k1",${where}}`,
        `{"out":"/srv/1.csv","key":7,${where}}`,
        `{"out":"/srv/2.csv","key":"k2",${where}}`,
      ]
        .map((line) => `${line}\n`)
        .join(''),
    );
    expect(h.lastDeliveredTo('/srv/1.csv')).toBeUndefined();
    expect(h.lastDeliveredTo('/srv/2.csv')?.key).toBe('k2');
  });
});

// Review F3: a plan run again named a row's file as holding its codes after another run had written there.
describe('codesFileNow', () => {
  it('same while the file is as the delivery left it (a minute of slack), changed once written after, gone once removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'codes-now-'));
    const file = join(dir, 'c.csv');
    const ended = new Date(Date.now() - 10 * 60_000);
    const record = { out: file, endedAt: ended.toISOString(), updatedAt: ended.toISOString() };
    expect(codesFileNow(record)).toBe('gone');
    writeFileSync(file, 'x');
    utimesSync(file, new Date(ended.getTime() + 50_000), new Date(ended.getTime() + 50_000));
    expect(codesFileNow(record)).toBe('same');
    utimesSync(file, new Date(ended.getTime() + 70_000), new Date(ended.getTime() + 70_000));
    expect(codesFileNow(record)).toBe('changed');
    // Written to a file after its delivery (outAt): counted from then.
    expect(codesFileNow({ ...record, outAt: new Date(ended.getTime() + 30_000).toISOString() })).toBe('same');
    expect(codesFileNow({ ...record, out: '-' })).toBe('same');
    expect(codesFileNow({ ...record, out: undefined })).toBe('same');
  });
});
