import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { LocalError } from '../../src/errors.js';
import { History, inScope, scopeOf, type OrderRecord } from '../../src/journal/history.js';
import { recordAt as rec } from '../helpers/journal.js';
import { deadPid } from '../helpers/e2e.js';

describe('History (the local order record)', () => {
  it('lists records newest first, and replaces a key on a second record', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    expect(h.list()).toEqual([]);
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    h.record(rec('b', '2026-01-03T00:00:00.000Z'));
    h.record(
      rec('c', '2026-01-02T00:00:00.000Z', {
        outcome: 'refused',
        error: { code: 'product_not_found', message: 'no such product' },
      }),
    );
    expect(h.list().map((r) => r.key)).toEqual(['b', 'c', 'a']);
    h.record(rec('a', '2026-01-04T00:00:00.000Z', { orderId: 'ord_1', status: 'completed' }));
    expect(h.list().map((r) => r.key)).toEqual(['a', 'b', 'c']);
    expect(h.list()[0]).toMatchObject({ orderId: 'ord_1', status: 'completed' });
    expect(h.list()).toHaveLength(3);
  });

  it('keeps records as lines in at most 256 files, by the first two hex digits of the key (issue 33: no file per order)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    for (let i = 0; i < 600; i++) h.record(rec(`k${i}`, '2026-01-01T00:00:00.000Z'));
    const names = readdirSync(h.dir);
    expect(names.length).toBeLessThanOrEqual(256);
    expect(names.every((name) => /^[0-9a-f]{2}\.jsonl$/.test(name))).toBe(true);
    const k7 = `${createHash('sha256').update('k7').digest('hex').slice(0, 2)}.jsonl`;
    const lines = readFileSync(join(h.dir, k7), 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines.map((line) => (line ? (JSON.parse(line) as OrderRecord).key : ''))).toContain('k7');
    expect(h.list()).toHaveLength(600);
    expect(h.get('k599', { baseUrl: 'http://127.0.0.1:1', environment: 'test', keyId: 'x' })?.key).toBe('k599');
  });

  it('appends to the line file another process put in place (prune), never to the file replaced', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const writer = new History(dir);
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const day = 86_400_000;
    // Keys that share a line file: the old record pruned by another process, the new ones written by this one.
    const bucket = (k: string) => createHash('sha256').update(k).digest('hex').slice(0, 2);
    const [a, b, c] = Array.from({ length: 2000 }, (_, i) => `k${i}`).filter((k) => bucket(k) === bucket('k0'));
    writer.record(rec(a!, new Date(now - 10 * day).toISOString()));
    writer.record(rec(b!, new Date(now - day).toISOString()));
    new History(dir).prune(5, now);
    writer.record(rec(c!, new Date(now).toISOString()));
    expect(new History(dir).list().map((r) => r.key)).toEqual([c, b]);
    // Removed whole (history/ deleted by hand): made again, the record in it.
    rmSync(dir, { recursive: true });
    writer.record(rec(a!, new Date(now).toISOString()));
    expect(new History(dir).list().map((r) => r.key)).toEqual([a]);
  });

  it('keeps no line file open once a record is written: a disk with a file open to write cannot be remounted read-only', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const h = new History(dir);
    const openHere = (): string[] =>
      readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          const target = readlinkSync(join('/proc/self/fd', fd));
          return target.startsWith(dir) ? [target] : [];
        } catch {
          return [];
        }
      });
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    await h.recordAll([rec('b', '2026-01-01T00:00:00.000Z'), rec('c', '2026-01-01T00:00:00.000Z')]);
    h.prune(1, Date.parse('2026-02-01T00:00:00.000Z'));
    expect(openHere()).toEqual([]);
  });

  it('writes into many line files, and after another process appended to one', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');
    const h = new History(dir);
    const keys = Array.from({ length: 300 }, (_, i) => `many${i}`);
    await h.recordAll(keys.map((k) => rec(k, '2026-01-01T00:00:00.000Z')));
    for (const k of keys.slice(0, 100)) h.record(rec(k, '2026-01-02T00:00:00.000Z', { status: 'completed' }));
    new History(dir).record(rec('other', '2026-01-03T00:00:00.000Z'));
    h.record(rec('other', '2026-01-04T00:00:00.000Z', { status: 'completed' }));
    const listed = new History(dir).list();
    expect(listed).toHaveLength(301);
    expect(listed.filter((r) => r.status === 'completed')).toHaveLength(101);
    for (const name of readdirSync(dir))
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n').slice(0, -1))
        expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('a line cut short by a crash is skipped, and the next record is not glued to it', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record(rec('a', '2026-01-01T00:00:00.000Z'));
    const file = join(h.dir, readdirSync(h.dir)[0]!);
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"key":"a","produ`);
    h.record(rec('a', '2026-01-02T00:00:00.000Z', { status: 'completed' }));
    expect(h.list()).toEqual([expect.objectContaining({ key: 'a', status: 'completed' })]);
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('one key in two scopes is two records; each found only in its own scope (issue 29)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const live = rec('K', '2026-01-01T00:00:00.000Z', { environment: 'live', keyId: 'live-id', orderId: 'ord_live' });
    const test = rec('K', '2026-01-02T00:00:00.000Z', { environment: 'test', keyId: 'test-id', orderId: 'ord_test' });
    const other = rec('K', '2026-01-03T00:00:00.000Z', {
      environment: 'live',
      keyId: 'other-reseller',
      orderId: 'ord_other',
    });
    for (const r of [live, test, other]) h.record(r);
    expect(h.list()).toHaveLength(3);
    expect(h.get('K', scopeOf(live as Required<OrderRecord>))?.orderId).toBe('ord_live');
    expect(h.get('K', scopeOf(test as Required<OrderRecord>))?.orderId).toBe('ord_test');
    expect(h.get('K', scopeOf(other as Required<OrderRecord>))?.orderId).toBe('ord_other');
    expect(h.get('K', { baseUrl: 'http://elsewhere', environment: 'live', keyId: 'live-id' })).toBeUndefined();
    expect(h.get('K', { ...scopeOf(live as Required<OrderRecord>), keyId: 'unknown' })).toBeUndefined();
    // Replacing a record replaces only its own scope's.
    h.record({ ...live, status: 'completed' });
    expect(
      h
        .list()
        .filter((r) => r.key === 'K')
        .map((r) => r.orderId)
        .sort(),
    ).toEqual(['ord_live', 'ord_other', 'ord_test']);
  });

  it("a key's record with this scope's key id stands before one without any, whichever was written last", () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const scoped = rec('K', '2026-01-02T00:00:00.000Z', { keyId: 'k1', orderId: 'ord_new' });
    h.record(scoped);
    h.record(rec('K', '2026-01-01T00:00:00.000Z', { orderId: 'ord_old', status: 'completed' }));
    const scope = { baseUrl: scoped.baseUrl, environment: 'test' as const, keyId: 'k1' };
    expect(h.get('K', scope)?.orderId).toBe('ord_new');
    expect(h.get('K', { ...scope, keyId: 'k2' })?.orderId).toBe('ord_old');
  });

  it("reads an older version's record (named by the key alone, no key id) in its server and environment, whatever the key", () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record(rec('seed', '2026-01-01T00:00:00.000Z'));
    const old = rec('K', '2026-01-01T00:00:00.000Z', { orderId: 'ord_old' });
    writeFileSync(
      join(h.dir, `${createHash('sha256').update('K').digest('hex').slice(0, 40)}.json`),
      JSON.stringify(old),
    );
    const scope = { baseUrl: old.baseUrl, environment: 'test' as const, keyId: 'any' };
    expect(h.get('K', scope)?.orderId).toBe('ord_old');
    expect(h.get('K', { ...scope, environment: 'live' })).toBeUndefined();
    expect(h.get('K', { ...scope, baseUrl: 'http://elsewhere' })).toBeUndefined();
    expect(h.get('other', scope)).toBeUndefined();
    expect(inScope(old, scope)).toBe(true);
    // A file an older version named by the key that holds a key id is not that older record: not read.
    const legacy = join(h.dir, `${createHash('sha256').update('K').digest('hex').slice(0, 40)}.json`);
    writeFileSync(legacy, JSON.stringify({ ...old, keyId: 'any' }));
    expect(new History(h.dir).get('K', scope)).toBeUndefined();
    // Its refresh (order list --refresh) is a line that stands for it: one record for it, the new status.
    writeFileSync(legacy, JSON.stringify(old));
    h.record({ ...h.get('K', scope)!, status: 'completed' });
    expect(h.list().filter((r) => r.key === 'K')).toEqual([{ ...old, status: 'completed' }]);
    expect(h.get('K', scope)?.status).toBe('completed');
    // Found by its scope in a file named so, as an older version wrote it too.
    const scoped = rec('S', '2026-01-01T00:00:00.000Z', { keyId: 'k9', orderId: 'ord_s' });
    writeFileSync(
      join(
        h.dir,
        `${createHash('sha256')
          .update(JSON.stringify(['S', scoped.baseUrl, 'test', 'k9']))
          .digest('hex')
          .slice(0, 40)}.json`,
      ),
      JSON.stringify(scoped),
    );
    expect(new History(h.dir).get('S', { ...scope, keyId: 'k9' })?.orderId).toBe('ord_s');
    expect(new History(h.dir).get('S', { ...scope, keyId: 'k8' })).toBeUndefined();
  });

  it('never stores fields beyond the record (no key, no body, no codes)', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    h.record({
      ...rec('k', '2026-01-01T00:00:00.000Z'),
      apiKey: 'sc_test_secret',
      codes: ['X'],
    } as unknown as OrderRecord);
    const [name] = readdirSync(h.dir);
    const text = readFileSync(join(h.dir, name!), 'utf8');
    expect(text).not.toContain('sc_test_secret');
    expect(text).not.toContain('codes');
  });

  it('prunes records older than the limit, to the millisecond, and skips damaged files', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const day = 86_400_000;
    h.record(rec('old', new Date(now - 90 * day - 1).toISOString()));
    h.record(rec('edge', new Date(now - 90 * day).toISOString()));
    h.record(rec('new', new Date(now - day).toISOString()));
    writeFileSync(join(h.dir, 'junk.json'), '{not json');
    h.prune(90, now);
    expect(h.list().map((r) => r.key)).toEqual(['new', 'edge']);
    expect(readdirSync(h.dir)).toContain('junk.json');
  });
});

