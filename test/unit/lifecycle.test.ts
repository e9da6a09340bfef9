// The lifecycle table (orders/lifecycle.ts) as the machine and the verbs follow it, in-process against the
// reference server: the failpoints each path passes, in order; the moves the table refuses; what deliver and
// settle do with nothing to deliver, a failed order, and an order fetched by watch or codes get.
import { closeSync, existsSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAILPOINTS } from '../../src/failpoints.js';
import { scopeOf } from '../../src/journal/history.js';
import { keyIdOf, type Intent, type OrderSpec } from '../../src/journal/intent.js';
import { driveIntent, finish } from '../../src/orders/drive.js';
import { OrderMachine } from '../../src/orders/machine.js';
import {
  checkMove,
  deliver,
  endedRecord,
  LIFECYCLE,
  mayMove,
  sayReached,
  settle,
  stepOf,
  type Step,
} from '../../src/orders/lifecycle.js';
import { LocalError, UsageError, type CliError } from '../../src/errors.js';
import { Io } from '../../src/output/io.js';
import { OrderEndedError } from '../../src/orders/wait.js';
import { type RunningServer } from '../../src/server/index.js';
import { tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServer, KEY } from '../helpers/inprocess.js';

/** The failpoints fired in this process, in order (journal.locked left out: it fires at every lock). */
const fired = vi.hoisted(() => [] as string[]);
/** Run at each failpoint, when set: a look at the disk at that step. */
const at = vi.hoisted(() => ({ fire: undefined as ((name: string) => void) | undefined }));
vi.mock('../../src/failpoints.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/failpoints.js')>();
  const record = (name: string): void => {
    if (name !== 'journal.locked') fired.push(name);
    at.fire?.(name);
  };
  return { ...real, failpoint: (name: string) => Promise.resolve(record(name)), failpointSync: record };
});

let server: RunningServer;
let failing: RunningServer;
beforeAll(async () => {
  server = await inProcessServer();
  failing = await inProcessServer({ failOrders: 1 });
});
afterAll(async () => {
  await Promise.all([server.close(), failing.close()]);
});
beforeEach(() => {
  fired.length = 0;
  at.fire = undefined;
});

const specFor = (url: string, productId = 'amazon-us-25'): OrderSpec => ({
  profile: 'default',
  environment: 'test',
  baseUrl: url,
  keyId: keyIdOf(KEY),
  productId,
  quantity: 2,
});
const STEPS = Object.keys(LIFECYCLE) as Step[];

/** An Io whose stdout is the descriptor `fd` (a read-write /dev/null: a stdout closed at the start). */
function stdoutOn(fd: number): Io {
  const { io } = capturedIo();
  return new Io({
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    env: {},
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdoutFd: fd,
  });
}

