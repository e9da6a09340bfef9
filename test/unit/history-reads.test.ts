// How a process looks up a key's records (src/journal/history.ts mayName): a line file is read whole only when a
// line of it names the key's row. A plan's row looks its new key up three times or more, and with 90 days of
// nightly 1,000-row plans in history/ each lookup read a 165 KB file to find nothing: 500 MB a plan, half of its
// CPU (BENCHMARKS.md, thirty-sixth round). What it keeps of each file must never hide a record another process (or
// this one) wrote since: an appended line, a file pruned and replaced, a file rewritten in place, a last line whose
// newline is not there yet.
import {
  appendFileSync,
  closeSync,
  openSync,
  writeSync,
  mkdirSync,
  readdirSync,
  readFileSync as realReadFile,
  renameSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const hooks = { bytes: 0 };
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readSync = ((...args: unknown[]) => {
    const n = (fs.readSync as (...a: unknown[]) => number)(...args);
    hooks.bytes += n;
    return n;
  }) as typeof fs.readSync;
  const readFileSync = ((file: unknown, ...rest: unknown[]) => {
    const read = (fs.readFileSync as (...a: unknown[]) => string | Buffer)(file, ...rest);
    if (typeof file === 'string' && file.endsWith('.jsonl')) hooks.bytes += Buffer.byteLength(read);
    return read;
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, readSync, readFileSync }, readSync, readFileSync };
});

const { History } = await import('../../src/journal/history.js');
const { recordAt } = await import('../helpers/journal.js');
const { tempDir } = await import('../helpers/e2e.js');
type OrderRecord = import('../../src/journal/history.js').OrderRecord;
type Scope = import('../../src/journal/history.js').Scope;

const AT = '2026-11-30T12:00:00.000Z';
const scope: Scope = { baseUrl: 'http://127.0.0.1:4010', environment: 'test', keyId: 'k1' };
const record = (key: string, extra: Partial<OrderRecord> = {}): OrderRecord =>
  recordAt(key, AT, { keyId: scope.keyId, baseUrl: scope.baseUrl, environment: scope.environment, ...extra });
