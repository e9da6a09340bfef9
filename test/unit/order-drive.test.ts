// Waiting, printing the outcome, settling interrupted intents and recognising an earlier delivery, in-process
// against the reference server: the pieces order place, resume, watch and codes get share.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { driveIntent, printOutcome } from '../../src/orders/drive.js';
import { codesFileFor } from '../../src/orders/present.js';
import { wroteCodes } from '../../src/orders/present.js';
import { settle, settleReached } from '../../src/orders/lifecycle.js';
import { OrderMachine } from '../../src/orders/machine.js';
import { outExists, placingNow, resumableFor, sameCodesAlready } from '../../src/orders/recover.js';
import { DEFAULT_INTERVAL_S, OrderEndedError, PLAN_ROW_ANEW, waitForOrder } from '../../src/orders/wait.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServers, testOrderSpec } from '../helpers/inprocess.js';

const servers = inProcessServers({ fast: {}, slow: { fulfilAfterMs: 3_600_000 }, failing: { failOrders: 1 } });

type Captured = ReturnType<typeof capturedIo>;
const capture = (json = false): Captured => capturedIo({ json });

async function placed(url: string): Promise<string> {
  return (await clientOf(url).createOrder('{"product_id":"amazon-us-25","quantity":2}', `k-${Math.random()}`)).order.id;
}