describe('the table', () => {
  it('moves forward only, but for a disarm (sending back to prepared, nothing sent); an ending leads at most to resolved', () => {
    for (const from of STEPS) {
      for (const to of LIFECYCLE[from].to) expect(STEPS).toContain(to);
      if (LIFECYCLE[from].ends || from === 'resolved')
        expect(LIFECYCLE[from].to.every((to) => to === 'resolved')).toBe(true);
    }
    // OrderMachine.disarm: a row armed and never sent, written back as what it is when its plan is interrupted.
    expect(STEPS.filter((from) => mayMove(from, 'prepared'))).toEqual(['sending']);
    expect(STEPS.filter((from) => mayMove(from, 'sending'))).toEqual(['prepared']);
    expect(STEPS.filter((from) => mayMove(from, 'accepted'))).toEqual(['sending', 'accepted']);
  });

  it('refused only before the order was accepted (certainly nothing charged); abandoned from any live phase', () => {
    expect(STEPS.filter((from) => mayMove(from, 'refused'))).toEqual(['prepared', 'sending']);
    expect(STEPS.filter((from) => mayMove(from, 'abandoned'))).toEqual(['prepared', 'sending', 'accepted']);
    expect(STEPS.filter((from) => mayMove(from, 'delivered') || mayMove(from, 'failed'))).toEqual(['accepted']);
    expect(STEPS.filter((from) => mayMove(from, 'resolved'))).toEqual(['delivered', 'failed']);
  });

  it('what each step makes durable, and the ending its record keeps', () => {
    const phases = ['prepared', 'sending', 'accepted'];
    for (const step of STEPS)
      expect(LIFECYCLE[step].writes).toBe(
        phases.includes(step) ? 'intent' : step === 'delivered' || step === 'failed' ? 'record' : 'removal',
      );
    expect(STEPS.map((step) => LIFECYCLE[step].ends)).toEqual([
      undefined,
      undefined,
      undefined,
      'delivered',
      'failed',
      undefined,
      'refused',
      'abandoned',
    ]);
  });

  it("each durable step's failpoint is a known one, fired in the order FAILPOINTS lists them", () => {
    const named = STEPS.map((step) => LIFECYCLE[step].failpoint).filter((f) => f !== undefined);
    expect(named).toEqual([
      'intent.written',
      'sending.written',
      'order.accepted',
      'delivered',
      'delivered',
      'resolved',
    ]);
    const order = [...new Set(named)].map((f) => FAILPOINTS.indexOf(f));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((i) => i >= 0)).toBe(true);
  });

  it('checkMove refuses any other move as a bug, naming both steps', () => {
    expect(() => checkMove('prepared', 'accepted')).toThrow(
      new Error('order lifecycle: no move from prepared to accepted'),
    );
    expect(() => checkMove('resolved', 'resolved')).toThrow('no move from resolved to resolved');
    expect(() => checkMove('accepted', 'accepted')).not.toThrow();
  });

  it('an intent in the legacy phase `delivered` moves on as an accepted one', () => {
    expect(stepOf({ phase: 'delivered' } as Intent)).toBe('accepted');
    expect(stepOf({ phase: 'sending' } as Intent)).toBe('sending');
  });
});

/** Every durable step of an order whose codes go to no file, in order: what it passes, whether it completes or fails. */
const NO_FILE_STEPS = ['intent.written', 'sending.written', 'request.sent', 'order.accepted', 'delivered', 'resolved'];