describe('History stores identifiers exactly, and masks only the server text', () => {
  it('keeps key-shaped text in key, product, profile and out; masks a key echoed in status or error', () => {
    const h = new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
    const ids = {
      key: 'misc_test_key-sc_test_x',
      productId: 'misc_test_pack',
      profile: 'misc_test_shop',
      out: '/tmp/misc_test_out/sc_live_dir/c.json',
      baseUrl: 'http://misc_test_host:1',
    };
    h.record({
      ...rec(ids.key, '2026-01-01T00:00:00.000Z', {
        ...ids,
        orderId: 'sc_test_order_12345678',
        status: 'odd sc_live_abcdefgh1234',
      }),
      error: { code: 'bad sc_test_abcdefgh5678', message: 'key sc_test_abcdefgh9012 revoked' },
    });
    const got = h.get(ids.key, { baseUrl: ids.baseUrl, environment: 'test', keyId: 'k1' })!;
    expect(got).toMatchObject({
      ...ids,
      orderId: 'sc_test_order_12345678',
      status: 'odd sc_live_…1234',
      error: { code: 'bad sc_test_…5678', message: 'key sc_test_…9012 revoked' },
    });
  });
});

describe('History on disk: its directory, failures, and files that are not records', () => {
  const newDir = (): string => join(mkdtempSync(join(tmpdir(), 'hist-')), 'history');

  it('makes its directory private (0700), and writes into one another process already made', async () => {
    const dir = newDir();
    new History(dir).record(rec('a', '2026-01-01T00:00:00.000Z'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // A second process (another History) finds the directory there: it records beside the first's.
    new History(dir).record(rec('b', '2026-01-02T00:00:00.000Z'));
    await new History(dir).recordAll([rec('c', '2026-01-03T00:00:00.000Z')]);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(
      new History(dir)
        .list()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
  });

  it('a record that cannot be written (a directory in its place) fails once, naming the file, and is not retried', async () => {
    const h = new History(newDir());
    const r = rec('a', '2026-01-01T00:00:00.000Z', { keyId: 'k1' });
    h.record(r);
    const [name] = readdirSync(h.dir);
    const file = join(h.dir, name!);
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    expect(() => h.record(r)).toThrow(LocalError);
    expect(() => h.record(r)).toThrow(`cannot write the file ${file}`);
    await expect(h.recordAll([r])).rejects.toThrow(`cannot write the file ${file}`);
  });

  it('prune removes only records, and temporary files a killed process left: one another process is writing stays, whatever it holds', () => {
    const h = new History(newDir());
    h.record(rec('old', '2026-01-01T00:00:00.000Z'));
    const temp = join(h.dir, `.in-progress.json.${process.pid}-abcdef.tmp`);
    writeFileSync(temp, JSON.stringify(rec('old-too', '2026-01-01T00:00:00.000Z')));
    // One a killed prune left (its process gone) goes; a file of another name stays, whatever its name says.
    const gone = deadPid();
    writeFileSync(join(h.dir, `.3f.jsonl.${gone}-0a1b2c.tmp`), '{"key":"half');
    writeFileSync(join(h.dir, `notes.${gone}-0a1b2c.tmp`), 'mine');
    h.prune(90, Date.parse('2026-12-01T00:00:00.000Z'));
    expect(readdirSync(h.dir).sort()).toEqual([basename(temp), '.pruned', `notes.${gone}-0a1b2c.tmp`].sort());
  });

  it('prune rewrites a file of lines without the old ones, keeps what is not a record, and runs once a day for its days', () => {
    const h = new History(newDir());
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const day = 86_400_000;
    // Keys whose lines share one file: the rewrite keeps the new line beside the old one's removal.
    const keys = Array.from({ length: 600 }, (_, i) => `k${i}`);
    const bucket = (k: string) => createHash('sha256').update(k).digest('hex').slice(0, 2);
    const [a, b] = keys.filter((k) => bucket(k) === bucket('k0'));
    h.record(rec(a!, new Date(now - 10 * day).toISOString()));
    h.record(rec(b!, new Date(now - day).toISOString()));
    const file = join(h.dir, `${bucket('k0')}.jsonl`);
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"note":"a newer version's line"}\n{"cut`);
    h.prune(5, now);
    expect(h.list().map((r) => r.key)).toEqual([b]);
    expect(readFileSync(file, 'utf8')).toContain(`{"note":"a newer version's line"}\n`);
    expect(readFileSync(file, 'utf8')).not.toContain('{"cut');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Again within the day at the same days: not read again. With other days, or a day later: pruned.
    h.record(rec('z', new Date(now - 10 * day).toISOString()));
    h.prune(5, now + day - 1);
    expect(h.list().map((r) => r.key)).toContain('z');
    h.prune(6, now + day - 1);
    expect(h.list().map((r) => r.key)).not.toContain('z');
    h.record(rec('y', new Date(now - 10 * day).toISOString()));
    h.prune(6, now + 2 * day);
    expect(h.list().map((r) => r.key)).not.toContain('y');
    // Every record old: what is left is the line that is none; a file of old records only goes.
    h.prune(1, now + 3 * day);
    expect(readFileSync(file, 'utf8')).toBe(`{"note":"a newer version's line"}\n`);
    h.record(rec('x', new Date(now - 10 * day).toISOString()));
    h.prune(1, now + 5 * day);
    expect(readdirSync(h.dir).sort()).toEqual(['.pruned', basename(file)].sort());
  });

  it("a profile prunes only its own records by its history-days: another profile's plan records stay (its plan was ordered again)", () => {
    const h = new History(newDir());
    const now = Date.parse('2026-04-01T00:00:00.000Z');
    const old = new Date(now - 3 * 86_400_000).toISOString();
    h.record(rec('weekly-row', old, { profile: 'default' }));
    h.record(rec('archive-row', old, { profile: 'archive' }));
    // The archive profile keeps 1 day: its own old record goes, the default profile's stays for its own setting.
    h.prune(1, now, 'archive');
    expect(h.list().map((r) => r.key)).toEqual(['weekly-row']);
    // Within the day, the default profile's prune (its own days) still runs: the mark names the profile.
    h.prune(1, now + 1000, 'default');
    expect(h.list()).toEqual([]);
  });

  it('a record whose key id is not text is damaged: skipped, never read as of some scope', () => {
    const h = new History(newDir());
    h.record(rec('good', '2026-01-01T00:00:00.000Z', { keyId: 'k1' }));
    writeFileSync(join(h.dir, 'damaged.json'), JSON.stringify({ ...rec('bad', '2026-01-02T00:00:00.000Z'), keyId: 7 }));
    expect(h.list().map((r) => r.key)).toEqual(['good']);
  });

  it("keeps a record's optional fields only as what they are: text, true, or a batch's null", () => {
    const h = new History(newDir());
    const at = '2026-01-01T00:00:00.000Z';
    h.record(rec('first', at));
    const file = (key: string, value: object): void =>
      writeFileSync(join(h.dir, `${key}.json`), JSON.stringify({ ...rec(key, at), ...value }));
    file('good', { finishedBy: 'codes get', keySince: at, plan: 'p.csv', batch: null, out: '/a.csv' });
    file('batched', { plan: 'p.csv', batch: '2026-12-01' });
    file('odd', { finishedBy: 7, keySince: 1, plan: 2, batch: 3, out: undefined });
    const byKey = new Map(h.list().map((r) => [r.key, r]));
    expect(byKey.get('good')).toMatchObject({
      finishedBy: 'codes get',
      keySince: at,
      plan: 'p.csv',
      batch: null,
      out: '/a.csv',
    });
    expect(byKey.get('batched')?.batch).toBe('2026-12-01');
    for (const field of ['finishedBy', 'keySince', 'plan', 'batch', 'out'])
      expect(byKey.get('odd'), field).not.toHaveProperty(field);
  });

  it('keeps when its file was written (outAt, with an out) and the other files of its codes (copies of text, the newest 20)', () => {
    const h = new History(newDir());
    const at = '2026-01-01T00:00:00.000Z';
    h.record(rec('kept', at, { out: '/a.csv', outAt: '2026-01-01T01:00:00.000Z', copies: ['/b.csv', '/c.csv'] }));
    const file = (key: string, value: object): void =>
      writeFileSync(join(h.dir, `${key}.json`), JSON.stringify({ ...rec(key, at), ...value }));
    file('no-out', { outAt: '2026-01-01T01:00:00.000Z', copies: [] });
    file('odd-at', { out: '/a.csv', outAt: 7, copies: ['/b.csv', 3] });
    file('many', { out: '/a.csv', copies: Array.from({ length: 25 }, (_, n) => `/c${n}.csv`) });
    file('not-list', { out: '/a.csv', copies: '/b.csv' });
    const byKey = new Map(h.list().map((r) => [r.key, r]));
    expect(byKey.get('kept')).toMatchObject({ outAt: '2026-01-01T01:00:00.000Z', copies: ['/b.csv', '/c.csv'] });
    expect(byKey.get('no-out')).not.toHaveProperty('outAt');
    expect(byKey.get('no-out')).not.toHaveProperty('copies');
    expect(byKey.get('odd-at')).not.toHaveProperty('outAt');
    expect(byKey.get('odd-at')).not.toHaveProperty('copies');
    expect(byKey.get('many')?.copies).toEqual(Array.from({ length: 20 }, (_, n) => `/c${n + 5}.csv`));
    expect(byKey.get('not-list')).not.toHaveProperty('copies');
  });

  it("keeps the order's amount as money; an amount that is not money is dropped, the record kept (it is only for display)", () => {
    const h = new History(newDir());
    h.record(rec('priced', '2026-01-01T00:00:00.000Z', { amount: { amount: 7500, currency: 'USD' } }));
    writeFileSync(
      join(h.dir, 'odd.json'),
      JSON.stringify({
        ...rec('odd', '2026-01-02T00:00:00.000Z'),
        amount: { amount: '75', currency: 'USD', extra: 1 },
      }),
    );
    writeFileSync(
      join(h.dir, 'extra.json'),
      JSON.stringify({
        ...rec('extra', '2026-01-03T00:00:00.000Z'),
        amount: { amount: 100, currency: 'EUR', note: 'x' },
      }),
    );
    const byKey = new Map(h.list().map((r) => [r.key, r]));
    expect(byKey.get('priced')?.amount).toEqual({ amount: 7500, currency: 'USD' });
    expect(byKey.get('odd')).toBeDefined();
    expect(byKey.get('odd')).not.toHaveProperty('amount');
    expect(byKey.get('extra')?.amount).toEqual({ amount: 100, currency: 'EUR' });
  });
});

describe('History.codesHolder', () => {
  // Who wrote the codes a file holds, as far as this machine knows: what writing over it would lose.
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'holder-'));
    const file = join(dir, 'codes.csv');
    const h = new History(join(dir, 'history'));
    return { dir, file, h };
  };
  const now = () => new Date().toISOString();

  it('the newest delivered order whose out is the file, while the file is not written after it', () => {
    const { file, h } = setup();
    expect(h.codesHolder(file)).toBeUndefined();
    writeFileSync(file, 'codes\n');
    expect(h.codesHolder(file)).toBeUndefined();
    h.record(rec('abandoned', now(), { outcome: 'abandoned', out: file }));
    h.record(rec('elsewhere', now(), { out: `${file}.other` }));
    expect(h.codesHolder(file)).toBeUndefined();
    // Delivered with no file (its order to stdout, or --wait alone): no holder, and no error.
    h.record({ ...rec('nofile', now(), {}), out: undefined } as OrderRecord);
    expect(h.codesHolder(file)).toBeUndefined();
    expect(h.codesWrittenTo(file)).toBeUndefined();
    h.record(rec('holder', now(), { out: file, orderId: 'ord_h' }));
    expect(h.codesHolder(file)?.key).toBe('holder');
    // Its own key is no other order's; a path spelled another way is the same file.
    expect(h.codesHolder(file, 'holder')).toBeUndefined();
    expect(h.codesHolder(join(file, '..', 'codes.csv'))?.key).toBe('holder');
    // A file moved away holds nobody's codes.
    rmSync(file);
    expect(h.codesHolder(file)).toBeUndefined();
  });

  it('a file written more than a minute after that delivery ended is not known to hold its codes', () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const longAgo = new Date(Date.now() - 3_600_000).toISOString();
    h.record(rec('old', longAgo, { out: file }));
    expect(h.codesHolder(file)).toBeUndefined();
    // Said as once written there, and changed since (an edited file: codes marked sold).
    expect(h.codesWrittenTo(file)).toMatchObject({ record: { key: 'old' }, changed: true });
    const { file: recent, h: h2 } = setup();
    writeFileSync(recent, 'codes\n');
    h2.record(rec('recent', new Date(Date.now() - 30_000).toISOString(), { out: recent }));
    expect(h2.codesHolder(recent)?.key).toBe('recent');
    expect(h2.codesWrittenTo(recent)).toMatchObject({ record: { key: 'recent' }, changed: false });
    // A minute after the delivery ended, to the millisecond: not changed yet; a millisecond more: changed.
    const ended = Date.parse('2026-12-01T02:00:00.000Z');
    const { file: edge, h: h4 } = setup();
    writeFileSync(edge, 'codes\n');
    h4.record({
      ...rec('edge', '2026-12-01T02:00:00.000Z', { out: edge }),
      endedAt: '2026-12-01T02:00:00.000Z',
    } as OrderRecord);
    utimesSync(edge, (ended + 60_000) / 1000, (ended + 60_000) / 1000);
    expect(h4.codesWrittenTo(edge)?.changed).toBe(false);
    utimesSync(edge, (ended + 60_001) / 1000, (ended + 60_001) / 1000);
    expect(h4.codesWrittenTo(edge)?.changed).toBe(true);
    // Codes written to the file after the delivery (a codes get --out of an order delivered to stdout): from then.
    const { file: later, h: h5 } = setup();
    writeFileSync(later, 'codes\n');
    h5.record({ ...rec('later', longAgo, { out: later }), endedAt: longAgo, outAt: now() } as OrderRecord);
    expect(h5.codesWrittenTo(later)).toMatchObject({ record: { key: 'later' }, changed: false });
    expect(h5.codesHolder(later)?.key).toBe('later');
    // Without an end time, its last update stands for it.
    const { file: third, h: h3 } = setup();
    writeFileSync(third, 'codes\n');
    h3.record({ ...rec('noend', now(), { out: third }), endedAt: undefined, updatedAt: longAgo } as OrderRecord);
    expect(h3.codesHolder(third)).toBeUndefined();
  });

  // A review (stop 77, G3): order A delivered to night.csv, later order B to the same file, then A's codes written
  // there again (`codes get A --out night.csv`, as a hint said): the file was said to hold B's codes, and "--force
  // would write over those codes" invited writing over A's. The holder is the record that wrote the file last.
  it('the order that wrote the file last holds it, whatever order the records ended in', () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    h.record({ ...rec('a', at(20_000), { out: file, orderId: 'ord_a' }), endedAt: at(20_000) } as OrderRecord);
    h.record({ ...rec('b', at(10_000), { out: file, orderId: 'ord_b' }), endedAt: at(10_000) } as OrderRecord);
    expect(h.codesHolder(file)?.key).toBe('b');
    h.record({
      ...rec('a', at(20_000), { out: file, orderId: 'ord_a' }),
      endedAt: at(20_000),
      outAt: at(1_000),
    } as OrderRecord);
    expect(h.codesHolder(file)?.key).toBe('a');
    expect(h.codesWrittenTo(file)).toMatchObject({ record: { key: 'a' }, changed: false });
  });

  // A third review (stop 77, H2): `codes get A --out b.csv --force` over order B's file left b.csv said to be B's, and
  // a later `codes get B` called b.csv and its new file the same codes. A copy now carries when it was written.
  it("a copy written over another order's file after that order's delivery is the file's last writer", () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    h.record({ ...rec('b', at(20_000), { out: file, orderId: 'ord_b' }), endedAt: at(20_000) } as OrderRecord);
    h.record({
      ...rec('a', at(30_000), { out: `${file}.a`, orderId: 'ord_a', copies: [file], copiedAt: { [file]: at(5_000) } }),
      endedAt: at(30_000),
    } as OrderRecord);
    expect(h.codesWrittenTo(file)).toMatchObject({ record: { key: 'a' }, copy: true, changed: false });
    // A copy made before the other order's delivery there: that order wrote the file last.
    const { file: f2, h: h2 } = setup();
    writeFileSync(f2, 'codes\n');
    h2.record({ ...rec('b', at(5_000), { out: f2, orderId: 'ord_b' }), endedAt: at(5_000) } as OrderRecord);
    h2.record({
      ...rec('a', at(30_000), { out: `${f2}.a`, orderId: 'ord_a', copies: [f2], copiedAt: { [f2]: at(20_000) } }),
      endedAt: at(30_000),
    } as OrderRecord);
    expect(h2.codesWrittenTo(f2)).toMatchObject({ record: { key: 'b' } });
    // Of two orders' copies into one file, the later copy's; a record whose copies name other files is not it.
    const { file: f3, h: h3 } = setup();
    writeFileSync(f3, 'codes\n');
    h3.record({
      ...rec('c1', at(30_000), { out: `${f3}.1`, orderId: 'ord_c1', copies: [f3], copiedAt: { [f3]: at(4_000) } }),
      endedAt: at(30_000),
    } as OrderRecord);
    h3.record({
      ...rec('c2', at(30_000), { out: `${f3}.2`, orderId: 'ord_c2', copies: [f3], copiedAt: { [f3]: at(8_000) } }),
      endedAt: at(30_000),
    } as OrderRecord);
    h3.record({
      ...rec('c3', at(1_000), {
        out: `${f3}.3`,
        orderId: 'ord_c3',
        copies: [`${f3}.x`],
        copiedAt: { [`${f3}.x`]: at(500) },
      }),
      endedAt: at(1_000),
    } as OrderRecord);
    expect(h3.codesWrittenTo(f3)).toMatchObject({ record: { key: 'c1' }, copy: true });
    // Its time is kept through a read and a write of the record.
    expect(h.list().find((r) => r.key === 'a')?.copiedAt).toEqual({ [file]: expect.any(String) });
  });

  // order show, a plan's re-run and the two-files warning ask it (a fourth review): another order's codes over a file.
  it('writtenOver: another order that wrote the file after `since`; none for a file untouched since, its own, or gone', () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    const a = { ...rec('a', at(20_000), { out: file, orderId: 'ord_a' }), endedAt: at(20_000) } as OrderRecord;
    h.record(a);
    h.record({ ...rec('b', at(10_000), { out: file, orderId: 'ord_b' }), endedAt: at(10_000) } as OrderRecord);
    utimesSync(file, (Date.now() - 5_000) / 1000, (Date.now() - 5_000) / 1000);
    expect(h.writtenOver(file, at(20_000), 'a')?.key).toBe('b');
    expect(h.overwrittenBy(a)?.key).toBe('b');
    // Without a time (a copy of an older record): looked up all the same.
    expect(h.writtenOver(file, undefined, 'a')?.key).toBe('b');
    // Its own last write, a file untouched since `since`, a file not there, codes to stdout: none.
    expect(h.writtenOver(file, at(20_000), 'b')).toBeUndefined();
    expect(h.writtenOver(file, at(1_000), 'a')).toBeUndefined();
    expect(h.writtenOver(`${file}.gone`, undefined, 'a')).toBeUndefined();
    expect(h.overwrittenBy({ ...a, out: '-' })).toBeUndefined();
    expect(h.overwrittenBy({ ...a, out: undefined } as OrderRecord)).toBeUndefined();
  });

  it("a file a record names among its copies is that order's, said as a copy; written to since its last update, changed", () => {
    const { file, h } = setup();
    writeFileSync(file, 'codes\n');
    const longAgo = new Date(Date.now() - 3_600_000).toISOString();
    h.record({ ...rec('copied', longAgo, { out: `${file}.first`, copies: [`${file}.x`, file] }), updatedAt: now() });
    expect(h.codesWrittenTo(file)).toEqual({
      record: expect.objectContaining({ key: 'copied' }),
      changed: false,
      copy: true,
    });
    expect(h.codesWrittenTo(file, 'copied')).toBeUndefined();
    // An out of another order comes first: it has a time of its own.
    h.record(rec('out', now(), { out: file }));
    expect(h.codesWrittenTo(file)).toEqual({ record: expect.objectContaining({ key: 'out' }), changed: false });
    const { file: edited, h: h2 } = setup();
    writeFileSync(edited, 'codes\n');
    h2.record({ ...rec('copied', longAgo, { out: `${edited}.first`, copies: [edited] }), updatedAt: longAgo });
    expect(h2.codesWrittenTo(edited)).toMatchObject({ changed: true, copy: true });
  });
});
