// The order record's line files on disk: a new file's directory entry made durable once (an existing file's
// never again), nothing made for no record, one key's line never read as another's, and prune's once-a-day
// mark judged by the clock as it is now (issue 33). From two adversarial reviews: prune's mark never written
// through a link planted at its name (the line files are opened O_NOFOLLOW for that reason), and a line file
// prune made again with the lines it carried over has its directory entry made durable.
import * as fs from 'node:fs';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as atomic from '../../src/files/atomic.js';
import { History, type OrderRecord } from '../../src/journal/history.js';
import { tempDir } from '../helpers/e2e.js';
import { recordAt as rec } from '../helpers/journal.js';

/** Run once, just before prune unlinks a line file: another process's append, as it would come meanwhile. */
const atUnlink: { hook?: ((file: string) => void) | undefined } = {};
vi.mock('node:fs', async (original) => {
  const actual = await original<typeof import('node:fs')>();
  return {
    ...actual,
    unlinkSync: vi.fn((path: fs.PathLike) => {
      if (String(path).endsWith('.jsonl') && atUnlink.hook) {
        const hook = atUnlink.hook;
        atUnlink.hook = undefined;
        hook(String(path));
      }
      return actual.unlinkSync(path);
    }),
  };
});

vi.mock('../../src/files/atomic.js', async (original) => {
  const actual = await original<typeof import('../../src/files/atomic.js')>();
  return {
    ...actual,
    fsyncDirectory: vi.fn(actual.fsyncDirectory),
    syncDirectory: vi.fn(actual.syncDirectory),
  };
});

const AT = '2026-01-01T00:00:00.000Z';
const SCOPE = { baseUrl: 'http://127.0.0.1:1', environment: 'test' as const, keyId: 'k1' };
const bucket = (k: string): string => createHash('sha256').update(k).digest('hex').slice(0, 2);
/** Keys whose records share one line file. */
const sameFile = (n: number): string[] =>
  Array.from({ length: 5000 }, (_, i) => `k${i}`)
    .filter((k) => bucket(k) === bucket('k0'))
    .slice(0, n);
const newHistory = (): History => new History(join(mkdtempSync(join(tmpdir(), 'hist-')), 'history'));
const dirSyncs = (dir: string): number =>
  [...vi.mocked(atomic.fsyncDirectory).mock.calls, ...vi.mocked(atomic.syncDirectory).mock.calls].filter(
    ([path]) => path === dir,
  ).length;

const DAY = 86_400_000;
const NOW = Date.parse('2026-04-01T00:00:00.000Z');

beforeEach(() => {
  atUnlink.hook = undefined;
  vi.mocked(atomic.fsyncDirectory).mockClear();
  vi.mocked(atomic.syncDirectory).mockClear();
});

describe("a line file's directory entry", () => {
  it('is made durable when a record makes the file, one by one or in a batch, and not again for the next records', async () => {
    const h = newHistory();
    const [a, b, c] = sameFile(3);
    h.record(rec(a!, AT));
    expect(dirSyncs(h.dir)).toBe(1);
    h.record(rec(b!, AT));
    await h.recordAll([rec(c!, AT)]);
    expect(dirSyncs(h.dir)).toBe(1);
    // A batch that makes two files and appends to a third: one fsync of the directory for all.
    const fresh = ['x1', 'x2'].filter((k) => bucket(k) !== bucket('k0') && bucket('x1') !== bucket('x2'));
    expect(fresh).toHaveLength(2);
    await h.recordAll([rec('x1', AT), rec('x2', AT), rec(a!, AT)]);
    expect(dirSyncs(h.dir)).toBe(2);
    await h.recordAll([rec('x1', AT), rec(b!, AT)]);
    expect(dirSyncs(h.dir)).toBe(2);
  });

  it('a batch of no records writes nothing, not even the directory', async () => {
    const h = newHistory();
    await h.recordAll([]);
    expect(existsSync(h.dir)).toBe(false);
  });
});

describe('a line file holds other keys too', () => {
  it("get reads only the key's own lines, in its scope", () => {
    const h = newHistory();
    const [a, b] = sameFile(2);
    h.record(rec(a!, AT, { orderId: 'ord_a' }));
    expect(h.get(b!, SCOPE)).toBeUndefined();
    h.record(rec(b!, AT, { orderId: 'ord_b', environment: 'live' }));
    expect(h.get(a!, SCOPE)?.orderId).toBe('ord_a');
    expect(h.get(b!, SCOPE)).toBeUndefined();
    expect(h.get(b!, { ...SCOPE, environment: 'live' })?.orderId).toBe('ord_b');
  });
});

