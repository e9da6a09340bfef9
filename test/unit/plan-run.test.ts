// runPlan in-process, against the reference server, with its narrow dependencies given (the connection,
// journal and client): one order per row, a re-run orders nothing more, the worst row's exit.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { InterruptedError, NetworkError, type CliError } from '../../src/errors.js';
import { runPlan, type PlaceDeps } from '../../src/commands/order/place.js';
import { Journal } from '../../src/journal/journal.js';
import { isLogName } from '../../src/journal/log.js';
import type { PlanResult } from '../../src/orders/plan.js';
import { type RunningServer } from '../../src/server/index.js';
import { tempDir } from '../helpers/e2e.js';
import { dead } from '../helpers/journal.js';
import { capturedIo, clientOf, freshJournal, inProcessServer, KEY } from '../helpers/inprocess.js';

let server: RunningServer;
beforeAll(async () => {
  server = await inProcessServer();
});
afterAll(async () => {
  await server.close();
});

interface Harness {
  deps: PlaceDeps;
  journal: Journal;
  out: () => string;
  err: () => string;
  posts: () => number;
  reads: () => number;
}

function harness(
  o: {
    json?: boolean;
    environment?: 'test' | 'live';
    journal?: Journal;
    url?: string;
    controller?: AbortController;
    onPost?: (inFlight: number, key: string) => void;
    /** The catalog cannot be read: the rows go unchecked before sending, and an unknown product is the API's refusal. */
    catalogUnreadable?: boolean;
    /** Every read of an order fails with this error (after `readDelayMs`); `reads` counts them. */
    getOrderFails?: Error | (() => Error);
    readDelayMs?: number;
    /** stderr is a terminal: the summary table says each row, and no status line is logged. */
    stderrIsTTY?: boolean;
    /** Every POST reaches the server, and its answer is lost (a reset): the order exists, the row cannot know it. */
    answerLost?: boolean;
  } = {},
): Harness {
  const { io, out, err } = capturedIo({ json: o.json ?? true, stderrIsTTY: o.stderrIsTTY === true });
  const journal = o.journal ?? freshJournal();
  const real = clientOf(o.url ?? server.url);
  let posts = 0;
  let inFlight = 0;
  const createOrder = async (body: string, key: string): ReturnType<ApiClient['createOrder']> => {
    posts++;
    o.onPost?.(++inFlight, key);
    try {
      const created = await real.createOrder(body, key);
      if (o.answerLost) throw new NetworkError('POST /v1/orders failed: the connection was reset');
      return created;
    } finally {
      inFlight--;
    }
  };
  let reads = 0;
  const api = Object.assign(Object.create(real) as ApiClient, {
    createOrder,
    ...(o.getOrderFails
      ? {
          getOrder: async () => {
            reads++;
            await new Promise((resolve) => setTimeout(resolve, o.readDelayMs ?? 0));
            throw typeof o.getOrderFails === 'function' ? o.getOrderFails() : o.getOrderFails!;
          },
        }
      : {}),
    ...(o.catalogUnreadable ? { listProducts: () => Promise.reject(new Error('the catalog cannot be read')) } : {}),
  });
  const j = journal;
  const deps: PlaceDeps = {
    io,
    configDir: '/nonexistent',
    signal: (o.controller ?? new AbortController()).signal,
    connection: () =>
      Promise.resolve({
        environment: o.environment ?? 'test',
        profile: 'default',
        baseUrl: o.url ?? server.url,
        apiKey: KEY,
        keySource: 'environment',
      }),
    journal: () => Promise.resolve(j),
    api: () => Promise.resolve(api),
  };
  return { deps, journal: j, out, err, posts: () => posts, reads: () => reads };
}

/** A plan file holding `text`, in `dir` (a new temporary directory unless given). */
function plan(text: string, dir = tempDir()): string {
  const path = join(dir, `plan-${randomUUID()}.csv`);
  writeFileSync(path, text);
  return path;
}