describe('the failpoints each path passes', () => {
  const deps = (url: string) => {
    const journal = freshJournal();
    const c = capturedIo();
    return { journal, c, deps: { io: c.io, api: clientOf(url), journal, signal: new AbortController().signal } };
  };

  it('order place --wait --out: every step of the table, each once, in order', async () => {
    const { journal, deps: d } = deps(server.url);
    const path = join(tempDir(), 'codes.csv');
    const { intent } = await journal.begin({
      ...specFor(server.url),
      wait: true,
      out: { path, force: false, csvRaw: false },
    });
    const driven = await driveIntent(d, intent, { wait: true, out: intent.out, intervalS: 0.01 });
    await finish(d.io, journal, driven);
    expect(fired).toEqual([
      'intent.written',
      'sending.written',
      'request.sent',
      'order.accepted',
      'codes.tmp-written',
      'codes.identity-written',
      'codes.committed',
      'codes.renamed',
      'delivered',
      'resolved',
    ]);
    expect(existsSync(path)).toBe(true);
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({
      outcome: 'delivered',
      orderId: driven.order.id,
    });
  });

  it("the codes file's identity is on disk when codes.identity-written fires, before the rename; the status when order.accepted fires", async () => {
    const { journal, deps: d } = deps(server.url);
    const path = join(tempDir(), 'codes.json');
    const { intent } = await journal.begin({
      ...specFor(server.url),
      wait: true,
      out: { path, force: false, csvRaw: false, format: 'json' },
    });
    const seen: Record<string, unknown> = {};
    at.fire = (name) => {
      const onDisk = journal.find(intent.key);
      if (name === 'order.accepted')
        seen.accepted = { phase: onDisk?.phase, orderId: onDisk?.orderId, status: onDisk?.status };
      if (name === 'codes.identity-written')
        seen.identity = { files: onDisk?.files?.map((f) => f.path), target: existsSync(path) };
      if (name === 'codes.tmp-written') seen.tmp = { files: onDisk?.files?.length ?? 0, target: existsSync(path) };
    };
    const driven = await driveIntent(d, intent, { wait: true, out: intent.out, intervalS: 0.01 });
    expect(seen.accepted).toEqual({ phase: 'accepted', orderId: driven.order.id, status: expect.any(String) });
    expect(seen.tmp).toEqual({ files: 0, target: false });
    expect(seen.identity).toEqual({ files: [path], target: false });
  });

  it('a failed order: accepted, then delivered (the order reached the user) and resolved; exit 6 after', async () => {
    const { journal, c, deps: d } = deps(failing.url);
    const { intent } = await journal.begin({ ...specFor(failing.url), wait: true });
    const driven = await driveIntent(d, intent, { wait: true, intervalS: 0.01 });
    expect(driven.ending).toBe('failed');
    await expect(finish(d.io, journal, driven)).rejects.toBeInstanceOf(OrderEndedError);
    expect(fired).toEqual(NO_FILE_STEPS);
    expect(c.out()).toContain(driven.order.id);
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'failed', status: 'failed' });
  });

  it('a refusal ends the intent at once: no request.sent, nothing delivered or resolved', async () => {
    const { journal, deps: d } = deps(server.url);
    const { intent } = await journal.begin(specFor(server.url, 'no-such-product'));
    await expect(driveIntent(d, intent, { wait: false, intervalS: 0.01 })).rejects.toMatchObject({
      status: expect.any(Number),
    });
    expect(fired).toEqual(['intent.written', 'sending.written']);
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'refused' });
  });

  it("a plan's new row, begun `sending` at once (armed): intent.written and sending.written once each, that line on disk at both", async () => {
    const { journal, deps: d } = deps(server.url);
    const onDisk: string[] = [];
    at.fire = (name) => {
      if (name === 'intent.written' || name === 'sending.written')
        onDisk.push(
          `${name}: ${journal
            .read()
            .intents.map((i) => i.phase)
            .join()}`,
        );
    };
    const begun = await journal.begin({ ...specFor(server.url), armed: true });
    expect(begun).toMatchObject({ armed: true, resumed: false, intent: { phase: 'sending' } });
    expect(onDisk).toEqual(['intent.written: sending', 'sending.written: sending']);
    const driven = await driveIntent(d, new OrderMachine(d, begun.intent, true), { wait: false, intervalS: 0.01 });
    await finish(d.io, journal, driven);
    expect(fired).toEqual(NO_FILE_STEPS);
    // Not armed: written `prepared`, as one order is, and no sending.written until its machine arms it.
    fired.length = 0;
    const plain = await journal.begin(specFor(server.url, 'steam-us-20'));
    expect(plain).not.toHaveProperty('armed');
    expect(plain.intent.phase).toBe('prepared');
    expect(fired).toEqual(['intent.written']);
  });

  it('a new status in the same phase is written without firing its phase failpoint again', async () => {
    const slow = await inProcessServer({ fulfilAfterMs: 60 });
    try {
      const { journal, deps: d } = deps(slow.url);
      const { intent } = await journal.begin({ ...specFor(slow.url), wait: true });
      const driven = await driveIntent(d, intent, { wait: true, intervalS: 0.01 });
      expect(driven.order.status).toBe('completed');
      expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', status: 'completed' });
      expect(fired.filter((f) => f === 'order.accepted')).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });
});

describe('driveIntent', () => {
  it('waits with the given interval and --timeout: an order that never ends is exit 7, its intent kept accepted', async () => {
    const never = await inProcessServer({ fulfilAfterMs: 3_600_000 });
    try {
      const journal = freshJournal();
      const { intent } = await journal.begin({ ...specFor(never.url), wait: true });
      const d = { io: capturedIo().io, api: clientOf(never.url), journal, signal: new AbortController().signal };
      const error = await driveIntent(d, intent, { wait: true, intervalS: 0.01, timeoutS: 0.2 }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        exitCode: 7,
        code: 'wait_timeout',
        message: expect.stringContaining('after 0.2s'),
      });
      expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted' });
    } finally {
      await never.close();
    }
  });
});