describe('waitForOrder', () => {
  it('polls until completed and says each status change once, on stderr', async () => {
    const { fast } = servers;
    const c = capture();
    const orderId = await placed(fast.url);
    const seen: string[] = [];
    const order = await waitForOrder({
      api: clientOf(fast.url),
      orderId,
      io: c.io,
      signal: new AbortController().signal,
      intervalS: 0.01,
      onStatus: (o) => seen.push(o.status),
    });
    expect(order.status).toBe('completed');
    expect(seen.at(-1)).toBe('completed');
    expect(new Set(seen).size).toBe(seen.length);
    expect(c.err()).toContain(`order ${orderId}: completed\n`);
    expect(DEFAULT_INTERVAL_S).toBe(2);
  });

  // A walkthrough waited 90 s on a spinner that said only "order … is processing": how long, and whether Ctrl-C
  // is safe, were not said.
  it('on a terminal the spinner counts the wait and says what Ctrl-C does', async () => {
    const { slow } = servers;
    const c = capture();
    const texts: string[] = [];
    let columns = 120;
    const io = Object.create(c.io) as typeof c.io;
    Object.defineProperty(io, 'columns', { get: () => columns });
    io.spinner = (text: string) => {
      texts.push(text);
      return Promise.resolve({ update: (next: string) => void texts.push(next), stop: () => undefined });
    };
    const orderId = await placed(slow.url);
    const seen: string[] = [];
    // A wait of 1.3 s, polled every 0.4 s, that ends at its timeout: the last text is the count at 1 s. The clock
    // (Date alone: the sleeps are real) is held still and moved by the polls, each answered on time: the count is
    // of real seconds, and a loaded machine that answered the last poll 0.2 s late made it "2 s so far" (a 250 ms
    // slower answer, or the suite under `nice -n 19` beside two busy loops, fails it).
    const waitOnce = async (): Promise<void> => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        const start = Date.now();
        let polls = 0;
        const api = clientOf(slow.url);
        const getOrder = api.getOrder.bind(api);
        api.getOrder = async (id: string) => {
          const order = await getOrder(id);
          vi.setSystemTime(Math.min(start + 400 * polls++, start + 1300));
          return order;
        };
        await expect(
          waitForOrder({
            api,
            orderId,
            io,
            signal: new AbortController().signal,
            intervalS: 0.4,
            timeoutS: 1.3,
            onStatus: (order) => seen.push(order.status),
          }),
        ).rejects.toMatchObject({ code: 'wait_timeout' });
      } finally {
        vi.useRealTimers();
      }
    };
    await waitOnce();
    // The first poll, under a second: the status alone; then the count, and the words on Ctrl-C where they fit.
    expect(texts[1]).toMatch(new RegExp(`^order ${orderId} is \\w+$`));
    const full = texts.at(-1)!;
    expect(full).toMatch(
      new RegExp(`^order ${orderId} is \\w+, 1 s so far \\(Ctrl-C stops the wait; the order goes on\\)$`),
    );
    // The status said once though polled four times.
    expect(seen).toHaveLength(1);
    // The line fits with the spinner's 2 columns; one column less, or 80, and it is the count alone.
    columns = full.length + 2;
    texts.length = 0;
    await waitOnce();
    expect(texts.at(-1)).toBe(full);
    for (const narrower of [full.length + 1, 80]) {
      columns = narrower;
      texts.length = 0;
      await waitOnce();
      expect(texts.at(-1)).toMatch(new RegExp(`^order ${orderId} is \\w+, 1 s so far$`));
    }
  });

  // A review pasted a failed live order's hint and placed a test order: the order's own environment is named.
  it("OrderEndedError's way to order it anew: from the order (its environment), given, a plan row's, or none", () => {
    const ask = 'it has no codes, and no command here gets them: ask the provider about order ord_f';
    const order = { id: 'ord_f', status: 'failed', product_id: 'p-1', quantity: 2 };
    // An order no record here names may have been a plan's row (a support desk's watch in another directory): its plan
    // orders it again by itself, and this command beside it was a second order (a review).
    const row = " (unless it was a plan's row: its plan, run again, orders that row itself)";
    expect(new OrderEndedError(order).hint).toBe(
      `${ask}; to order it anew: giftcodes order place --product p-1 --quantity 2${row}`,
    );
    expect(new OrderEndedError({ ...order, environment: 'live' }).hint).toBe(
      `${ask}; to order it anew: giftcodes order place --env live --product p-1 --quantity 2${row}`,
    );
    // Test too: pasted in a profile whose default is live, a hint without --env placed a live order.
    expect(new OrderEndedError({ ...order, environment: 'test' }).hint).toBe(
      `${ask}; to order it anew: giftcodes order place --env test --product p-1 --quantity 2${row}`,
    );
    // An environment the CLI has no --env for (the service's own word): none named rather than one refused.
    expect(new OrderEndedError({ ...order, environment: 'sandbox' }).hint).toBe(
      `${ask}; to order it anew: giftcodes order place --product p-1 --quantity 2${row}`,
    );
    // A product id that would not paste as one word, or no quantity: no command.
    expect(new OrderEndedError({ ...order, product_id: 'p 1' }).hint).toBe(ask);
    expect(new OrderEndedError({ ...order, product_id: 'p-1\nx' }).hint).toBe(ask);
    expect(new OrderEndedError({ id: 'ord_f', status: 'failed', product_id: 'p-1' }).hint).toBe(ask);
    expect(new OrderEndedError({ id: 'ord_f', status: 'failed', quantity: 2 }).hint).toBe(ask);
    expect(new OrderEndedError(order, 'given words').hint).toBe(`${ask}; given words`);
    expect(new OrderEndedError(order).ofPlanRow().hint).toBe(`${ask}; ${PLAN_ROW_ANEW}`);
    expect(PLAN_ROW_ANEW).toMatch(/^its plan, run again with the same file name and --batch, orders that row anew/);
    expect(new OrderEndedError(order).ofPlanRow().order).toBe(order);
  });

  it('a failed order is OrderEndedError (exit 6) carrying the order, with the hint to show it', async () => {
    const { failing } = servers;
    const orderId = await placed(failing.url);
    const error = await waitForOrder({
      api: clientOf(failing.url),
      orderId,
      io: capture().io,
      signal: new AbortController().signal,
      intervalS: 0.01,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderEndedError);
    expect(error).toMatchObject({
      exitCode: 6,
      code: 'order_failed',
      message: expect.stringMatching(new RegExp(`^order ${orderId} ended failed \\(\\w+\\)$`)),
      hint: expect.stringMatching(
        new RegExp(
          `^it has no codes, and no command here gets them: ask the provider about order ${orderId}; to order it anew: giftcodes order place --env test --product \\S+ --quantity \\d+ \\(unless it was a plan's row: its plan, run again, orders that row itself\\)$`,
        ),
      ),
      order: { id: orderId },
    });
  });

  // docs/orders.md promises a log a line every 10 s of long work; a wait said only its status changes, and a cron
  // log stood silent for 46 s, then 44 s (a review took it for a hang).
  it('off a terminal, a long wait writes a line at least every 10 s, not only at status changes', async () => {
    const { slow } = servers;
    const c = capture();
    const orderId = await placed(slow.url);
    // Each look at the clock is a second later: the wait's minutes pass in a few dozen real polls.
    let clock = Date.now();
    const now = vi.spyOn(Date, 'now').mockImplementation(() => (clock += 1_000));
    const error = await waitForOrder({
      api: clientOf(slow.url),
      orderId,
      io: c.io,
      signal: new AbortController().signal,
      intervalS: 0.01,
      timeoutS: 120,
    })
      .catch((e: unknown) => e)
      .finally(() => now.mockRestore());
    expect(error).toMatchObject({ code: 'wait_timeout' });
    const lines = c
      .err()
      .split('\n')
      .filter((line) => line.includes(`order ${orderId}: `));
    expect(lines[0]).toMatch(new RegExp(`order ${orderId}: pending$`));
    const still = lines.filter((line) =>
      new RegExp(`order ${orderId}: still pending, (\\d+ min )?\\d+ s so far$`).test(line),
    );
    // 120 s of waiting: a line at the start and one about every 10 s after it, never one a poll.
    expect(still.length).toBeGreaterThanOrEqual(6);
    expect(still.length).toBeLessThanOrEqual(12);
    const seconds = still.map((line) => {
      const [, min, s] = /, (?:(\d+) min )?(\d+) s so far$/.exec(line)!;
      return Number(min ?? 0) * 60 + Number(s);
    });
    for (let i = 1; i < seconds.length; i++) expect(seconds[i]! - seconds[i - 1]!).toBeGreaterThanOrEqual(10);
  });

  it('--timeout 0: one poll, then exit 7 naming the status, the order going on', async () => {
    const { slow } = servers;
    const orderId = await placed(slow.url);
    const error = await waitForOrder({
      api: clientOf(slow.url),
      orderId,
      io: capture().io,
      signal: new AbortController().signal,
      intervalS: 0.01,
      timeoutS: 0,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 7,
      code: 'wait_timeout',
      hint: `the order goes on on the server; wait again with: giftcodes order watch ${orderId}`,
    });
    expect((error as Error).message).toMatch(
      new RegExp(`^gave up waiting for order ${orderId} after 0s; it is still \\S+$`),
    );
  });

  it('an abort while waiting is exit 130 with the reason, the order going on', async () => {
    const { slow } = servers;
    const orderId = await placed(slow.url);
    const controller = new AbortController();
    const waiting = waitForOrder({
      api: clientOf(slow.url),
      orderId,
      io: capture().io,
      signal: controller.signal,
      intervalS: 60,
      onStatus: () => setImmediate(() => controller.abort(new Error('SIGINT received'))),
    });
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 130,
      message: `SIGINT received while waiting for order ${orderId}`,
      hint: `the order goes on on the server; wait again with: giftcodes order watch ${orderId}`,
    });
    const bare = new AbortController();
    const plain = waitForOrder({
      api: clientOf(slow.url),
      orderId,
      io: capture().io,
      signal: bare.signal,
      intervalS: 60,
      onStatus: () => setImmediate(() => bare.abort('no error')),
    });
    await expect(plain).rejects.toMatchObject({
      exitCode: 130,
      message: `interrupted while waiting for order ${orderId}`,
    });
  });
});

