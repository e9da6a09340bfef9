// Review of the line files (history/<xx>.jsonl): a line file kept open must be the file at its name, and an
// older version's record of this scope stands before a line without a key id, as before the line files.
import { linkSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { History } from '../../src/journal/history.js';
import { recordAt as rec } from '../helpers/journal.js';

const bucket = (k: string): string => createHash('sha256').update(k).digest('hex').slice(0, 2);
const DAY = 86_400_000;

describe('a line file kept open is the one at its name', () => {
  it('after prune replaced it while the old file is still linked elsewhere (NFS .nfsXXXX silly-rename, a hard-link backup), the next record goes to the new file', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const writer = new History(dir);
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const [a, b, c] = Array.from({ length: 2000 }, (_, i) => `k${i}`).filter((k) => bucket(k) === bucket('k0'));
    writer.record(rec(a!, new Date(now - 10 * DAY).toISOString()));
    writer.record(rec(b!, new Date(now - DAY).toISOString()));
    // What an NFS client does to a file one of its processes holds open when another process renames over it.
    const file = join(dir, `${bucket('k0')}.jsonl`);
    linkSync(file, join(dir, '.nfs0000000000abcd00000001'));
    new History(dir).prune(5, now); // another process, under the journal's lock
    writer.record(rec(c!, new Date(now).toISOString(), { orderId: 'ord_c' }));
    expect(new History(dir).list().map((r) => r.key)).toEqual([c, b]);
    expect(readFileSync(file, 'utf8')).toContain('ord_c');
  });

  it('after history/ was moved away (archived) meanwhile, the next record goes to the history/ at its name', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const writer = new History(dir);
    writer.record(rec('a', '2026-01-01T00:00:00.000Z'));
    renameSync(dir, `${dir}.2025`);
    writer.record(rec('a', '2026-01-02T00:00:00.000Z', { orderId: 'ord_a2' }));
    expect(new History(dir).list().map((r) => r.orderId)).toEqual(['ord_a2']);
  });
});

describe("an older version's record of this scope and a line without a key id", () => {
  it("the older version's scoped file stands before a line without any key id (as the scoped file did before the line files)", () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const h = new History(dir);
    const scope = { baseUrl: 'http://127.0.0.1:1', environment: 'test' as const, keyId: 'k1' };
    // An older version's record of this scope: delivered.
    const scoped = rec('K', '2026-02-01T00:00:00.000Z', { keyId: 'k1', orderId: 'ord_scoped' });
    h.record(rec('seed', '2026-01-01T00:00:00.000Z'));
    writeFileSync(
      join(
        dir,
        `${createHash('sha256')
          .update(JSON.stringify(['K', scope.baseUrl, 'test', 'k1']))
          .digest('hex')
          .slice(0, 40)}.json`,
      ),
      JSON.stringify(scoped),
    );
    // A record of that key without a key id (a version before key ids), refreshed by this one: a line.
    h.record(rec('K', '2025-01-01T00:00:00.000Z', { outcome: 'abandoned' }));
    expect(new History(dir).get('K', scope)?.orderId).toBe('ord_scoped');
  });
});

describe("docs/architecture.md's table of files", () => {
  it('names the line files the records are in now (history/<xx>.jsonl), not one file per order', () => {
    const text = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');
    const row = text.split('\n').find((line) => line.startsWith('| `history/'));
    expect(row).toContain('.jsonl');
    expect(row).not.toContain('one record per order');
  });
});