describe('deliver and settle', () => {
  it('nothing to deliver: printed and flushed, no record, no failpoint; nothing to settle: no failpoint', async () => {
    const journal = freshJournal();
    const c = capturedIo();
    await deliver(c.io, journal, () => c.io.out('no orders'), []);
    expect(await settle(journal, [])).toEqual([]);
    expect(c.out()).toBe('no orders\n');
    expect(fired).toEqual([]);
    expect(existsSync(journal.history.dir)).toBe(false);
  });

  // A review: the codes written, then "cannot write the order journal lock: permission denied" and the hint "use a path
  // you can write to", which read as another config directory, and a new order.
  it('a record that cannot be written says what reached the user and where, and that the same command charges nothing', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_j' });
    const c = capturedIo();
    journal.recordDelivery = () =>
      Promise.reject(
        new LocalError('cannot write the order journal lock /x/.lock: permission denied', {
          code: 'journal_unwritable',
          hint: 'use a path you can write to, or fix its permissions',
        }),
      );
    const error = await deliver(c.io, journal, () => c.io.out('ord_j'), [
      { intent: accepted, ending: 'delivered', written: { path: '/srv/codes.csv' } },
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 8,
      code: 'journal_unwritable',
      message:
        'cannot write the order journal lock /x/.lock: permission denied; order ord_j reached you (its codes are in /srv/codes.csv), but the journal could not record it',
      hint: "keep that file; once this config directory's journal can be written again (its permissions, its disk: never another directory, which would place a new order), run the same command again: it finds that order, and writes and charges nothing",
    });
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', orderId: 'ord_j' });
  });

  it('a record that cannot be written, for outcomes printed, for several, or for a cause that is no CliError', async () => {
    const journal = freshJournal();
    const accepted = async (productId: string, orderId: string): Promise<Intent> => {
      const { intent } = await journal.begin(specFor(server.url, productId));
      return journal.save({ ...intent, phase: 'accepted', orderId });
    };
    const [a, b] = [await accepted('steam-us-20', 'ord_a'), await accepted('apple-us-25', 'ord_b')];
    const c = capturedIo();
    journal.recordDelivery = () => Promise.reject(new Error('EIO: i/o error'));
    const printed = await deliver(c.io, journal, () => c.io.out('x'), [
      { intent: a, ending: 'delivered', written: { path: '-' } },
    ]).catch((e: unknown) => e);
    expect(printed).toMatchObject({
      exitCode: 8,
      code: 'journal_unwritable',
      message: 'EIO: i/o error; order ord_a reached you (printed above), but the journal could not record it',
      hint: "once this config directory's journal can be written again (its permissions, its disk: never another directory, which would place a new order), run the same command again: it finds that order, and writes and charges nothing",
    });
    const two = await deliver(c.io, journal, () => c.io.out('x'), [
      { intent: a, ending: 'delivered', written: { path: '/srv/a.csv' } },
      { intent: b, ending: 'delivered', written: { path: '/srv/b.csv' } },
    ]).catch((e: unknown) => e);
    expect(two).toMatchObject({
      message:
        'EIO: i/o error; 2 orders reached you (printed above; codes in /srv/a.csv, /srv/b.csv), but the journal could not record it',
      hint: "keep those files; once this config directory's journal can be written again (its permissions, its disk: never another directory, which would place a new order), run the same command again: it finds them, and writes and charges nothing",
    });
    const none = await deliver(c.io, journal, () => c.io.out('x'), [
      { intent: a, ending: 'delivered' },
      { intent: b, ending: 'failed' },
    ]).catch((e: unknown) => e);
    expect((none as Error).message).toBe(
      'EIO: i/o error; 2 orders reached you (printed above), but the journal could not record it',
    );
  });

  it('a stdout closed at the start is no delivery: exit 8, no record, no failpoint, the intent kept', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_c' });
    fired.length = 0;
    const fd = openSync('/dev/null', 'r+');
    try {
      const closed = stdoutOn(fd);
      await expect(
        deliver(closed, journal, () => closed.out('ord_c'), [{ intent: accepted, ending: 'delivered' }]),
      ).rejects.toMatchObject({
        exitCode: 8,
        code: 'output_failed',
        // The order placed is named, its id in --json's error, and the hint says the same command picks it up (a
        // review, stop 78: the mailed error and hint never said a charge happened).
        message: expect.stringMatching(/: the order ord_c was placed, and is not taken as having reached you$/),
        hint: expect.stringMatching(/^send stdout somewhere .*; it picks up the same order, never a second charge$/),
        orderId: 'ord_c',
      });
      // Two orders: both named, no single orderId; one never placed (no order id) is not named at all.
      const second = journal.save({
        ...(await journal.begin(specFor(server.url, 'steam-us-20'))).intent,
        phase: 'accepted',
        orderId: 'ord_d',
      });
      const unsent = (await journal.begin(specFor(server.url, 'apple-us-25'))).intent;
      const both = stdoutOn(fd);
      const error = (await deliver(both, journal, () => both.out('x'), [
        { intent: accepted, ending: 'delivered' },
        { intent: second, ending: 'delivered' },
        { intent: unsent, ending: 'delivered' },
      ]).catch((e: unknown) => e)) as CliError;
      expect(error.message).toMatch(/: the orders ord_c, ord_d were placed, and are not taken as having reached you$/);
      expect(error.hint).toMatch(/; it picks up the same orders, never a second charge$/);
      expect(error.orderId).toBeUndefined();
      // None placed: the error as it was.
      const none = stdoutOn(fd);
      const plain = (await deliver(none, journal, () => none.out('x'), [{ intent: unsent, ending: 'delivered' }]).catch(
        (e: unknown) => e,
      )) as CliError;
      expect(plain.message).not.toContain('placed');
      // Another failure of the flush passes as it is.
      const odd = capturedIo().io;
      odd.flushOut = () => Promise.reject(new LocalError('odd', { code: 'other' }));
      await expect(
        deliver(odd, journal, () => undefined, [{ intent: accepted, ending: 'delivered' }]),
      ).rejects.toMatchObject({ code: 'other', message: 'odd' });
      odd.flushOut = () => Promise.reject(new Error('plain'));
      await expect(deliver(odd, journal, () => undefined, [{ intent: accepted, ending: 'delivered' }])).rejects.toThrow(
        /^plain$/,
      );
    } finally {
      closeSync(fd);
    }
    // No delivery's failpoint (the two later notes' begins fire theirs).
    expect(fired.filter((name) => name !== 'intent.written')).toEqual([]);
    expect(journal.history.get(intent.key, scopeOf(intent))).toBeUndefined();
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted' });
  });

  // A review's nightly job (Python's DEVNULL, --out as the docs advise) exited 8 every night with its codes file in
  // place, and stopped ordering; then one failed order did the same.
  it('a stdout nobody reads is no failure where every outcome reached the user otherwise: a codes file, or a failure', async () => {
    const fd = openSync('/dev/null', 'r+');
    const unread = (): Io => stdoutOn(fd);
    try {
      const journal = freshJournal();
      const accepted = async (productId: string, orderId: string): Promise<Intent> => {
        const { intent } = await journal.begin(specFor(server.url, productId));
        return journal.save({ ...intent, phase: 'accepted', orderId });
      };
      const filed = await accepted('amazon-us-25', 'ord_f');
      const failed = await accepted('steam-us-20', 'ord_x');
      const printed = await accepted('apple-us-25', 'ord_p');
      const forgiven = unread();
      await deliver(forgiven, journal, () => forgiven.out('x'), [
        { intent: filed, ending: 'delivered', written: { path: '/tmp/f.csv' } },
        { intent: failed, ending: 'failed' },
      ]);
      // Forgiven for the run: its final flush does not fail either.
      await expect(forgiven.flushOut()).resolves.toBeUndefined();
      expect(journal.history.get(filed.key, scopeOf(filed))?.outcome).toBe('delivered');
      expect(journal.history.get(failed.key, scopeOf(failed))?.outcome).toBe('failed');
      // One outcome that only stdout would have carried: exit 8, nothing recorded.
      const kept = unread();
      await expect(
        deliver(kept, journal, () => kept.out('x'), [{ intent: printed, ending: 'delivered', written: { path: '-' } }]),
      ).rejects.toMatchObject({ exitCode: 8 });
      expect(journal.history.get(printed.key, scopeOf(printed))).toBeUndefined();
      // An order fetched (watch, codes get): its codes in a file, or its failure, need no stdout; codes to it do.
      const fetched = { orderId: 'ord_w', baseUrl: server.url };
      await deliver(unread(), journal, () => undefined, { ...fetched, codes: true, out: '/tmp/w.csv' });
      await deliver(unread(), journal, () => undefined, { ...fetched, codes: false, ending: 'failed' });
      for (const delivery of [
        { ...fetched, codes: true, out: '-' },
        { ...fetched, codes: false },
        { ...fetched, codes: true },
      ])
        await expect(
          deliver(unread(), journal, () => undefined, delivery),
          JSON.stringify(delivery),
        ).rejects.toMatchObject({
          exitCode: 8,
        });
    } finally {
      closeSync(fd);
    }
  });

  it('sayReached names where the codes went: a file, or standard output', () => {
    const c = capturedIo();
    sayReached(c.io, [
      { key: 'k1', orderId: 'ord_1', out: { path: '-' } } as Intent,
      { key: 'k2', out: { path: '/x/c.csv' } } as Intent,
      { key: 'k3', orderId: 'ord_3' } as Intent,
    ]);
    expect(
      c
        .err()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.replace(/^\S+ /, '')),
    ).toEqual([
      'the interrupted order ord_1 had already reached you (codes written to standard output); it is complete',
      'the interrupted order k2 had already reached you (codes in /x/c.csv); it is complete',
      'the interrupted order ord_3 had already reached you; it is complete',
    ]);
  });

  it('an outcome of an intent the table cannot end so (still prepared) is refused before any record', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    fired.length = 0;
    const c = capturedIo();
    await expect(deliver(c.io, journal, () => c.io.out('x'), [{ intent, ending: 'delivered' }])).rejects.toThrow(
      'order lifecycle: no move from prepared to delivered',
    );
    expect(journal.history.get(intent.key, scopeOf(intent))).toBeUndefined();
    expect(fired).toEqual([]);
  });

  it('an order fetched by watch or codes get: delivered fires, no record is written by deliver; settle fires resolved', async () => {
    const journal = freshJournal();
    const c = capturedIo();
    const delivery = { orderId: 'ord_w', baseUrl: server.url, codes: false };
    await deliver(c.io, journal, () => c.io.out('ord_w completed'), delivery);
    expect(fired).toEqual(['delivered']);
    expect(existsSync(journal.history.dir) ? readdirSync(journal.history.dir) : []).toEqual([]);
    await settle(journal, delivery);
    expect(fired).toEqual(['delivered', 'resolved']);
  });

  it("a failed order watched to its end settles its interrupted intent with a codes file too (those codes never come), as 'failed'", async () => {
    const journal = freshJournal();
    const dead = { pid: 999_999_999 };
    const { intent } = await journal.begin(specFor(server.url));
    journal.save({
      ...intent,
      phase: 'accepted',
      orderId: 'ord_f',
      owner: dead,
      out: { path: join(tempDir(), 'c.csv'), force: false, csvRaw: false },
    });
    await settle(journal, { orderId: 'ord_f', baseUrl: server.url, codes: false });
    expect(journal.read().intents).toHaveLength(1);
    await settle(journal, { orderId: 'ord_f', baseUrl: server.url, codes: false, ending: 'failed' });
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'failed', orderId: 'ord_f' });
  });

  it("an order fetched settles only its own interrupted intents on its own server: never another order's, never the same id's on another server", async () => {
    // Order ids are one server's names: a codes get of ord_x on the test server must not end an interrupted order
    // of ord_x on another server, nor another order here (a scoped mutation run found the match unasked).
    const journal = freshJournal();
    const dead = { pid: 999_999_999 };
    const keep = async (orderId: string, baseUrl: string, productId: string): Promise<Intent> => {
      const { intent } = await journal.begin({ ...specFor(baseUrl, productId) });
      journal.save({ ...intent, phase: 'accepted', orderId, owner: dead });
      return intent;
    };
    const mine = await keep('ord_x', server.url, 'amazon-us-25');
    const other = await keep('ord_y', server.url, 'steam-us-20');
    const elsewhere = await keep('ord_x', 'http://127.0.0.1:9', 'apple-us-50');
    const settled = await settle(journal, {
      orderId: 'ord_x',
      baseUrl: server.url,
      codes: true,
      out: '-',
      by: 'codes get',
    });
    expect(settled.map((i) => i.key)).toEqual([mine.key]);
    expect(
      journal
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual([other.key, elsewhere.key].sort());
    expect(journal.history.get(mine.key, scopeOf(mine))).toMatchObject({ finishedBy: 'codes get', out: '-' });
    // The mark order place reads before it looks for such a record (one stat instead of every record).
    expect(journal.history.markedWithinDay('finished')).toBe(true);
  });

  it('the record is written once, by deliver, when the outcome reached the user; settle only takes the intent out of the journal', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_once', status: 'completed' });
    const reachedAt = Date.parse('2026-01-02T00:00:00.000Z');
    const c = capturedIo();
    const delivery = [{ intent: accepted, ending: 'delivered' as const }];
    await deliver(c.io, journal, () => c.io.out('ord_once'), delivery, reachedAt);
    // What it ended is what it returns: the intents delivered, nothing else.
    expect((await settle(journal, delivery, reachedAt + 3_600_000)).map((i) => i.key)).toEqual([intent.key]);
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({
      outcome: 'delivered',
      orderId: 'ord_once',
      endedAt: '2026-01-02T00:00:00.000Z',
    });
  });

  // order resume names itself in the record it writes, so that the same order place run again asks first (a review
  // resumed, ran the command again, and was charged twice without a word); the mark lets order place look.
  it("an outcome delivered in its run's place (finishedBy): its record names the command, and the mark is dated", async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_r', status: 'completed' });
    const at = Date.parse('2026-01-02T00:00:00.000Z');
    expect(journal.history.markedWithinDay('finished', at)).toBe(false);
    await deliver(
      capturedIo().io,
      journal,
      () => undefined,
      [{ intent: accepted, ending: 'delivered', finishedBy: 'order resume' }],
      at,
    );
    expect(journal.history.get(intent.key, scopeOf(intent))?.finishedBy).toBe('order resume');
    expect(journal.history.markedWithinDay('finished', at)).toBe(true);
    // Its own run's delivery names nothing, and dates no mark.
    const own = freshJournal();
    const begun = await own.begin(specFor(server.url));
    const mine = own.save({ ...begun.intent, phase: 'accepted', orderId: 'ord_m', status: 'completed' });
    await deliver(capturedIo().io, own, () => undefined, [{ intent: mine, ending: 'delivered' }], at);
    expect(own.history.get(mine.key, scopeOf(mine))?.finishedBy).toBeUndefined();
    expect(own.history.markedWithinDay('finished', at)).toBe(false);
  });

  // A --query that failed when applied (a type error) after the order was placed: exit 8 naming it, never exit 2's
  // "nothing was sent" (a review); another error, or one printing an order fetched, passes on as it was.
  it('a --query that fails when applied to the outcomes: query_failed, exit 8, the orders named and kept', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_f', status: 'completed' });
    const bad = new UsageError('--query: Invalid type: abs() expected a number.', { code: 'bad_query' });
    const failing = () => {
      throw bad;
    };
    await expect(
      deliver(capturedIo({ json: true }).io, journal, failing, [{ intent: accepted, ending: 'delivered' }]),
    ).rejects.toMatchObject({
      code: 'query_failed',
      exitCode: 8,
      message:
        '--query: Invalid type: abs() expected a number: the order ord_f it was given is not taken as having reached you',
      hint: expect.stringContaining('(e.g. id); it picks up the same order'),
    });
    expect(journal.history.get(intent.key, scopeOf(intent))).toBeUndefined();
    expect(journal.read().intents.map((i) => i.key)).toEqual([intent.key]);
    await expect(
      deliver(capturedIo({ json: true }).io, journal, failing, { orderId: 'ord_f', baseUrl: server.url, codes: false }),
    ).rejects.toBe(bad);
    const other = new Error('disk');
    await expect(
      deliver(capturedIo().io, journal, () => Promise.reject(other), [{ intent: accepted, ending: 'delivered' }]),
    ).rejects.toBe(other);
  });

  // A script that read `orderId` where the order says `id` printed null, and its corrected re-run was a second charge.
  it('a --query that named a field the order lacks: no record, the intent kept, exit 8 (the order was sent); not for codes in a file or an order fetched', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(specFor(server.url));
    const accepted = journal.save({ ...intent, phase: 'accepted', orderId: 'ord_q', status: 'completed' });
    // `list`: the document the query was applied to was a list (a plan's rows, resume --all), as Io.outJson notes.
    const missing = (list = false): Io => {
      const c = capturedIo({ json: true });
      c.io.queryAbsent = '--query "orderId" gave null';
      c.io.queriedList = list;
      return c.io;
    };
    await expect(
      deliver(missing(), journal, () => undefined, [{ intent: accepted, ending: 'delivered' }]),
    ).rejects.toMatchObject({
      code: 'query_selected_nothing',
      exitCode: 8,
      message: '--query "orderId" gave null: the order ord_q it was given is not taken as having reached you',
      hint: expect.stringContaining('run the same command again with a --query that names a field it has (e.g. id)'),
    });
    expect(journal.history.get(intent.key, scopeOf(intent))).toBeUndefined();
    expect(journal.read().intents.map((i) => i.key)).toEqual([intent.key]);
    // Its codes went to a file: they reached the user there.
    await deliver(missing(), journal, () => undefined, [
      { intent: accepted, ending: 'delivered', written: { path: '/tmp/c.csv' } },
    ]);
    expect(journal.history.get(intent.key, scopeOf(intent))?.outcome).toBe('delivered');
    // To stdout (`-`) they did not: kept.
    const other = freshJournal();
    const next = await other.begin(specFor(server.url));
    const printed = other.save({ ...next.intent, phase: 'accepted', orderId: 'ord_p', status: 'completed' });
    await expect(
      deliver(missing(), other, () => undefined, [{ intent: printed, ending: 'delivered', written: { path: '-' } }]),
    ).rejects.toMatchObject({ code: 'query_selected_nothing' });
    // An order fetched (watch, codes get) has nothing to keep pending.
    await deliver(missing(), other, () => undefined, { orderId: 'ord_p', baseUrl: server.url, codes: false });
    // Many outcomes printed as a list (a plan's rows, resume --all): kept all, unless every one went to a file.
    const both = await other.begin(specFor(server.url, 'steam-us-20'));
    const second = other.save({ ...both.intent, phase: 'accepted', orderId: 'ord_s', status: 'completed' });
    await expect(
      deliver(missing(true), other, () => undefined, [
        { intent: printed, ending: 'delivered', written: { path: '/tmp/p.csv' } },
        { intent: second, ending: 'delivered' },
      ]),
    ).rejects.toMatchObject({
      code: 'query_selected_nothing',
      message: '--query "orderId" gave null: the orders ord_p, ord_s it was given are not taken as having reached you',
      hint: expect.stringContaining('(e.g. [].order.id); it picks up the same orders'),
    });
    expect(other.history.get(second.key, scopeOf(second))).toBeUndefined();
    await deliver(missing(), other, () => undefined, [
      { intent: printed, ending: 'delivered', written: { path: '/tmp/p.csv' } },
      { intent: second, ending: 'delivered', written: { path: '/tmp/s.csv' } },
    ]);
    expect(other.history.get(second.key, scopeOf(second))?.outcome).toBe('delivered');
  });

  it('endedRecord: the intent as a record with its end time, and only the code and message of an error', () => {
    const intent = {
      key: 'k',
      orderId: 'ord_1',
      productId: 'p',
      quantity: 1,
      environment: 'test',
      profile: 'default',
      baseUrl: 'http://x',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      phase: 'accepted',
    } as Intent;
    const at = Date.parse('2026-01-02T00:00:00.000Z');
    expect(endedRecord(intent, 'delivered', at)).toMatchObject({
      key: 'k',
      orderId: 'ord_1',
      outcome: 'delivered',
      endedAt: '2026-01-02T00:00:00.000Z',
    });
    expect(endedRecord(intent, 'delivered', at)).not.toHaveProperty('error');
    const error = Object.assign(new Error('refused'), { code: 'invalid_product', status: 422 });
    expect(endedRecord(intent, 'refused', at, error).error).toEqual({ code: 'invalid_product', message: 'refused' });
  });
});