describe('printOutcome', () => {
  const order = { id: 'ord_1', status: 'completed' };

  it('codes on stdout: stdout holds only the codes, the outcome goes to stderr', async () => {
    const c = capture();
    await printOutcome(c.io, { order, written: { path: '-', count: 3, format: 'csv' } });
    await c.io.flushOut();
    expect(c.out()).toBe('');
    expect(c.err()).toContain('order ord_1 completed: wrote 3 codes to stdout\n');
  });

  it('--json: the order, with where its codes went when there is a file', async () => {
    const c = capture(true);
    await printOutcome(c.io, { order, written: { path: '/x/c.csv', count: 3, format: 'csv', earlier: true } });
    await c.io.flushOut();
    expect(JSON.parse(c.out())).toEqual({ ...order, written: { path: '/x/c.csv', count: 3, format: 'csv' } });
    const plain = capture(true);
    await printOutcome(plain.io, { order });
    await plain.io.flushOut();
    expect(JSON.parse(plain.out())).toEqual(order);
  });

  it('text: the order, then the file line (written now or earlier), or how to follow an order in progress', async () => {
    const now = capture();
    await printOutcome(now.io, { order, written: { path: '/x/c.csv', count: 3, format: 'csv' } });
    await now.io.flushOut();
    expect(now.out()).toContain('order        ord_1\n');
    // Where the codes went is said on stderr, as codes get says it: stdout holds the order alone (a script saving
    // `order place > order.txt` had the line in its key/value text, and a cron log had it without its time).
    expect(now.out()).not.toContain('wrote');
    // Stamped with its time off a terminal, as every stderr line of a log is.
    expect(now.err()).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z ✓ wrote 3 codes to \/x\/c\.csv \(csv, 0600\)\n$/);
    // An encrypted file is said as such, in the words codes get uses (it read "(csv)": a person's day).
    const sealed = capture();
    await printOutcome(sealed.io, { order, written: { path: '/x/c.csv.age', count: 3, format: 'csv' } });
    await sealed.io.flushOut();
    expect(sealed.err()).toMatch(/Z ✓ wrote 3 codes to \/x\/c\.csv\.age \(csv, age-encrypted, 0600\)\n$/);
    // codes get's form: the order named, and how many recipients it was encrypted to.
    const io = capture().io;
    expect(wroteCodes(io, { count: 1, path: '/x/c.csv.age', format: 'csv', orderId: 'ord_1', recipients: 1 })).toBe(
      '✓ wrote 1 code of ord_1 to /x/c.csv.age (csv, age-encrypted for 1 recipient, 0600)',
    );
    expect(wroteCodes(io, { count: 2, path: '/x/c.json.age', format: 'json', recipients: 2 })).toBe(
      '✓ wrote 2 codes to /x/c.json.age (json, age-encrypted for 2 recipients, 0600)',
    );
    const earlier = capture();
    await printOutcome(earlier.io, { order, written: { path: '/x/c.csv', count: 3, format: 'csv', earlier: true } });
    await earlier.io.flushOut();
    expect(earlier.err()).toMatch(/Z ✓ the codes were already written to \/x\/c\.csv \(csv\)\n$/);
    const going = capture();
    await printOutcome(going.io, { order: { id: 'ord_2', status: 'processing' } });
    await going.io.flushOut();
    expect(going.err()).toContain('follow it with: giftcodes order watch ord_2\n');
    // Pasted from a cron job's log, the next step must look in the job's config directory, as its hints do.
    const cron = capturedIo({ env: { GIFTCODES_CONFIG_DIR: '/srv/restock/giftcodes' } });
    await printOutcome(cron.io, { order: { id: 'ord_2', status: 'processing' } });
    expect(cron.err()).toContain(
      'follow it with: GIFTCODES_CONFIG_DIR=/srv/restock/giftcodes giftcodes order watch ord_2\n',
    );
    const cronDone = capturedIo({ env: { GIFTCODES_CONFIG_DIR: '/srv/restock/giftcodes' } });
    await printOutcome(cronDone.io, { order });
    expect(cronDone.err()).toContain(
      'its codes: GIFTCODES_CONFIG_DIR=/srv/restock/giftcodes giftcodes codes get ord_1 --out ord_1.csv\n',
    );
    const done = capture();
    await printOutcome(done.io, { order });
    expect(done.err()).toMatch(/(^|\s)its codes: giftcodes codes get ord_1 --out ord_1\.csv\n$/);
    const failed = capture();
    await printOutcome(failed.io, { order: { id: 'ord_f', status: 'failed' } });
    expect(failed.err()).toBe('');
  });

  it('a failed order is printed like any outcome: with --json the order as the server sent it, in text its description', async () => {
    const json = capture(true);
    await printOutcome(json.io, { order: { id: 'ord_f', status: 'failed' } });
    await json.io.flushOut();
    expect(JSON.parse(json.out())).toEqual({ id: 'ord_f', status: 'failed' });
    const text = capture();
    await printOutcome(text.io, { order: { id: 'ord_f', status: 'failed' } });
    await text.io.flushOut();
    expect(text.out()).toMatch(/^order\s+ord_f\nstatus\s+failed\n$/);
  });
});

