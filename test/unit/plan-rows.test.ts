// A plan's rows as runRows and outFileProblems take them, called directly against the reference server and a
// real journal: a row another run delivered meanwhile, what a row's intent records, a row refused before its
// charge, a failed order, and the out-file check that lets a row's own earlier file through.
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { OutLock } from '../../src/export/out-lock.js';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { keyIdOf } from '../../src/journal/intent.js';
import type { Journal } from '../../src/journal/journal.js';
import { Io } from '../../src/output/io.js';
import { endedRecord } from '../../src/orders/lifecycle.js';
import { outFileProblems, runRows, type PlanRow, type RowOptions } from '../../src/orders/plan.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServers, KEY } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {}, failing: { failOrders: 1 }, slow: { fulfilAfterMs: 2600 } });
const DEAD = { pid: 999_999_999 };

const row = (n: number, key: string, out?: string): PlanRow => ({
  row: n,
  productId: 'amazon-us-25',
  quantity: 2,
  key,
  legacyKey: `legacy-${key}`,
  ...(out ? { out } : {}),
});

/** runRows on `url` with a journal, counting the POSTs; the out locks released after. */
async function run(
  rows: PlanRow[],
  o: Partial<RowOptions> & {
    journal?: Journal;
    url?: string;
    pages?: () => AsyncGenerator<unknown[]>;
    io?: { io: Io; err: () => string };
  } = {},
): Promise<{ results: Awaited<ReturnType<typeof runRows>>['results']; journal: Journal; err: string; posts: number }> {
  const journal = o.journal ?? freshJournal();
  const url = o.url ?? servers.server.url;
  const real = clientOf(url);
  let posts = 0;
  const api = Object.assign(Object.create(real) as ApiClient, {
    createOrder: (body: string, key: string) => (posts++, real.createOrder(body, key)),
    ...(o.pages ? { codePages: o.pages, rawCodePages: o.pages } : {}),
  });
  const c = o.io ?? capturedIo();
  const locks = new Map<string, OutLock>();
  const connection = {
    profile: 'default',
    environment: 'test' as const,
    apiKey: KEY,
    baseUrl: url,
    keySource: 'flag' as const,
  };
  try {
    const { results } = await runRows(
      rows,
      new Map(),
      { concurrency: 1, interval: 0.01, ...o },
      { io: c.io, api, journal, signal: new AbortController().signal, connection },
      locks,
    );
    return { results, journal, err: c.err(), posts };
  } finally {
    for (const lock of locks.values()) lock.release();
  }
}

const spec = () => ({
  profile: 'default',
  environment: 'test' as const,
  baseUrl: servers.server.url,
  keyId: keyIdOf(KEY),
  productId: 'amazon-us-25',
  quantity: 2,
});