describe('runPlan', () => {
  it('one order per row, codes to the row out file; the same plan again orders nothing more', async () => {
    const path = plan('product,quantity,out\namazon-us-25,2,a.csv\nsteam-us-20,1\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 2 }, first.deps);
    const results = JSON.parse(first.out()) as PlanResult[];
    expect(results.map((r) => [r.row, r.productId, r.quantity, r.order?.status, r.count])).toEqual([
      [2, 'amazon-us-25', 2, 'completed', 2],
      [3, 'steam-us-20', 1, expect.any(String), undefined],
    ]);
    expect(results[0]!.out).toBe(join(path, '..', 'a.csv'));
    expect(
      readFileSync(join(path, '..', 'a.csv'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(3);
    expect(first.posts()).toBe(2);
    expect(first.journal.read().intents).toEqual([]);
    expect(first.journal.history.list().map((r) => r.outcome)).toEqual(['delivered', 'delivered']);
    const again = harness({ journal: first.journal });
    await runPlan({ plan: path, concurrency: 1 }, again.deps);
    expect(again.posts()).toBe(0);
    const second = JSON.parse(again.out()) as PlanResult[];
    expect(second.map((r) => [r.already, r.order?.id])).toEqual(results.map((r) => [true, r.order?.id]));
  });

  it('--dry-run sends nothing and says so per row', async () => {
    const h = harness({ json: false });
    await runPlan({ plan: plan('amazon-us-25,2\n'), dryRun: true, concurrency: 1 }, h.deps);
    await h.deps.io.flushOut();
    expect(h.posts()).toBe(0);
    // The row's status is short (the summary line says nothing was sent): at 80 columns its room goes to the files.
    expect(h.out()).not.toContain('not sent');
    expect(h.err()).toContain('dry run: 1 order, 2 codes, 50.00 USD in all; nothing was sent');
    // Priced from the catalog (issue 30): the unit price and the row's amount.
    expect(h.out()).toMatch(
      /^ROW +PRODUCT +QTY +UNIT PRICE +AMOUNT +STATUS +KEY +OUT\n1 +amazon-us-25 +2 +25\.00 USD +50\.00 USD +dry run +plan-[0-9a-f]{24}\n$/,
    );
  });

  // A person's day: a 20,000-code row read QTY 20000 above a summary line that said 20,000 codes.
  it("--dry-run's table groups a quantity's thousands, as its summary line does", async () => {
    const h = harness({ json: false });
    await runPlan({ plan: plan('amazon-us-25,1500\n'), dryRun: true, concurrency: 1 }, h.deps);
    await h.deps.io.flushOut();
    expect(h.out()).toMatch(/^1 +amazon-us-25 +1,500 +25\.00 USD +37,500\.00 USD /m);
    expect(h.err()).toContain('1,500 codes');
  });

  // A review: asking whether last night's plan finished, with the server down, waited out the catalog's retries and
  // read that the products were not checked, of a plan that orders nothing.
  it('--dry-run of a plan every row of which an earlier run delivered reads no catalog, and says it orders nothing', async () => {
    const path = plan('product,quantity\namazon-us-25,2\nsteam-us-20,1\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 2 }, first.deps);
    expect(first.posts()).toBe(2);
    const dry = harness({ json: false, journal: first.journal, catalogUnreadable: true });
    await runPlan({ plan: path, dryRun: true, concurrency: 1 }, dry.deps);
    await dry.deps.io.flushOut();
    expect(dry.posts()).toBe(0);
    expect(dry.err()).not.toContain('not checked against the catalog');
    expect(dry.err()).toContain(
      'dry run: 0 orders, 0 codes (2 rows an earlier run delivered, not ordered again); nothing was sent',
    );
    // A row added that no run delivered: the catalog is read again, and its failure said.
    writeFileSync(path, 'product,quantity\namazon-us-25,2\nsteam-us-20,1\nsteam-us-20,3\n');
    const more = harness({ json: false, journal: first.journal, catalogUnreadable: true });
    await runPlan({ plan: path, dryRun: true, concurrency: 1 }, more.deps);
    expect(more.err()).toContain('the products were not checked against the catalog: the catalog cannot be read');
  });

  // A cron log's table read QTY 1,500 beside `a.csv (1500)`, the same number written two ways on one row.
  it("the table's count of codes written beside a row's file is grouped as its QTY is", async () => {
    const h = harness({ json: false });
    await runPlan({ plan: plan('product,quantity,out\namazon-us-25,1500,a.csv\n'), concurrency: 1 }, h.deps);
    await h.deps.io.flushOut();
    expect(h.out()).toMatch(/^2 +amazon-us-25 +1,500 .*\ba\.csv \(1,500\)$/m);
  });

  it("--dry-run refuses a row's codes file as the run would: a format no extension names, a file already there", async () => {
    const dir = tempDir();
    const at = (text: string): string => plan(text, dir);
    const refusal = (path: string, force = false): Promise<unknown> =>
      runPlan({ plan: path, dryRun: true, concurrency: 1, force }, harness({ json: false }).deps).catch(
        (e: unknown) => e,
      );
    const xls = await refusal(at('product,quantity,out\namazon-us-25,1,a.csv\nsteam-us-20,3,z.xls\n'));
    expect(xls).toMatchObject({ exitCode: 2 });
    expect((xls as Error).message).toMatch(/^line 3: .*z\.xls: the extension \.xls names no format giftcodes writes/);
    writeFileSync(join(dir, 'kept.csv'), 'codes of an earlier order\n');
    const kept = at('product,quantity,out\namazon-us-25,1,kept.csv\n');
    const exists = await refusal(kept);
    expect(exists).toMatchObject({ exitCode: 2 });
    expect((exists as Error).message).toMatch(/^line 2: .*kept\.csv.*nothing was ordered$/);
    expect(await refusal(kept, true)).toBeUndefined();
    // Without a key (no scope, no journal): a format no extension names is still refused, a file already there is not.
    const keyless = (path: string): Promise<unknown> => {
      const h = harness({ json: false });
      const deps = { ...h.deps, connection: () => Promise.reject(new Error('no key')) };
      return runPlan({ plan: path, dryRun: true, concurrency: 1 }, deps).catch((e: unknown) => e);
    };
    expect(await keyless(at('product,quantity,out\namazon-us-25,1,z.xls\n'))).toMatchObject({ exitCode: 2 });
    expect(await keyless(kept)).toBeUndefined();
    // A row this plan already delivered keeps its file: the dry run passes it, as the run does.
    const done = at('product,quantity,out\namazon-us-25,1,done.csv\n');
    const first = harness();
    await runPlan({ plan: done, concurrency: 1 }, first.deps);
    const again = harness({ json: false, journal: first.journal });
    await runPlan({ plan: done, dryRun: true, concurrency: 1 }, again.deps);
    expect(again.posts()).toBe(0);
  });

  it('a nightly plan: each --batch writes its own {batch} file; a fixed name is refused the next night, naming its order', async () => {
    const dir = tempDir();
    const at = (text: string): string => plan(text, dir);
    const journal = freshJournal();
    const nightly = at('product,quantity,out\namazon-us-25,1,amazon-{batch}.csv\n');
    let posts = 0;
    let last = '';
    for (const batch of ['2026-11-29', '2026-11-30', '2026-11-30']) {
      const h = harness({ journal, json: false });
      await runPlan({ plan: nightly, batch, concurrency: 1 }, h.deps);
      await h.deps.io.flushOut();
      posts += h.posts();
      last = h.out();
    }
    expect(posts).toBe(2);
    // The same night again: its row says first that an earlier run ordered it.
    expect(last).toMatch(/ earlier run: completed /);
    // And so does that night's dry run, which counts nothing to order.
    const dry = harness({ journal, json: false });
    await runPlan({ plan: nightly, batch: '2026-11-30', dryRun: true, concurrency: 1 }, dry.deps);
    await dry.deps.io.flushOut();
    expect(dry.out()).toMatch(/ earlier run: completed /);
    expect(dry.out()).not.toMatch(/ dry run /);
    expect(dry.err()).toContain(
      'dry run: 0 orders, 0 codes (1 row an earlier run delivered, not ordered again); nothing was sent',
    );
    // The row edited the same night: its {batch} file holds the first version's codes, and the hint says why.
    writeFileSync(nightly, 'product,quantity,out\namazon-us-25,2,amazon-{batch}.csv\n');
    const edited = await runPlan(
      { plan: nightly, batch: '2026-11-30', concurrency: 1 },
      harness({ journal }).deps,
    ).catch((e: unknown) => e);
    expect(edited).toMatchObject({ exitCode: 2, code: 'out_exists' });
    expect((edited as CliError).hint).toMatch(/^this batch's row changed since that order wrote its codes/);
    expect(readFileSync(join(dir, 'amazon-2026-11-29.csv'), 'utf8')).toMatch(/^order_id,code,/);
    expect(readFileSync(join(dir, 'amazon-2026-11-30.csv'), 'utf8')).toMatch(/^order_id,code,/);
    // The plan the docs once showed: one file name for every night.
    const fixed = at('product,quantity,out\namazon-us-25,1,amazon-25.csv\n');
    const first = harness({ journal });
    await runPlan({ plan: fixed, batch: '2026-11-29', concurrency: 1 }, first.deps);
    const orderId = (JSON.parse(first.out()) as PlanResult[])[0]!.order!.id;
    const next = harness({ journal });
    const error = await runPlan({ plan: fixed, batch: '2026-11-30', concurrency: 1 }, next.deps).catch(
      (e: unknown) => e,
    );
    expect(next.posts()).toBe(0);
    expect(error).toMatchObject({ exitCode: 2, code: 'out_exists' });
    expect((error as Error).message).toMatch(
      new RegExp(
        `^line 2: .*amazon-25\\.csv exists and holds the codes of order ${orderId} \\(written \\S+\\); nothing was ordered$`,
      ),
    );
    expect((error as CliError).hint).toBe(
      'give each batch a file of its own: {batch} in the out column (amazon-25-{batch}.csv) is the --batch name; or move the file away (--force would overwrite those codes)',
    );
    // A file already there that no order here wrote: refused as any other, naming no order.
    writeFileSync(join(dir, 'foreign.csv'), 'not ours\n');
    const foreign = await runPlan(
      { plan: at('product,quantity,out\namazon-us-25,1,foreign.csv\n'), batch: '2026-11-30', concurrency: 1 },
      harness({ journal }).deps,
    ).catch((e: unknown) => e);
    expect(foreign).toMatchObject({ exitCode: 2, code: 'out_exists' });
    expect((foreign as Error).message).not.toContain('holds the codes');
    expect((foreign as CliError).hint).not.toContain('{batch}');
  });

  // A walkthrough's cron night: a one-off plan beside the nightly one, the same --batch and out cells, was told "this
  // batch's row changed since that order wrote its codes" (its quantity differed), of a row this plan never had.
  it("another plan's codes file: the hint names that plan, not a changed row of this one", async () => {
    const dir = tempDir();
    const journal = freshJournal();
    const nightly = join(dir, 'nightly.csv');
    writeFileSync(nightly, 'product,quantity,out\namazon-us-25,1,amazon-{batch}.csv\n');
    await runPlan({ plan: nightly, batch: 'b1', concurrency: 1 }, harness({ journal }).deps);
    const big = join(dir, 'big.csv');
    writeFileSync(big, 'product,quantity,out\namazon-us-25,2,amazon-{batch}.csv\n');
    const next = harness({ journal });
    const error = await runPlan({ plan: big, batch: 'b1', concurrency: 1 }, next.deps).catch((e: unknown) => e);
    expect(next.posts()).toBe(0);
    expect(error).toMatchObject({ exitCode: 2, code: 'out_exists' });
    expect((error as CliError).hint).toBe(
      "that file holds the codes of a row of another plan, nightly.csv (--batch b1), not of big.csv: give this plan's out cells names of their own, or move the file away (--force would overwrite those codes)",
    );
  });

  it('a failing row fails the plan with its exit code, naming the first; the other rows are delivered', async () => {
    const h = harness({ catalogUnreadable: true });
    const error = await runPlan({ plan: plan('no-such-product,1\namazon-us-25,1\n'), concurrency: 1 }, h.deps).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ exitCode: 4, code: 'plan_rows_failed' });
    expect((error as Error).message).toMatch(/^1 of 2 plan rows failed \(first: line 1: /);
    const results = JSON.parse(h.out()) as PlanResult[];
    expect(results[0]!.error).toMatchObject({ exitCode: 4 });
    expect(results[1]!.order?.id).toBeDefined();
    expect(
      h.journal.history
        .list()
        .map((r) => r.outcome)
        .sort(),
    ).toEqual(['delivered', 'refused']);
  });

  it('a live plan asks first: without --yes and no terminal it is refused before anything is sent', async () => {
    const h = harness({ environment: 'live' });
    await expect(runPlan({ plan: plan('amazon-us-25,2\n'), concurrency: 1 }, h.deps)).rejects.toMatchObject({
      exitCode: 2,
      code: 'confirmation_required',
      message: 'a live plan (1 order) needs confirmation, and this run is not interactive',
    });
    expect(h.posts()).toBe(0);
  });

  it('text: the table names the status, the key and the out file with its count', async () => {
    const h = harness({ json: false });
    const path = plan('amazon-us-25,2,b.csv\n');
    await runPlan({ plan: path, concurrency: 1 }, h.deps);
    expect(h.out()).toContain('completed');
    expect(h.out()).toContain(`${join(path, '..', 'b.csv')} (2)`);
    expect(h.out()).toMatch(/plan-[0-9a-f]{24}/);
  });

  it('--concurrency n: never more than n orders in flight at once', async () => {
    for (const concurrency of [1, 2]) {
      let most = 0;
      const h = harness({ onPost: (inFlight) => (most = Math.max(most, inFlight)) });
      await runPlan(
        { plan: plan('amazon-us-25,1\namazon-us-25,2\namazon-us-25,3\namazon-us-25,4\nsteam-us-20,1\n'), concurrency },
        h.deps,
      );
      expect(h.posts()).toBe(5);
      expect(most).toBeLessThanOrEqual(concurrency);
    }
  });

  it("a new row's intent is made durable once before its POST: `sending` at once, never `prepared` and then `sending`", async () => {
    // One line and one fsync fewer a row (BENCHMARKS.md, thirty-fifth round): `prepared` was written and, at once, armed.
    const before: string[][] = [];
    let journalDir = '';
    const h = harness({
      onPost: (_inFlight, key) => {
        const phases: string[] = [];
        for (const name of readdirSync(journalDir).filter(isLogName))
          for (const text of readFileSync(join(journalDir, name), 'utf8').split('\n').slice(1))
            if (text !== '') {
              const line = JSON.parse(text) as { key?: string; intent?: { phase: string } };
              if (line.key === key && line.intent) phases.push(line.intent.phase);
            }
        before.push(phases);
      },
    });
    journalDir = h.journal.dir;
    await runPlan({ plan: plan('amazon-us-25,1\nsteam-us-20,1\namazon-us-25,3\n'), concurrency: 2 }, h.deps);
    expect(h.posts()).toBe(3);
    expect(before).toEqual([['sending'], ['sending'], ['sending']]);
  });

  it("a row whose answer was lost, run again: taken over and sent again with its key, and the API's order is its own", async () => {
    // Only a new row is armed at its begin (never sent): one taken over may have been sent, so the API's answer with
    // the order its key placed is this row's, never an order placed elsewhere (which would leave it undelivered).
    const lost = harness({ answerLost: true });
    const path = plan('amazon-us-25,2\n');
    await expect(runPlan({ plan: path, concurrency: 1 }, lost.deps)).rejects.toMatchObject({ exitCode: 5 });
    expect(lost.journal.read().intents.map((i) => i.phase)).toEqual(['sending']);
    const again = harness({ journal: lost.journal });
    await runPlan({ plan: path, concurrency: 1 }, again.deps);
    const [result] = JSON.parse(again.out()) as PlanResult[];
    expect(result).toMatchObject({ resumed: true, order: { quantity: 2 } });
    expect(result!.error).toBeUndefined();
    expect(again.journal.read().intents).toEqual([]);
    expect(again.posts()).toBe(1);
  });

  it('interrupted before it starts: nothing is sent, nothing is pending, the interruption is the error', async () => {
    const controller = new AbortController();
    controller.abort(new InterruptedError('interrupted by SIGTERM'));
    const h = harness({ controller });
    await expect(
      runPlan({ plan: plan('amazon-us-25,1\nsteam-us-20,1\n'), concurrency: 2 }, h.deps),
    ).rejects.toMatchObject({ exitCode: 130, message: 'interrupted by SIGTERM' });
    expect(h.posts()).toBe(0);
    expect(h.journal.read().intents).toEqual([]);
  });

  it('interrupted while a row is out: the row readied next is never sent, and stays pending for the same plan again', async () => {
    const controller = new AbortController();
    const h = harness({ controller, onPost: () => controller.abort(new InterruptedError('interrupted by SIGINT')) });
    const path = plan('amazon-us-25,1\nsteam-us-20,1\namazon-us-25,3\n');
    // Only the row that was out may have been charged: the readied one is said as what it is, never sent.
    await expect(runPlan({ plan: path, concurrency: 1 }, h.deps)).rejects.toMatchObject({
      exitCode: 130,
      message: expect.stringMatching(/the plan stopped, and 1 row of it may have been charged$/),
    });
    expect(h.posts()).toBe(1);
    const left = h.journal.read().intents;
    expect(left.map((i) => [i.productId, i.orderId])).toContainEqual(['steam-us-20', undefined]);
    // Written back as prepared (disarmed): left `sending`, it read as "may have been charged" everywhere after.
    expect(left.find((i) => i.productId === 'steam-us-20')?.phase).toBe('prepared');
    expect(left.some((i) => i.productId === 'amazon-us-25' && i.quantity === 3)).toBe(false);
    // The same plan again sends the readied row with its key, and the rest: one order each, never a second.
    const again = harness({ journal: h.journal });
    await runPlan({ plan: path, concurrency: 1 }, again.deps);
    expect(again.journal.read().intents).toEqual([]);
    const results = JSON.parse(again.out()) as PlanResult[];
    expect(results.map((r) => r.order?.id).filter(Boolean)).toHaveLength(3);
  });

  it('--wait: every row waits for its order to complete; without it a row is delivered as the API answered', async () => {
    const slow = await inProcessServer({ fulfilAfterMs: 400 });
    try {
      const waited = harness({ url: slow.url });
      await runPlan(
        { plan: plan('amazon-us-25,1\nsteam-us-20,1\n'), concurrency: 2, wait: true, interval: 0.05 },
        waited.deps,
      );
      expect((JSON.parse(waited.out()) as PlanResult[]).map((r) => r.order?.status)).toEqual([
        'completed',
        'completed',
      ]);
      const answered = harness({ url: slow.url });
      await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, answered.deps);
      expect((JSON.parse(answered.out()) as PlanResult[])[0]!.order?.status).not.toBe('completed');
      // The run's last line counts in words that agree with their numbers ("1 orders", "1 codes" before).
      const one = harness({ url: slow.url, json: false });
      await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, one.deps);
      expect(one.err()).toMatch(/done: plan \S+: 1 of 1 row ordered \(1 code, 25\.00 USD\)/);
      // A cron log's status lines say which row each order is (a walkthrough read bare order ids), and the
      // last line what the run cost.
      const logged = harness({ url: slow.url, json: false });
      await runPlan(
        { plan: plan('amazon-us-25,1\nsteam-us-20,1500\n'), concurrency: 2, wait: true, interval: 0.05 },
        logged.deps,
      );
      expect(logged.err()).toMatch(/order ord_\w+ \(row 2: 1,500 × steam-us-20\): completed/);
      expect(logged.err()).toMatch(/done: plan \S+: 2 of 2 rows ordered \(1,501 codes, 30,025\.00 USD\)/);
      // A row that waits for nothing (no out cell, no --wait) has its line too, with the status the API answered: a
      // person's-day review's cron log named rows 2 and 3 and not row 4, whose order only the summary table showed.
      const unwaited = harness({ url: slow.url, json: false });
      await runPlan({ plan: plan('amazon-us-25,1\nsteam-us-20,2\n'), concurrency: 1 }, unwaited.deps);
      expect(unwaited.err()).toMatch(/order ord_\w+ \(row 1: 1 × amazon-us-25\): (pending|processing)\n/);
      expect(unwaited.err()).toMatch(/order ord_\w+ \(row 2: 2 × steam-us-20\): (pending|processing)\n/);
      // At a terminal the table says it: no such line.
      const atTerminal = harness({ url: slow.url, json: false, stderrIsTTY: true });
      await runPlan({ plan: plan('amazon-us-25,1\n'), concurrency: 1 }, atTerminal.deps);
      expect(atTerminal.err()).not.toMatch(/\(row 1: 1 × amazon-us-25\): /);
      // A row that waited says the statuses its wait saw, once each: the POST's answer is not said beside them.
      const waitedOnce = harness({ json: false });
      await runPlan(
        { plan: plan('amazon-us-25,1\nsteam-us-20,2\n'), concurrency: 2, wait: true, interval: 0.05 },
        waitedOnce.deps,
      );
      for (const row of ['row 1: 1 × amazon-us-25', 'row 2: 2 × steam-us-20'])
        expect(
          waitedOnce
            .err()
            .split('\n')
            .filter((line) => line.includes(`(${row})`)),
          waitedOnce.err(),
        ).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

describe('a live plan run again, its interrupted rows not asked about (an adversarial review)', () => {
  it('a row abandoned meanwhile sends nothing: resumed only, never a new order without a question', async () => {
    const path = plan('product,quantity\namazon-us-25,1\nsteam-us-20,1\n');
    // The first run: confirmed (--yes), stopped while its first row was out; both rows left interrupted.
    const controller = new AbortController();
    const first = harness({
      environment: 'live',
      controller,
      onPost: () => controller.abort(new InterruptedError('interrupted by SIGINT')),
    });
    await expect(runPlan({ plan: path, concurrency: 1, yes: true }, first.deps)).rejects.toMatchObject({
      exitCode: 130,
    });
    const left = first.journal.read().intents;
    expect(left).toHaveLength(2);
    for (const intent of left) first.journal.save({ ...intent, owner: dead() });
    const steam = left.find((intent) => intent.productId === 'steam-us-20')!;

    // Run again, not interactive, no --yes: no question (both rows are resumed). The steam row is abandoned by
    // another run once the first row has begun: it must fail unsent, not go out as a new, unconfirmed order.
    const journal = first.journal;
    const begin = journal.begin.bind(journal);
    let begun = 0;
    journal.begin = async (options, now) => {
      const call = ++begun;
      const result = await begin(options, now);
      if (call === 1) await journal.abandon(steam.key);
      return result;
    };
    const again = harness({ environment: 'live', journal });
    await expect(runPlan({ plan: path, concurrency: 1 }, again.deps)).rejects.toMatchObject({ exitCode: 2 });
    const results = JSON.parse(again.out()) as PlanResult[];
    const row = results.find((r) => r.productId === 'steam-us-20')!;
    expect(row.error).toMatchObject({ code: 'intent_not_found' });
    expect(row.order).toBeUndefined();
    // The amazon row was accepted before: resumed, not sent again; nothing for steam.
    expect(begun).toBe(2);
    expect(again.posts()).toBe(0);
  });
});

describe('a plan every row of which an earlier run delivered, its orders unreadable now', () => {
  it('done (no error, exit 0): each row shown as recorded, one warning, and no read after the first failure', async () => {
    const path = plan('product,quantity\namazon-us-25,1\nsteam-us-20,2\namazon-us-25,3\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 1 }, first.deps);
    const placed = JSON.parse(first.out()) as PlanResult[];

    const again = harness({
      journal: first.journal,
      getOrderFails: new NetworkError('GET /v1/orders/x failed: HTTP 503 service_unavailable', { status: 503 }),
    });
    await runPlan({ plan: path, concurrency: 1 }, again.deps);
    const rows = JSON.parse(again.out()) as PlanResult[];
    expect(rows.map((r) => [r.already, r.error, r.order?.id, r.order?.status])).toEqual(
      placed.map((r) => [true, undefined, r.order?.id, r.order?.status]),
    );
    expect(rows[1]!.order).toMatchObject({ product_id: 'steam-us-20', quantity: 2, environment: 'test' });
    expect(again.reads()).toBe(1);
    const warnings = again
      .err()
      .split('\n')
      .filter((line) => line.includes('could not be read again'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `row 2: its order ${placed[0]!.order!.id} could not be read again (GET /v1/orders/x failed: HTTP 503 service_unavailable); the rows earlier runs delivered are shown as those runs recorded them`,
    );
    expect(again.posts()).toBe(0);
  });

  it('rows read at the same time that all fail: one warning still', async () => {
    const path = plan('product,quantity\namazon-us-25,1\nsteam-us-20,2\namazon-us-25,3\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 3 }, first.deps);
    const again = harness({
      journal: first.journal,
      getOrderFails: new NetworkError('timed out', { code: 'timeout' }),
      readDelayMs: 30,
    });
    await runPlan({ plan: path, concurrency: 3 }, again.deps);
    expect(again.reads()).toBe(3);
    expect(
      again
        .err()
        .split('\n')
        .filter((line) => line.includes('could not be read again')),
    ).toHaveLength(1);
  });

  it('stopped (Ctrl-C) during a read: the interruption, not a warning that the order could not be read', async () => {
    const path = plan('product,quantity\namazon-us-25,1\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 1 }, first.deps);
    const controller = new AbortController();
    const again = harness({
      journal: first.journal,
      controller,
      getOrderFails: () => {
        controller.abort(new InterruptedError('interrupted by SIGINT'));
        return new InterruptedError('interrupted by SIGINT');
      },
    });
    await expect(runPlan({ plan: path, concurrency: 1 }, again.deps)).rejects.toMatchObject({ exitCode: 130 });
    expect(again.err()).not.toContain('could not be read again');
  });

  it('read as usual while the API answers: the order as the API says it now', async () => {
    const path = plan('product,quantity\namazon-us-25,1\n');
    const first = harness();
    await runPlan({ plan: path, concurrency: 1 }, first.deps);
    const again = harness({ journal: first.journal });
    await runPlan({ plan: path, concurrency: 1 }, again.deps);
    const [row] = JSON.parse(again.out()) as PlanResult[];
    expect(row!.order).toMatchObject({ object: 'order', created_at: expect.any(String) });
    expect(again.err()).not.toContain('could not be read again');
  });
});

describe('a live plan of the same file name in another folder (an adversarial review)', () => {
  it("its rows share the keys of the other plan's interrupted rows, but not their codes files: asked about, nothing sent without an answer", async () => {
    const shopA = tempDir();
    const shopB = tempDir();
    for (const dir of [shopA, shopB])
      writeFileSync(join(dir, 'tonight.csv'), 'product,quantity,out\namazon-us-25,3,codes.csv\n');
    const controller = new AbortController();
    const first = harness({
      environment: 'live',
      controller,
      onPost: () => controller.abort(new InterruptedError('interrupted by SIGINT')),
    });
    await expect(
      runPlan({ plan: join(shopA, 'tonight.csv'), concurrency: 1, yes: true }, first.deps),
    ).rejects.toMatchObject({ exitCode: 130 });
    for (const intent of first.journal.read().intents) first.journal.save({ ...intent, owner: dead() });
    const posted = first.posts();

    // Shop B's plan, not interactive, no --yes: its row is not the interrupted one's file, so it is a live order
    // to confirm, refused here before anything is sent.
    const other = harness({ environment: 'live', journal: first.journal });
    await expect(runPlan({ plan: join(shopB, 'tonight.csv'), concurrency: 1 }, other.deps)).rejects.toMatchObject({
      exitCode: 2,
    });
    expect(other.posts()).toBe(0);

    // Shop A's own plan again resumes its row without asking.
    const again = harness({ environment: 'live', journal: first.journal });
    await runPlan({ plan: join(shopA, 'tonight.csv'), concurrency: 1 }, again.deps);
    expect(first.journal.read().intents).toEqual([]);
    // Its POST went out before the stop, and was answered: the resume reads it, and sends nothing again.
    expect([posted, again.posts()]).toEqual([1, 0]);
  });
});