describe('settling interrupted intents', () => {
  const dead = { pid: 999_999_999 };

  it('settleReached ends dead intents that reached the user (delivered, or their own file on disk), and says so', async () => {
    const { fast } = servers;
    const j = freshJournal();
    const spec = testOrderSpec(fast.url);
    const a = j.save({
      ...(await j.begin({ ...spec, key: 'a' })).intent,
      phase: 'delivered',
      orderId: 'ord_a',
      owner: dead,
    });
    const path = join(tempDir(), 'codes.json');
    writeFileSync(path, '[]');
    const b = j.save({
      ...(await j.begin({ ...spec, key: 'b' })).intent,
      phase: 'accepted',
      orderId: 'ord_b',
      owner: dead,
      out: { path, force: false, csvRaw: false },
    });
    j.save({ ...b, files: [fileIdentity(path, 'ord_b', path)] });
    j.save({
      ...(await j.begin({ ...spec, key: 'c' })).intent,
      phase: 'accepted',
      orderId: 'ord_c',
      owner: dead,
      out: { path: join(tempDir(), 'none.json'), force: false, csvRaw: false },
    });
    j.save({
      ...(await j.begin({ ...spec, key: 'd' })).intent,
      phase: 'accepted',
      orderId: 'ord_d',
      owner: dead,
      out: { path: '-', force: false, csvRaw: false },
      files: [fileIdentity(path, 'ord_d', '-')],
    });
    j.save({ ...(await j.begin({ ...spec, key: 'e' })).intent, phase: 'delivered', orderId: 'ord_e' });
    const c = capture(true);
    await settleReached(c.io, j);
    expect(
      j
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['c', 'd', 'e']);
    expect(c.err()).toContain('the interrupted order ord_a had already reached you; it is complete\n');
    expect(c.err()).toContain(
      `the interrupted order ord_b had already reached you (codes in ${path}); it is complete\n`,
    );
    expect(
      j.history
        .list()
        .map((r) => [r.key, r.outcome])
        .sort(),
    ).toEqual([
      ['a', 'delivered'],
      ['b', 'delivered'],
    ]);
    expect(a.key).toBe('a');
  });

  it('settleReached ends a dead `accepted` intent whose record says delivered for the same order and server (a plan killed between its two batched steps), and no other (nor one by an older record of its key)', async () => {
    const { fast } = servers;
    const j = freshJournal();
    const spec = testOrderSpec(fast.url);
    const created = new Map<string, string>();
    const record = (
      key: string,
      orderId: string,
      baseUrl = spec.baseUrl,
      outcome: 'delivered' | 'refused' = 'delivered',
      createdAt = created.get(key)!,
    ): void =>
      j.history.record({
        key,
        orderId,
        productId: 'amazon-us-25',
        quantity: 2,
        environment: 'test',
        profile: 'default',
        baseUrl,
        createdAt,
        updatedAt: createdAt,
        outcome,
      });
    for (const key of ['same', 'other-order', 'other-server', 'refused', 'none', 'older']) {
      const { intent } = await j.begin({ ...spec, key });
      created.set(key, intent.createdAt);
      j.save({ ...intent, phase: 'accepted', orderId: `ord_${key}`, owner: dead });
    }
    record('same', 'ord_same');
    record('other-order', 'ord_elsewhere');
    record('other-server', 'ord_other-server', 'http://127.0.0.1:1');
    record('refused', 'ord_refused', spec.baseUrl, 'refused');
    // The same key and order delivered by an earlier intent (the key reused, the server replayed the order):
    // that record is not this intent's delivery.
    record('older', 'ord_older', spec.baseUrl, 'delivered', '2020-01-01T00:00:00.000Z');
    const c = capture();
    await settleReached(c.io, j);
    expect(
      j
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['none', 'older', 'other-order', 'other-server', 'refused']);
    expect(c.err()).toContain('the interrupted order ord_same had already reached you; it is complete\n');
  });

  it('settleReached names the key when there is no order id', async () => {
    const { fast } = servers;
    const j = freshJournal();
    j.save({
      ...(await j.begin({ ...testOrderSpec(fast.url), key: 'no-id' })).intent,
      phase: 'delivered',
      owner: dead,
    });
    const c = capture();
    await settleReached(c.io, j);
    expect(c.err()).toContain('the interrupted order no-id had already reached you; it is complete\n');
  });

  it('settle, for an order fetched by watch or codes get, ends the intents of that order: without an out file always, with one only when codes were written', async () => {
    const { fast } = servers;
    const spec = testOrderSpec(fast.url);
    const make = async (j: Journal): Promise<void> => {
      j.save({
        ...(await j.begin({ ...spec, key: 'plain' })).intent,
        phase: 'accepted',
        orderId: 'ord_x',
        owner: dead,
      });
      j.save({
        ...(await j.begin({ ...spec, key: 'file' })).intent,
        phase: 'accepted',
        orderId: 'ord_x',
        owner: dead,
        out: { path: '/x', force: false, csvRaw: false },
      });
      j.save({
        ...(await j.begin({ ...spec, key: 'other' })).intent,
        phase: 'accepted',
        orderId: 'ord_y',
        owner: dead,
      });
    };
    // The same order id on another server is another order: nothing settles.
    const elsewhere = freshJournal();
    await make(elsewhere);
    await settle(elsewhere, { orderId: 'ord_x', baseUrl: 'http://127.0.0.1:1', codes: true });
    expect(elsewhere.read().intents).toHaveLength(3);
    const without = freshJournal();
    await make(without);
    await settle(without, { orderId: 'ord_x', baseUrl: spec.baseUrl, codes: false });
    expect(
      without
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['file', 'other']);
    const withCodes = freshJournal();
    await make(withCodes);
    await settle(withCodes, { orderId: 'ord_x', baseUrl: spec.baseUrl, codes: true });
    expect(withCodes.read().intents.map((i) => i.key)).toEqual(['other']);
  });
});