describe('runRows', () => {
  it('a row another run delivered meanwhile is read, never ordered again; its interrupted intent ends; the notice names its order, its codes file and when it reached the user', async () => {
    const journal = freshJournal();
    // A minute ago (older records are pruned), and not when the intent was last saved.
    const endedAt = Date.now() - 60_000;
    const when = new Date(endedAt).toISOString();
    const delivered = async (key: string, out?: string, recordedStatus?: string): Promise<string> => {
      const { order } = await clientOf(servers.server.url).createOrder(
        JSON.stringify({ product_id: 'amazon-us-25', quantity: 2 }),
        key,
      );
      const { intent } = await journal.begin({
        ...spec(),
        key,
        ...(out ? { out: { path: out, force: false, csvRaw: false } } : {}),
      });
      const accepted = journal.save({
        ...intent,
        phase: 'accepted',
        orderId: order.id,
        status: recordedStatus ?? order.status,
        owner: DEAD,
      });
      // The other run recorded the delivery, then was killed before its intent ended.
      await journal.recordDelivery([endedRecord(accepted, 'delivered', endedAt)]);
      return order.id;
    };
    const path = join(tempDir(), 'a.csv');
    // The file as that run left it (written when it ended): named as holding the codes.
    writeFileSync(path, 'order_id,code\n');
    utimesSync(path, new Date(endedAt), new Date(endedAt));
    const withFile = await delivered('plan-row-1', path);
    // Recorded with a status the server no longer gives: the run reads it again, says it, and notes it.
    const plain = await delivered('plan-row-2', undefined, 'processing');
    // The run started before those deliveries: they are not in its list of delivered rows.
    const { results, err, posts } = await run([row(1, 'plan-row-1', path), row(2, 'plan-row-2')], { journal });
    expect(posts).toBe(0);
    expect(results.map((r) => [r.already, r.order?.id, r.out])).toEqual([
      [true, withFile, path],
      [true, plain, undefined],
    ]);
    expect(journal.read().intents).toEqual([]);
    const notices = err.split('\n').filter((line) => line.includes('by an earlier run'));
    // A row whose codes went to no file was ordered, not delivered: said with the status it has now, read again
    // (what the table shows; a review found "pending when last read" above a table saying completed).
    const now = results[1]!.order!.status;
    expect(now).not.toBe('processing');
    expect(notices.map((line) => line.replace(/^\S+ /, ''))).toEqual([
      `row 1: delivered by an earlier run at ${when} (order ${withFile}, its codes in ${path}); not ordered again`,
      `row 2: ordered by an earlier run at ${when} (order ${plain}, ${now} now); not ordered again`,
    ]);
    // And it becomes the record's, as order show notes what it reads: order list says what the table said.
    const scope = { baseUrl: servers.server.url, environment: 'test' as const, keyId: keyIdOf(KEY) };
    expect(journal.history.get('plan-row-2', scope)?.status).toBe(now);
  });

  it('a row an earlier run ordered, its order out of reach now: said with the status it had when last read, the record kept', async () => {
    const journal = freshJournal();
    const endedAt = Date.now() - 60_000;
    const { intent } = await journal.begin({ ...spec(), baseUrl: 'http://127.0.0.1:9', key: 'plan-gone-1' });
    const accepted = journal.save({
      ...intent,
      phase: 'accepted',
      orderId: 'ord_gone',
      status: 'pending',
      owner: DEAD,
    });
    await journal.recordDelivery([endedRecord(accepted, 'delivered', endedAt)]);
    const { results, err, posts } = await run([row(1, 'plan-gone-1')], { journal, url: 'http://127.0.0.1:9' });
    expect(posts).toBe(0);
    expect(results[0]).toMatchObject({ already: true, order: { id: 'ord_gone', status: 'pending' } });
    expect(err).toContain(
      `row 1: ordered by an earlier run at ${new Date(endedAt).toISOString()} (order ord_gone, pending when last read); not ordered again`,
    );
    const scope = { baseUrl: 'http://127.0.0.1:9', environment: 'test' as const, keyId: keyIdOf(KEY) };
    expect(journal.history.get('plan-gone-1', scope)?.status).toBe('pending');
  });

  it("each row's intent records whether a resume waits for its order: with --wait every row, without it only a row with a codes file; a first run says nothing of resuming", async () => {
    const dir = tempDir();
    const rows = [row(1, 'plan-w-1'), row(2, 'plan-w-2', join(dir, 'b.json'))];
    const plain = await run(rows);
    expect(plain.results.map((r) => r.error)).toEqual([undefined, undefined]);
    expect(plain.journal.find('plan-w-1')?.wait).toBeUndefined();
    expect(plain.journal.find('plan-w-2')?.wait).toBe(true);
    expect(plain.err).not.toContain('resuming');
    const waiting = await run([row(1, 'plan-w-3')], { wait: true });
    expect(waiting.journal.find('plan-w-3')?.wait).toBe(true);
  });

  it('a row whose out file appeared after the check is refused before its charge (nothing sent, no intent), the other rows placed', async () => {
    const path = join(tempDir(), 'taken.json');
    writeFileSync(path, 'theirs\n');
    const { results, journal, posts } = await run([row(1, 'plan-t-1', path), row(2, 'plan-t-2')]);
    expect(results[0]!.error).toMatchObject({ code: 'out_exists', exitCode: 2 });
    expect(journal.find('plan-t-1')).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
    expect(results[1]!.error).toBeUndefined();
    expect(posts).toBe(1);
  });

  it('a row killed after its codes file took its place: the same plan again finds that file as its own, writes nothing and orders nothing', async () => {
    const path = join(tempDir(), 'mine.json');
    const first = await run([row(1, 'plan-k-1', path)]);
    expect(first.results[0]).toMatchObject({ count: 2 });
    const written = readFileSync(path, 'utf8');
    // Killed before its summary: the intent is still in the journal, its file recorded.
    expect(first.journal.find('plan-k-1')?.files).toHaveLength(1);
    const again = await run([row(1, 'plan-k-1', path)], { journal: first.journal });
    expect(again.results[0]!.error).toBeUndefined();
    expect(again.results[0]).toMatchObject({ count: 2, order: { id: first.results[0]!.order!.id } });
    expect(again.posts).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(written);
  });

  it('a row with an interrupted intent but no file of its own: a file at its out path refuses it before its charge', async () => {
    const journal = freshJournal();
    const path = join(tempDir(), 'theirs.json');
    const { intent } = await journal.begin({ ...spec(), key: 'plan-i-1', out: { path, force: false, csvRaw: false } });
    journal.save({ ...intent, owner: DEAD });
    writeFileSync(path, 'theirs\n');
    const { results, posts } = await run([row(1, 'plan-i-1', path)], { journal });
    expect(results[0]!.error).toMatchObject({ code: 'out_exists' });
    expect(posts).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
  });

  it("a file that appears at a row's out path while its codes are fetched is never overwritten without --force", async () => {
    const path = join(tempDir(), 'late.json');
    async function* pages(): AsyncGenerator<unknown[]> {
      yield [{ code: 'A-1' }];
      writeFileSync(path, 'theirs\n');
      yield [{ code: 'A-2' }];
    }
    const { results } = await run([row(1, 'plan-l-1', path)], { pages });
    expect(results[0]!.error).toMatchObject({ code: 'out_exists' });
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
  });

  it("a row's CSV codes file escapes a code that reads as a formula, as order place --out does", async () => {
    const path = join(tempDir(), 'codes.csv');
    async function* pages(): AsyncGenerator<unknown[]> {
      yield [{ code: '=HYPERLINK("x")' }, { code: 'A-2' }];
    }
    const { results } = await run([row(1, 'plan-c-1', path)], { pages });
    expect(results[0]!.error).toBeUndefined();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain(`'=HYPERLINK`);
    expect(text).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it('on a terminal the rows are counted on one progress line, which ends at the total and is cleared at the end', async () => {
    const terminal = capturedIo({ stderrIsTTY: true });
    const { results } = await run([row(1, 'plan-p-1')], { io: terminal });
    const err = terminal.err();
    expect(results[0]!.error).toBeUndefined();
    const drawn = err.split('\r').filter((line) => line.startsWith('plan: '));
    expect(drawn[0]).toMatch(/^plan: 0 of 1 rows\b/);
    expect(drawn.at(-1)).toMatch(/^plan: 1 of 1 rows \(100%\)/);
    expect(err.endsWith('\r\x1b[K')).toBe(true);
  });

  // A person's day: `plan: 0 of 200 rows (0%)` stood unchanged for 40 s while the orders were pending, and looked frozen.
  it('on a terminal a wait on the API is said on the line, with how long it has lasted', async () => {
    const terminal = capturedIo({ stderrIsTTY: true });
    const { results } = await run([row(1, 'plan-w-1')], { io: terminal, url: servers.slow.url, wait: true });
    expect(results[0]!.error).toBeUndefined();
    expect(terminal.err()).toMatch(/plan: 0 of 1 rows \(0%\), rows waiting on the API \([12] s\)/);
  });

  // A second run (a cron job's plan) holding the journal: "rows waiting on the API" sent a person to the server.
  it("on a terminal a wait on another run's hold of the journal is said as that, not as the API", async () => {
    const journal = freshJournal();
    mkdirSync(join(journal.dir, '.lock'));
    // Held by this test's parent: a live process that is not this one.
    writeFileSync(join(journal.dir, '.lock', 'owner'), JSON.stringify({ pid: process.ppid }));
    const freed = setTimeout(() => rmSync(join(journal.dir, '.lock'), { recursive: true }), 2600);
    try {
      const terminal = capturedIo({ stderrIsTTY: true });
      const { results } = await run([row(1, 'plan-lw-1')], { io: terminal, journal });
      expect(results[0]!.error).toBeUndefined();
      const err = terminal.err();
      expect(err).toMatch(/plan: 0 of 1 rows \(0%\), another giftcodes run holds the journal \([12] s\)/);
      expect(err).not.toContain('waiting on the API');
    } finally {
      clearTimeout(freed);
    }
  });

  it("a row whose order failed is the row's failure, exit 6, with the order", async () => {
    const { results } = await run([row(1, 'plan-f-1')], { url: servers.failing.url });
    expect(results[0]!.order?.status).toBe('failed');
    expect(results[0]!.error).toMatchObject({ exitCode: 6 });
  });
});

describe('outFileProblems', () => {
  it("a row whose interrupted intent's own codes file is at its out path passes; another intent's, a changed file, or none is refused naming the line", async () => {
    const journal = freshJournal();
    const path = join(tempDir(), 'a.json');
    writeFileSync(path, '[{"code":"A-1"}]\n');
    // Another interrupted row first, with no file of its own.
    await journal.begin({ ...spec(), key: 'plan-other' });
    const { intent } = await journal.begin({ ...spec(), key: 'plan-own' });
    journal.save({ ...intent, phase: 'accepted', orderId: 'ord_own', files: [fileIdentity(path, 'ord_own', path)] });
    await expect(outFileProblems([row(3, 'plan-own', path)], new Map(), journal, false)).resolves.toEqual([]);
    await expect(outFileProblems([row(4, 'plan-other', path)], new Map(), journal, false)).resolves.toMatchObject([
      { row: 4, error: { code: 'out_exists', message: expect.stringMatching(/^line 4: \S+ exists$/) as string } },
    ]);
    await expect(outFileProblems([row(5, 'plan-none', path)], new Map(), journal, false)).resolves.toMatchObject([
      { row: 5, error: { code: 'out_exists' } },
    ]);
    writeFileSync(path, '[{"code":"B-2"}]\n');
    await expect(outFileProblems([row(3, 'plan-own', path)], new Map(), journal, false)).resolves.toMatchObject([
      { row: 3, error: { code: 'out_exists' } },
    ]);
  });

  it("a row's out cell naming no directory, or a directory: the hint names the out cell, never a plan's absent --out", async () => {
    const journal = freshJournal();
    const dir = tempDir();
    const problems = await outFileProblems(
      [row(2, 'plan-nodir', join(dir, 'nodir', 'x.csv')), row(3, 'plan-dir', dir)],
      new Map(),
      journal,
      false,
    );
    expect(problems).toMatchObject([
      {
        row: 2,
        error: {
          code: 'out_not_writable',
          hint: "create that directory first, or name another path in the row's out cell",
        },
      },
      { row: 3, error: { code: 'out_is_directory', hint: 'give a file name in the out column, e.g. codes.csv' } },
    ]);
    for (const p of problems) expect(JSON.stringify(p)).not.toContain('--out');
  });
});
