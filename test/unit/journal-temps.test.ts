// Journal.recordsTemp: the codes export removes temporary files a killed run left beside its target, except one an
// intent recorded as the finished file about to be renamed: that file is the proof of where the codes are
// (codes-file.ts recordedFileState), and removing it turns a pending rename into codes written a second time.
import { describe, expect, it } from 'vitest';
import type { OrderSpec } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { journal } from '../helpers/journal.js';

const spec: OrderSpec = {
  profile: 'default',
  environment: 'test',
  baseUrl: 'http://127.0.0.1:4010',
  keyId: 'k1',
  productId: 'amazon-us-25',
  quantity: 2,
};

describe('recordsTemp', () => {
  it("is true only for a temporary file an unresolved intent recorded, in this process's log or another's file", async () => {
    const j = journal();
    expect(j.recordsTemp('/srv/.codes.json.1-aa.tmp')).toBe(false);
    const { intent } = await j.begin({ ...spec, key: 'k-a' });
    expect(j.recordsTemp('/srv/.codes.json.1-aa.tmp')).toBe(false);
    const identity = {
      orderId: 'ord_1',
      path: '/srv/codes.json',
      dev: 1,
      ino: 2,
      size: 3,
      sha256: 'x',
      temp: '/srv/.codes.json.1-aa.tmp',
    };
    const saved = j.save({ ...intent, phase: 'accepted', orderId: 'ord_1', files: [identity] });
    expect(j.recordsTemp('/srv/.codes.json.1-aa.tmp')).toBe(true);
    expect(j.recordsTemp('/srv/.codes.json.1-bb.tmp')).toBe(false);
    // Another process reading the same directory sees it too.
    expect(new Journal(j.dir).recordsTemp('/srv/.codes.json.1-aa.tmp')).toBe(true);
    // Once the intent has ended, the file is no one's proof.
    await j.end([saved], 'delivered');
    expect(j.recordsTemp('/srv/.codes.json.1-aa.tmp')).toBe(false);
  });

  it('an intent with identities but none naming a temporary file (an older version) records none', async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'k-b' });
    j.save({
      ...intent,
      phase: 'accepted',
      orderId: 'ord_2',
      files: [{ orderId: 'ord_2', path: '/srv/c.json', dev: 1, ino: 2, size: 3, sha256: 'x', count: 2 }],
    });
    expect(j.recordsTemp('/srv/.c.json.1-aa.tmp')).toBe(false);
  });

  it("any of an intent's identities counts: an earlier run's file and this run's temporary file", async () => {
    const j = journal();
    const { intent } = await j.begin({ ...spec, key: 'k-c' });
    const identity = { orderId: 'ord_3', path: '/srv/c.json', dev: 1, ino: 2, size: 3, sha256: 'x' };
    j.save({
      ...intent,
      phase: 'accepted',
      orderId: 'ord_3',
      files: [
        { ...identity, count: 2, renamed: true },
        { ...identity, path: '/srv/d.json', temp: '/srv/.d.json.1-cc.tmp' },
      ],
    });
    expect(j.recordsTemp('/srv/.d.json.1-cc.tmp')).toBe(true);
  });
});