describe('driveIntent', () => {
  it('on a terminal, a spinner says the order is being placed while its POST is out, and is gone after', async () => {
    const { slow } = servers;
    const j = freshJournal();
    const { intent } = await j.begin(testOrderSpec(slow.url));
    const { io, err } = capturedIo({ stderrIsTTY: true });
    const real = clientOf(slow.url);
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let sent = (): void => undefined;
    const out = new Promise<void>((resolve) => (sent = resolve));
    const api = Object.assign(Object.create(real) as ApiClient, {
      createOrder: async (body: string, key: string) => {
        sent();
        await held;
        return real.createOrder(body, key);
      },
    });
    const driving = driveIntent({ io, api, journal: j, signal: new AbortController().signal }, intent, {
      wait: false,
      intervalS: 0.01,
    });
    await out;
    expect(err()).toContain('placing the order: 2 × amazon-us-25');
    release();
    await driving;
    // Stopped (its line cleared, no check mark: the order itself is printed next); a later spinner may start.
    const spinner = await io.spinner('next');
    expect(err()).not.toContain('✓');
    spinner.stop();
    // Without a terminal: nothing but what the verb prints.
    const { intent: quiet } = await j.begin(testOrderSpec(slow.url));
    const c = capture();
    await driveIntent({ io: c.io, api: real, journal: j, signal: new AbortController().signal }, quiet, {
      wait: false,
      intervalS: 0.01,
    });
    expect(c.err()).toBe('');
  });

  it('wait false, no out: sends once and returns the order as accepted, nothing written', async () => {
    const { slow } = servers;
    const j = freshJournal();
    const { intent } = await j.begin(testOrderSpec(slow.url));
    const c = capture();
    const driven = await driveIntent(
      { io: c.io, api: clientOf(slow.url), journal: j, signal: new AbortController().signal },
      intent,
      { wait: false, intervalS: 0.01 },
    );
    expect(driven.written).toBeUndefined();
    expect(driven.order.status).not.toBe('completed');
    expect(j.find(intent.key)).toMatchObject({ phase: 'accepted', orderId: driven.order.id });
  });

  it('an accepted intent whose own file is on disk and whose order completed is not waited for; the file is kept', async () => {
    const { fast } = servers;
    const j = freshJournal();
    const path = join(tempDir(), 'codes.json');
    const { intent } = await j.begin({ ...testOrderSpec(fast.url), out: { path, force: false, csvRaw: false } });
    const deps = { io: capture().io, api: clientOf(fast.url), journal: j, signal: new AbortController().signal };
    await driveIntent(deps, intent, { wait: true, out: intent.out, intervalS: 0.01 });
    const before = readFileSync(path, 'utf8');
    const onDisk = j.find(intent.key)!;
    // A second run: waiting would throw (the API refuses every call but the one GET).
    let gets = 0;
    const counting = {
      getOrder: (id: string) => (gets++ === 0 ? deps.api.getOrder(id) : Promise.reject(new Error('waited'))),
    } as unknown as ApiClient;
    const again = await driveIntent({ ...deps, api: counting }, onDisk, {
      wait: true,
      out: onDisk.out,
      intervalS: 0.01,
    });
    expect(gets).toBe(1);
    expect(again.written).toMatchObject({ path, earlier: true, count: 2 });
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('a `sending` intent with an order id (never accepted on disk) is sent again with its key, not read', async () => {
    const { fast } = servers;
    const j = freshJournal();
    const { intent } = await j.begin(testOrderSpec(fast.url));
    const sending: Intent = j.save({ ...intent, phase: 'sending', orderId: 'ord_stale' });
    const calls: string[] = [];
    const real = clientOf(fast.url);
    const spy = {
      createOrder: (body: string, key: string) => (calls.push('post'), real.createOrder(body, key)),
      getOrder: (id: string) => (calls.push('get'), real.getOrder(id)),
    } as unknown as ApiClient;
    await driveIntent({ io: capture().io, api: spy, journal: j, signal: new AbortController().signal }, sending, {
      wait: false,
      intervalS: 0.01,
    });
    expect(calls).toEqual(['post']);
    const prepared = { ...sending, phase: 'prepared' as const, key: 'k2' };
    calls.length = 0;
    await new OrderMachine(
      { io: capture().io, api: spy, journal: j, signal: new AbortController().signal },
      j.save(prepared),
    ).send();
    expect(calls).toEqual(['post']);
  });
});

describe('recover', () => {
  it('resumableFor: only when the intent order place would resume owns the file at the path', async () => {
    const { fast } = servers;
    const j = freshJournal();
    const spec = testOrderSpec(fast.url);
    const path = join(tempDir(), 'codes.json');
    writeFileSync(path, '["x"]');
    const { intent } = await j.begin({ ...spec, key: 'mine' });
    const own = j.save({
      ...intent,
      orderId: 'ord_m',
      owner: { pid: 999_999_999 },
      files: [fileIdentity(path, 'ord_m', path)],
    });
    expect(resumableFor(j, spec, 'mine', path)).toBe(true);
    expect(resumableFor(j, spec, undefined, path)).toBe(true);
    expect(resumableFor(j, spec, 'other-key', path)).toBe(false);
    expect(resumableFor(j, { ...spec, quantity: 3 }, undefined, path)).toBe(false);
    expect(resumableFor(j, spec, 'mine', `${path}.other`)).toBe(false);
    // Held by a live process: order place would not resume it without a key.
    j.save({ ...own, owner: { pid: process.ppid } });
    expect(resumableFor(j, spec, undefined, path)).toBe(false);
    // Over 24 hours old with its order id known: resumed, since finishing it only reads the order.
    j.save({ ...own, createdAt: new Date(Date.now() - 25 * 3_600_000).toISOString() });
    expect(resumableFor(j, spec, undefined, path)).toBe(true);
    expect(resumableFor(j, spec, 'mine', path)).toBe(true);
  });

  it('sameCodesAlready: the same bytes are an earlier delivery; other bytes or no file are not; no check file is left', async () => {
    const { fast } = servers;
    const dir = tempDir();
    const target = join(dir, 'codes.json');
    const orderId = await placed(fast.url);
    const base = {
      api: clientOf(fast.url),
      orderId,
      io: capture().io,
      signal: new AbortController().signal,
      csvRaw: false,
    };
    expect(await sameCodesAlready({ ...base, out: target })).toBeUndefined();
    const first = await (await import('../../src/export/write.js')).exportCodes({ ...base, out: target, force: false });
    const same = await sameCodesAlready({ ...base, out: target });
    expect(same).toMatchObject({ path: target, count: first.count });
    writeFileSync(target, '[]');
    expect(await sameCodesAlready({ ...base, out: target })).toBeUndefined();
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual(['codes.json']);
  });

  it('outExists keeps an out_exists refusal and throws any other', () => {
    const exists = Object.assign(new Error('exists'), { code: 'out_exists' });
    expect(outExists(() => undefined)).toBeUndefined();
    expect(
      outExists(() => {
        throw exists;
      }),
    ).toBe(exists);
    const other = Object.assign(new Error('denied'), { code: 'out_unwritable' });
    expect(() =>
      outExists(() => {
        throw other;
      }),
    ).toThrow(other);
  });
});

describe('placingNow: the same order being placed by another live run', () => {
  it("names its pid (a key given too: another key's run is a second order); nothing when an interrupted one of the same order will be resumed", async () => {
    const { fast } = servers;
    const j = freshJournal();
    const spec = testOrderSpec(fast.url);
    const live = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const { intent: running } = await j.begin(spec);
      j.save({ ...running, phase: 'sending', owner: { pid: live.pid! } });
      expect(placingNow(j, spec, undefined)).toBe(live.pid);
      // A review: a key given at a terminal beside the nightly job, charged twice without a word. The run of this
      // very key is this order.
      expect(placingNow(j, spec, 'my-own-key')).toBe(live.pid);
      expect(placingNow(j, spec, running.key)).toBeUndefined();
      expect(placingNow(j, { ...spec, quantity: spec.quantity + 1 }, undefined)).toBeUndefined();
      // Another profile holding this key is the same reseller (a review placed it beside the live run, no word);
      // another profile's own key is not.
      expect(placingNow(j, { ...spec, profile: 'backup' }, undefined)).toBe(live.pid);
      expect(placingNow(j, { ...spec, profile: 'backup', keyId: 'k-backup' }, undefined)).toBeUndefined();
      // Another machine's notes (a shared config folder) say nothing of this one: neither its live nor its dead run.
      const { intent: elsewhere } = await j.begin({ ...spec, key: 'elsewhere-dead' });
      j.save({ ...elsewhere, phase: 'sending', owner: { pid: 999_999_999, machine: 'elsewhere-2' } });
      expect(placingNow(j, spec, undefined)).toBe(live.pid);
      // This very process's own intent is not another run.
      const mine = freshJournal();
      await mine.begin(spec);
      expect(placingNow(mine, spec, undefined)).toBeUndefined();
      const far = freshJournal();
      const { intent: farLive } = await far.begin(spec);
      far.save({ ...farLive, phase: 'sending', owner: { pid: live.pid!, machine: 'elsewhere-2' } });
      expect(placingNow(far, spec, undefined)).toBeUndefined();
      // A run killed meanwhile left the same order: this run resumes that one (journal.begin), no second order.
      const { intent: killed } = await j.begin({ ...spec, key: 'killed-run' });
      j.save({ ...killed, phase: 'sending', owner: { pid: 999_999_999 } });
      expect(placingNow(j, spec, undefined)).toBeUndefined();
    } finally {
      live.kill();
    }
  });
});

describe('codesFileFor', () => {
  it("names the order's own file; an id unfit for a file name gets codes.csv", () => {
    expect(codesFileFor('ord_5c1f0e2a9b7d4e3f8a6b2c1d')).toBe('ord_5c1f0e2a9b7d4e3f8a6b2c1d.csv');
    expect(codesFileFor('A-1')).toBe('A-1.csv');
    for (const id of ['../x', 'a/b', '-rf', 'a b', '', 'x'.repeat(200)]) expect(codesFileFor(id)).toBe('codes.csv');
  });
});