describe("prune's once-a-day mark", () => {
  const day = 86_400_000;
  const now = Date.parse('2026-04-01T00:00:00.000Z');

  it('prunes again exactly a day after, and at once when the mark is dated after now (a clock set back)', () => {
    const h = newHistory();
    h.record(rec('first', new Date(now - 10 * day).toISOString()));
    h.prune(5, now);
    expect(h.list()).toEqual([]);
    h.record(rec('day-later', new Date(now - 10 * day).toISOString()));
    h.prune(5, now + day);
    expect(h.list()).toEqual([]);
    // The mark says now + day; the clock now says a day before that.
    h.record(rec('clock-back', new Date(now - 10 * day).toISOString()));
    h.prune(5, now);
    expect(h.list()).toEqual([]);
  });

  it('a mark of other days, or of no days, does not count', () => {
    const h = newHistory();
    h.record(rec('seed', new Date(now).toISOString()));
    writeFileSync(join(h.dir, '.pruned'), 'soon\n');
    utimesSync(join(h.dir, '.pruned'), now / 1000, now / 1000);
    h.record(rec('old', new Date(now - 10 * day).toISOString()));
    h.prune(5, now + 1);
    expect(h.list().map((r) => r.key)).toEqual(['seed']);
  });

  it("prunes an older version's one-file records by their age, and leaves the rest of its files", () => {
    const h = newHistory();
    h.record(rec('seed', new Date(now).toISOString()));
    const legacy = (name: string, r: OrderRecord): void => writeFileSync(join(h.dir, name), JSON.stringify(r));
    legacy('a'.repeat(40) + '.json', rec('legacy-old', new Date(now - 10 * day).toISOString()));
    legacy('b'.repeat(40) + '.json', rec('legacy-new', new Date(now - day).toISOString()));
    legacy('c'.repeat(40) + '.json', rec('legacy-edge', new Date(now - 5 * day).toISOString()));
    writeFileSync(join(h.dir, 'notes.jsonx'), JSON.stringify(rec('not-a-record-file', new Date(0).toISOString())));
    h.prune(5, now);
    expect(readdirSync(h.dir).sort()).toEqual(
      ['.pruned', 'b'.repeat(40) + '.json', 'c'.repeat(40) + '.json', `${bucket('seed')}.jsonl`, 'notes.jsonx'].sort(),
    );
    // The mark: private, dated now (the clock the prune was given), naming its days.
    const mark = statSync(join(h.dir, '.pruned'));
    expect(mark.mode & 0o777).toBe(0o600);
    expect(mark.mtimeMs).toBe(now);
    expect(readFileSync(join(h.dir, '.pruned'), 'utf8')).toBe('5\n');
  });
});

describe("prune's once-a-day mark and a link planted at its name", () => {
  it('a codes file that history/.pruned links to keeps its codes (the mark is never written through a link)', () => {
    const config = tempDir();
    const dir = join(config, 'history');
    const codes = join(config, 'codes-ord_1.csv');
    writeFileSync(codes, 'code\nAAAA-BBBB-CCCC\n');
    const h = new History(dir);
    h.record(rec('seed', new Date(NOW).toISOString()));
    symlinkSync(codes, join(dir, '.pruned'));
    h.prune(90, NOW);
    expect(readFileSync(codes, 'utf8')).toBe('code\nAAAA-BBBB-CCCC\n');
  });
});

describe('lines prune carries over into a line file it had removed', () => {
  it('make the file again with its directory entry fsynced: a delivery record appended to it later is not lost with the entry', async () => {
    const dir = join(tempDir(), 'history');
    mkdirSync(dir, { recursive: true });
    const h = new History(dir);
    const [old, noted, delivered] = Array.from({ length: 3000 }, (_, i) => `k${i}`).filter(
      (k) => bucket(k) === bucket('k0'),
    );
    const file = join(dir, `${bucket('k0')}.jsonl`);
    h.record(rec(old!, new Date(NOW - 100 * DAY).toISOString()));
    // Every record of the file is old: prune removes it. Just before, `order show` (no lock) notes a status.
    atUnlink.hook = (path) =>
      appendFileSync(
        path,
        `${JSON.stringify(rec(noted!, new Date(NOW - DAY).toISOString(), { orderId: 'ord_n', status: 'completed' }))}\n`,
      );
    vi.mocked(atomic.fsyncDirectory).mockClear();
    h.prune(90, NOW);
    expect(existsSync(file)).toBe(true); // made again by the carried-over line
    // The next delivery record of that file, under the lock: appended and fdatasynced, the file's entry already there.
    await h.recordAll([rec(delivered!, new Date(NOW).toISOString(), { orderId: 'ord_d' })]);
    expect(
      new History(dir).get(delivered!, { baseUrl: 'http://127.0.0.1:1', environment: 'test', keyId: 'x' })?.orderId,
    ).toBe('ord_d');
    // The file was made after prune's unlink, and no fsync of history/ followed: a power cut loses it, and with it
    // the delivery record the journal has already ended on.
    expect(dirSyncs(dir)).toBeGreaterThan(0);
  });
});