const rowKey = (i: number): string => `plan-${i.toString(16).padStart(24, '0')}`;
const fileOf = (dir: string, key: string): string =>
  join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 2)}.jsonl`);

/** `count` keys beginning `prefix` whose records go into `file` (the first key's when none is given). */
function keysOfOneFile(dir: string, prefix: string, count: number, file?: string): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++) {
    const key = `${prefix}${String(i).padStart(5, '0')}`;
    if (fileOf(dir, key) === (file ??= fileOf(dir, key))) keys.push(key);
  }
  return keys;
}

function historyDir(): string {
  const dir = join(tempDir(), 'history');
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("History: a key's lookups read a line file whole only when a line of it names the key's row", () => {
  it("a plan's new keys looked up three times each read each file about once, not once a lookup", () => {
    const dir = historyDir();
    const writer = new History(dir);
    for (let i = 0; i < 2_000; i++) writer.record(record(rowKey(i)));
    const size = readdirSync(dir).reduce((sum, name) => sum + realReadFile(join(dir, name)).length, 0);
    const h = new History(dir);
    hooks.bytes = 0;
    for (let i = 2_000; i < 3_000; i++) {
      expect(h.get(rowKey(i), scope)).toBeUndefined();
      expect(h.everyScope(rowKey(i))).toEqual([]);
      expect(h.generations(rowKey(i), scope).size).toBe(0);
    }
    // Before: every lookup read its whole file (3,000 lookups of a 256th of the history each: ~12 times its size).
    expect(hooks.bytes).toBeLessThan(size * 1.5);
    // A key that has a record is still found, and read.
    expect(h.get(rowKey(7), scope)?.key).toBe(rowKey(7));
  });

  it('finds a record another process appended since its last look, at once (a plan beside a plan)', () => {
    const dir = historyDir();
    const mine = new History(dir);
    const other = new History(dir);
    other.record(record(rowKey(1)));
    expect(mine.get(rowKey(2), scope)).toBeUndefined();
    expect(mine.generations(rowKey(2), scope).size).toBe(0);
    other.record(record(rowKey(2)));
    other.record(record(`${rowKey(2)}-g2`, { outcome: 'failed' }));
    expect(mine.get(rowKey(2), scope)?.key).toBe(rowKey(2));
    expect([...mine.generations(rowKey(2), scope).keys()].sort()).toEqual([rowKey(2), `${rowKey(2)}-g2`]);
    expect(mine.everyScope(`${rowKey(2)}-g2`)).toHaveLength(1);
  });

  it("finds a record this process wrote after looking (a record's own write changes what it reads)", () => {
    const h = new History(historyDir());
    expect(h.get('k-own', scope)).toBeUndefined();
    h.record(record('k-own'));
    expect(h.get('k-own', scope)?.key).toBe('k-own');
  });

  it('reads again whole a file put in its place (prune), or rewritten in place, even at the same length', () => {
    const dir = historyDir();
    const h = new History(dir);
    h.record(record('kaa'));
    const file = fileOf(dir, 'kaa');
    // Keys of the same length whose records go into the same file.
    const same: string[] = [];
    for (let i = 0; same.length < 2; i++) {
      const key = `k${i.toString(36).padStart(2, '0')}`;
      if (key !== 'kaa' && fileOf(dir, key) === file) same.push(key);
    }
    const [b, c] = same as [string, string];
    expect(h.get(b, scope)).toBeUndefined();
    const text = realReadFile(file, 'utf8');
    // Another file at its name, as prune leaves it.
    writeFileSync(`${file}.new`, text.replace('"kaa"', JSON.stringify(b)));
    renameSync(`${file}.new`, file);
    expect(h.get(b, scope)?.key).toBe(b);
    expect(h.get('kaa', scope)).toBeUndefined();
    // Rewritten in place: the same inode and length, a moment later (a person's editor).
    writeFileSync(file, text.replace('"kaa"', JSON.stringify(c)));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(h.get(c, scope)?.key).toBe(c);
    expect(h.get(b, scope)).toBeUndefined();
  });

  it('counts a last line without its newline, whose record is whole, and a line in another JSON spelling', () => {
    const dir = historyDir();
    const h = new History(dir);
    h.record(record('k-first'));
    const file = fileOf(dir, 'k-first');
    expect(h.get('k-x', scope)).toBeUndefined();
    let torn = 'k-torn';
    for (let i = 0; fileOf(dir, torn) !== file; i++) torn = `k-torn${i}`;
    // Cut short after its record: its newline never written (the next append puts one before its own line).
    appendFileSync(file, JSON.stringify(record(torn)));
    expect(h.get(torn, scope)?.key).toBe(torn);
    let spaced = 'k-spaced';
    for (let i = 0; fileOf(dir, spaced) !== file; i++) spaced = `k-spaced${i}`;
    h.record(record('k-first', { status: 'completed' }));
    // A line written by hand or by another tool: its key later, spaces.
    const { key: _key, ...rest } = record(spaced);
    appendFileSync(
      file,
      `{ "orderId" : "ord_1", "key" : ${JSON.stringify(spaced)}, ${JSON.stringify(rest).slice(1)}\n`,
    );
    expect(h.get(torn, scope)?.key).toBe(torn);
    expect(h.get(spaced, scope)?.key).toBe(spaced);
    // Keys a person gave (--idempotency-key) with an escape or beyond ASCII in their JSON.
    for (const given of ['k"quoted\\', 'k-é-ü']) {
      expect(h.get(given, scope)).toBeUndefined();
      h.record(record(given));
      expect(h.get(given, scope)?.key).toBe(given);
    }
    expect(h.get('k-first', scope)?.status).toBe('completed');
  });

  it("list() reads each file's records through one buffer: a small file after a large one gives only its own", () => {
    const large = historyDir();
    const writer = new History(large);
    for (let i = 0; i < 1_500; i++) writer.record(record(`k-large-${i}`));
    expect(new History(large).list()).toHaveLength(1_500);
    const small = historyDir();
    const one = new History(small);
    one.record(record('k-é-small'));
    // A line cut short by a crash, then the file as another writer leaves it.
    appendFileSync(fileOf(small, 'k-é-small'), '{"key":"k-cut","productId":');
    expect(new History(small).list().map((r) => r.key)).toEqual(['k-é-small']);
  });

  it('reads a file that grew on from where it stopped: the new lines and the bytes checked before them', () => {
    const dir = historyDir();
    const writer = new History(dir);
    const [added, miss, ...kept] = keysOfOneFile(dir, 'k-grow-', 60);
    for (const key of kept) writer.record(record(key!));
    const file = fileOf(dir, added!);
    const h = new History(dir);
    expect(h.get(added!, scope)).toBeUndefined();
    writer.record(record(added!));
    const whole = realReadFile(file).length;
    expect(whole).toBeGreaterThan(3 * 4096);
    hooks.bytes = 0;
    expect(h.generations(added!, scope).size).toBe(1);
    // Read on: the new line and the 4 KB before it checked; then the file read whole for the record itself.
    const line = Buffer.byteLength(JSON.stringify(record(added!))) + 1;
    expect(hooks.bytes).toBeLessThanOrEqual(whole + 4096 + line);
    // Unchanged since: a key of the same file that no line names reads nothing.
    hooks.bytes = 0;
    expect(h.get(miss!, scope)).toBeUndefined();
    expect(hooks.bytes).toBe(0);
  });

  it('tells another file from the one it read by its identity alone: same length, same time, another inode', () => {
    const dir = historyDir();
    const h = new History(dir);
    h.record(record('kaa'));
    const file = fileOf(dir, 'kaa');
    let b = 'kab';
    for (let i = 0; fileOf(dir, b) !== file; i++) b = `k${i.toString(36).padStart(2, '0')}`;
    // A whole second, so that the time set again below is the very one looked at.
    const second = Math.floor(Date.now() / 1000) - 60;
    utimesSync(file, second, second);
    expect(h.get(b, scope)).toBeUndefined();
    writeFileSync(`${file}.new`, realReadFile(file, 'utf8').replace('"kaa"', JSON.stringify(b)));
    utimesSync(`${file}.new`, second, second);
    renameSync(`${file}.new`, file);
    expect(h.get(b, scope)?.key).toBe(b);
  });

  it('reads on a file that grew though its time was set back (a restore, a clock step), by its length', () => {
    const dir = historyDir();
    const h = new History(dir);
    h.record(record('k-time'));
    const file = fileOf(dir, 'k-time');
    let later = 'k-time-later';
    for (let i = 0; fileOf(dir, later) !== file; i++) later = `k-time-later-${i}`;
    const second = Math.floor(Date.now() / 1000) - 60;
    utimesSync(file, second, second);
    expect(h.get(later, scope)).toBeUndefined();
    appendFileSync(file, `${JSON.stringify(record(later))}\n`);
    utimesSync(file, second, second);
    expect(h.get(later, scope)?.key).toBe(later);
  });

  it('reads again whole a longer file put in its place whose last bytes before the point read are the same', () => {
    const dir = historyDir();
    const writer = new History(dir);
    const same = keysOfOneFile(dir, 'k-long-', 61);
    const other = same.pop()!;
    const first = same[0]!;
    const file = fileOf(dir, first);
    for (const key of same) writer.record(record(key));
    const h = new History(dir);
    expect(h.get(other, scope)).toBeUndefined();
    // The first record's key changed (far before the last 4 KB), a line added: another file, renamed over it.
    const text = realReadFile(file, 'utf8');
    expect(text.length).toBeGreaterThan(3 * 4096);
    writeFileSync(
      `${file}.new`,
      `${text.replace(JSON.stringify(first), JSON.stringify(other))}${JSON.stringify(record('k-long-extra'))}\n`,
    );
    renameSync(`${file}.new`, file);
    expect(h.get(other, scope)?.key).toBe(other);
  });

  it('list() skips a line file it cannot open (a link to nothing), as it skipped one it could not read', () => {
    const dir = historyDir();
    const h = new History(dir);
    h.record(record('k-kept'));
    symlinkSync(
      join(dir, 'gone'),
      join(dir, 'ab.jsonl') === fileOf(dir, 'k-kept') ? join(dir, 'cd.jsonl') : join(dir, 'ab.jsonl'),
    );
    expect(h.list().map((r) => r.key)).toEqual(['k-kept']);
  });

  it('reads again whole a file changed in place within the 4 KB before the point read, then appended to', () => {
    const dir = historyDir();
    const writer = new History(dir);
    const [changed, later, ...kept] = keysOfOneFile(dir, 'k-tail-', 40);
    for (const key of kept) writer.record(record(key!));
    const file = fileOf(dir, kept[0]!);
    const h = new History(dir);
    expect(h.get(changed!, scope)).toBeUndefined();
    // The last record's key changed in place (same length), then a line appended: the file grew.
    const last = kept.at(-1)!;
    const fd = openSync(file, 'r+');
    writeSync(
      fd,
      Buffer.from(JSON.stringify(changed)),
      0,
      undefined,
      realReadFile(file, 'utf8').lastIndexOf(JSON.stringify(last)),
    );
    closeSync(fd);
    writer.record(record(later!));
    expect(h.get(changed!, scope)?.key).toBe(changed);
    expect(h.get(last, scope)).toBeUndefined();
  });
});
