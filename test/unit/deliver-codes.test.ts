// The codes delivery path as codes get and order watch take it (orders/deliver.ts), called directly against the
// reference server: the target checked before anything is fetched, an existing file that holds exactly these
// codes taken as the earlier delivery (and any other refused), a short standard output, and an order fetched by
// a verb that charges nothing settling the interrupted intents of that order.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import { InterruptedError, NetworkError } from '../../src/errors.js';
import { scopeOf, type OrderRecord } from '../../src/journal/history.js';
import { keyIdOf, type Intent, type OutSpec } from '../../src/journal/intent.js';
import { fileIdentity } from '../../src/journal/codes-file.js';
import { checkCodesTarget, deliverCodes, deliverFetched, recordedIn, recordingIn } from '../../src/orders/deliver.js';
import { deadPid, tempDir } from '../helpers/e2e.js';
import { capturedIo, clientOf, freshJournal, inProcessServers, KEY } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {} });

/** The failpoints fired in this process, in order (journal.locked left out: it fires at every lock). */
const fired = vi.hoisted(() => [] as string[]);
vi.mock('../../src/failpoints.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/failpoints.js')>();
  const record = (name: string): void => {
    if (name !== 'journal.locked') fired.push(name);
  };
  return { ...real, failpoint: (name: string) => Promise.resolve(record(name)), failpointSync: record };
});
beforeEach(() => {
  fired.length = 0;
});

const outTo = (path: string, format?: OutSpec['format']): OutSpec => ({
  path,
  force: false,
  csvRaw: false,
  ...(format ? { format } : {}),
});

/** A completed order of `quantity` codes on the reference server. */
async function order(quantity = 2): Promise<{ api: ApiClient; orderId: string }> {
  const api = clientOf(servers.server.url);
  const { order } = await api.createOrder(JSON.stringify({ product_id: 'amazon-us-25', quantity }), randomUUID());
  return { api, orderId: order.id };
}

const base = (api: ApiClient, orderId: string, out: OutSpec, io = capturedIo().io) => ({
  api,
  orderId,
  out,
  io,
  signal: new AbortController().signal,
});

/** An API whose codes cannot be read: `error` at the first page. */
function unreadable(real: ApiClient, error: Error): ApiClient {
  // eslint-disable-next-line require-yield
  async function* pages(): AsyncGenerator<never> {
    throw error;
  }
  return Object.assign(Object.create(real) as ApiClient, { codePages: pages, rawCodePages: pages });
}

describe('checkCodesTarget', () => {
  it('standard output and a new file pass; an existing file is kept as its refusal, to compare later; --force passes it; a missing folder is refused at once', async () => {
    const dir = tempDir();
    const path = join(dir, 'codes.json');
    await expect(checkCodesTarget('-', false)).resolves.toBeUndefined();
    await expect(checkCodesTarget(path, false)).resolves.toBeUndefined();
    writeFileSync(path, '[]\n');
    await expect(checkCodesTarget(path, false)).resolves.toMatchObject({ code: 'out_exists', exitCode: 2 });
    await expect(checkCodesTarget(path, true)).resolves.toBeUndefined();
    await expect(checkCodesTarget(join(dir, 'no-such-folder', 'c.json'), false)).rejects.toMatchObject({
      exitCode: 2,
    });
  });
});

describe('deliverCodes to a file', () => {
  it('a target whose lock the caller took before the charge is written under that lock, not refused as busy', async () => {
    const { api, orderId } = await order();
    const path = join(tempDir(), 'codes.json');
    const { holdOutTarget } = await import('../../src/export/out-target.js');
    const lock = holdOutTarget(path, false, () => false);
    try {
      expect(await deliverCodes({ ...base(api, orderId, outTo(path)), lock })).toEqual({
        path,
        count: 2,
        format: 'json',
      });
    } finally {
      lock.release();
    }
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveLength(2);
  });
});

describe('deliverCodes with an existing file', () => {
  it('a file that holds exactly these codes is the earlier delivery: left as it was; any other file is refused', async () => {
    const { api, orderId } = await order();
    const path = join(tempDir(), 'codes.csv');
    const first = await deliverCodes(base(api, orderId, outTo(path)));
    expect(first).toEqual({ path, count: 2, format: 'csv' });
    // Without an intent there is no identity to record: the complete temporary file, then the file in place.
    expect(fired).toEqual(['codes.tmp-written', 'codes.renamed']);
    fired.length = 0;
    const bytes = readFileSync(path, 'utf8');
    // A comparison killed midway left its copy of every code, and the temporary file that copy was written through:
    // the next comparison removes them, and leaves nothing of its own (they were never swept: a review).
    const dead = deadPid();
    const dir = dirname(path);
    const copy = `.codes.csv.giftcodes-check-${dead}-0123456789ab.tmp`;
    writeFileSync(join(dir, copy), bytes);
    writeFileSync(join(dir, `.${copy}.giftcodes-${dead}-0123456789ab.tmp`), bytes);
    const existing = await checkCodesTarget(path, false);
    expect(await deliverCodes({ ...base(api, orderId, outTo(path)), existing })).toEqual({
      path,
      count: 2,
      format: 'csv',
      already: true,
    });
    expect(readFileSync(path, 'utf8')).toBe(bytes);
    expect(readdirSync(dir)).toEqual(['codes.csv']);
    // The codes are where the user asked: the same step as a file renamed into place.
    expect(fired).toEqual(['codes.renamed']);
    writeFileSync(path, 'code\nSOMEONE-ELSES\n');
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing })).rejects.toBe(existing);
    expect(readFileSync(path, 'utf8')).toBe('code\nSOMEONE-ELSES\n');
  });

  // A file holding what a short list gave (`codes get --format jsonl > f`, exit 5, its lines written) was "already
  // holds the 6 codes", exit 0: the comparison reads the codes with the order's quantity checked (a desk review).
  it("an existing file compared with fewer codes than the order's quantity: exit 5, the file left as it was", async () => {
    const { api, orderId } = await order(2);
    const path = join(tempDir(), 'codes.csv');
    await deliverCodes(base(api, orderId, outTo(path)));
    const bytes = readFileSync(path, 'utf8');
    const existing = await checkCodesTarget(path, false);
    // Too few lines for 3 codes: refused before a page is fetched (a person's day waited for every page first).
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing, expected: 3 })).rejects.toMatchObject({
      code: 'out_exists',
      exitCode: 2,
      message: expect.stringContaining('exists and holds 3 lines, too few for the 3 codes of order'),
    });
    expect(readFileSync(path, 'utf8')).toBe(bytes);
    // Lines enough, compared whole: the API's 2 codes of an order of 3 are a short list (exit 5), never "already".
    const padded = `${bytes}x\r\n`;
    writeFileSync(path, padded);
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing, expected: 3 })).rejects.toMatchObject({
      code: 'partial_result',
      exitCode: 5,
    });
    expect(readFileSync(path, 'utf8')).toBe(padded);
    writeFileSync(path, bytes);
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing, expected: 2 })).resolves.toMatchObject({
      already: true,
    });
  });

  // A person's day followed watch's hint into the quickstart's file of another order's codes: "exists; pass --force".
  it("a file the record says holds another order's codes is refused naming that order; this order's own, as before", async () => {
    const { api, orderId } = await order(2);
    const path = join(tempDir(), 'codes.csv');
    writeFileSync(path, 'order_id,code\r\nord_other,OTHER-1\r\n');
    const existing = await checkCodesTarget(path, false);
    const holder = {
      key: 'k-1',
      orderId: 'ord_other',
      productId: 'amazon-us-10',
      quantity: 1,
      endedAt: '2026-12-01T02:00:00.000Z',
    } as unknown as OrderRecord;
    const refused = await deliverCodes({
      ...base(api, orderId, outTo(path)),
      existing,
      heldBy: () => ({ record: holder, changed: false }),
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'out_exists',
      exitCode: 2,
      message: `${path} exists and holds the codes of order ord_other (1 × amazon-us-10, written 2026-12-01T02:00:00.000Z); nothing was written`,
      hint: `write the codes of ${orderId} to another --out file; --force would write over that order's codes`,
    });
    // Written there after that order's delivery (a codes get --out of it later): dated when written, not delivered.
    await expect(
      deliverCodes({
        ...base(api, orderId, outTo(path)),
        existing,
        heldBy: () => ({ record: { ...holder, outAt: '2026-12-01T03:30:00.000Z' }, changed: false }),
      }),
    ).rejects.toMatchObject({
      message: `${path} exists and holds the codes of order ord_other (1 × amazon-us-10, written 2026-12-01T03:30:00.000Z); nothing was written`,
    });
    // Changed since that delivery (codes marked sold in it): said as such, never as plain "exists" (a review).
    await expect(
      deliverCodes({ ...base(api, orderId, outTo(path)), existing, heldBy: () => ({ record: holder, changed: true }) }),
    ).rejects.toMatchObject({
      code: 'out_exists',
      message: `${path} exists; the codes of order ord_other (1 × amazon-us-10) were written there at 2026-12-01T02:00:00.000Z, and it has changed since; nothing was written`,
    });
    // Its own record, or none: the plain refusal.
    const own = { record: { ...holder, orderId } as OrderRecord, changed: false };
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing, heldBy: () => own })).rejects.toBe(
      existing,
    );
    await expect(deliverCodes({ ...base(api, orderId, outTo(path)), existing, heldBy: () => undefined })).rejects.toBe(
      existing,
    );
    expect(readFileSync(path, 'utf8')).toBe('order_id,code\r\nord_other,OTHER-1\r\n');
  });

  // It was the refusal of the file (exit 2, "pass --force"): a person went after the file for a 503, and a 404 never
  // reached the profile's other key (a desk review).
  it('codes that cannot be read to compare: that failure, not the refusal of the file; an interruption still interrupts', async () => {
    const { api, orderId } = await order();
    const path = join(tempDir(), 'codes.json');
    writeFileSync(path, '[]\n');
    const existing = await checkCodesTarget(path, false);
    const reset = new NetworkError('connection reset', { code: 'network_error' });
    const down = unreadable(api, reset);
    await expect(deliverCodes({ ...base(down, orderId, outTo(path)), existing })).rejects.toBe(reset);
    const stopped = unreadable(api, new InterruptedError('interrupted by SIGINT'));
    await expect(deliverCodes({ ...base(stopped, orderId, outTo(path)), existing })).rejects.toBeInstanceOf(
      InterruptedError,
    );
    expect(readFileSync(path, 'utf8')).toBe('[]\n');
  });
});

describe('deliverCodes to standard output', () => {
  const gone = (): Writable =>
    new Writable({
      write(_chunk, _e, callback) {
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });

  it('the reader gone before every code was written (codes get): no delivery, exit 8 naming the order', async () => {
    const { api, orderId } = await order();
    const error = await deliverCodes(base(api, orderId, outTo('-', 'json'), capturedIo({ stdout: gone() }).io)).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ exitCode: 8, code: 'output_failed' });
    expect((error as Error).message).toContain(`the codes of order ${orderId}`);
  });

  it('fewer codes than the intent ordered written: no delivery, exit 8 saying how many of how many', async () => {
    const { api, orderId } = await order();
    let out = '';
    const stdout = new Writable({ write: (chunk, _e, callback) => ((out += String(chunk)), callback()) });
    const intent = { quantity: 3, recordFile: () => undefined, recordRenamed: () => Promise.resolve() };
    const error = await deliverCodes({
      ...base(api, orderId, outTo('-', 'json'), capturedIo({ stdout }).io),
      intent,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 8,
      code: 'output_failed',
      message: `could not write the codes of order ${orderId} to standard output (2 of 3 written)`,
    });
    expect(JSON.parse(out)).toHaveLength(2);
  });
});

/** An interrupted order place of `orderId` in a fresh journal (its run gone), under `key` when given. */
async function interrupted(
  orderId: string,
  key?: string,
  out?: OutSpec,
): Promise<{ journal: ReturnType<typeof freshJournal>; intent: Intent }> {
  const journal = freshJournal();
  const { intent } = await journal.begin({
    profile: 'default',
    environment: 'test',
    baseUrl: servers.server.url,
    keyId: keyIdOf(KEY),
    productId: 'amazon-us-25',
    quantity: 2,
    ...(key ? { key } : {}),
    ...(out ? { out } : {}),
  });
  journal.save({ ...intent, phase: 'accepted', orderId, owner: { pid: 999_999_999 } });
  return { journal, intent };
}

describe('deliverFetched', () => {
  it('an order fetched by a verb that charges nothing: printed, then its interrupted intents on that server end as delivered', async () => {
    const { orderId } = await order();
    const { journal, intent } = await interrupted(orderId);
    const c = capturedIo();
    await deliverFetched(c.io, journal, () => c.io.out(`${orderId} completed`), {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      by: 'order watch',
    });
    expect(c.out()).toBe(`${orderId} completed\n`);
    expect(journal.read().intents).toEqual([]);
    // The record names what finished it in its run's place: the same order place again is a second order.
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({
      outcome: 'delivered',
      orderId,
      finishedBy: 'order watch',
    });
    // And the person is told so: the interrupted run's hint had said to run the same command again (a review ran
    // it again after peeking at the codes, and was charged twice).
    expect(c.err()).toContain(
      `this finished the interrupted order place of 2 × amazon-us-25 (key ${intent.key}, started ${intent.createdAt}): its order reached you here, so that order place run again places a second order`,
    );
  });

  it('a key the user chose: that order place again with it is refused, so the notice says so, not "a second order"', async () => {
    const { orderId } = await order();
    const { journal } = await interrupted(orderId, 'inv-55');
    const c = capturedIo();
    await deliverFetched(c.io, journal, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      by: 'codes get',
    });
    expect(c.err()).toContain(
      'so that order place run again with its --idempotency-key is refused (the key named one order), and without it places a second order',
    );
    // One chosen with uuidgen looks like a key journal.begin makes: the intent says it was given (a review).
    const chosen = await interrupted(orderId, '11111111-2222-4333-8444-555555555555');
    expect(chosen.journal.find(chosen.intent.key)?.keyGiven).toBe(true);
    const u = capturedIo();
    await deliverFetched(u.io, chosen.journal, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      by: 'codes get',
    });
    expect(u.err()).toContain('so that order place run again with its --idempotency-key is refused');
  });

  it("a plan row's intent is finished without a word: the same plan again reads its record and orders nothing", async () => {
    const { orderId } = await order();
    const { journal } = await interrupted(orderId, 'plan-0123456789ab0123456789ab');
    const c = capturedIo();
    await deliverFetched(c.io, journal, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      by: 'order watch',
    });
    expect(journal.read().intents).toEqual([]);
    expect(c.err()).not.toContain('this finished');
  });

  it('codes fetched say "its codes"; a failed order says nothing of a second order (it ended failed, nothing reached the user)', async () => {
    const { orderId } = await order();
    const { journal: fetched } = await interrupted(orderId);
    const c = capturedIo();
    await deliverFetched(c.io, fetched, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: true,
      out: '-',
      by: 'codes get',
    });
    expect(c.err()).toContain('its codes reached you here, so that order place run again places a second order');
    const { journal: failed } = await interrupted(orderId);
    const f = capturedIo();
    await deliverFetched(f.io, failed, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      ending: 'failed',
      by: 'codes get',
    });
    expect(failed.read().intents).toEqual([]);
    expect(f.err()).not.toContain('this finished');
  });

  // A review: killed once its codes file took its place, then codes get to another file: two copies, no word.
  it('codes fetched to another file, of an order whose own codes file took its place and is there: both said', async () => {
    const { orderId } = await order();
    const dir = tempDir();
    const first = join(dir, 'a.csv');
    writeFileSync(first, 'codes');
    const identity = { orderId, path: first, dev: 1, ino: 1, size: 5, sha256: 'x', renamed: true };
    const cases: [string, Partial<typeof identity>, string | undefined, boolean][] = [
      ['another file', {}, join(dir, 'b.csv'), true],
      ['the same file', {}, first, false],
      ['never renamed into place', { renamed: undefined }, join(dir, 'b.csv'), false],
      // Killed between the rename and its mark (codes.committed): the file there holds the identity recorded for it.
      [
        'in place, its mark never written',
        { ...fileIdentity(first, orderId, first), renamed: undefined },
        join(dir, 'b.csv'),
        true,
      ],
      ["another order's file", { orderId: 'ord_other' }, join(dir, 'b.csv'), false],
      ['moved away since', { path: join(dir, 'gone.csv') }, join(dir, 'b.csv'), false],
    ];
    for (const [what, change, out, said] of cases) {
      const { journal, intent } = await interrupted(orderId);
      journal.save({
        ...intent,
        phase: 'accepted',
        orderId,
        owner: { pid: 999_999_999 },
        files: [{ ...identity, ...change }],
      });
      const c = capturedIo();
      await deliverFetched(c.io, journal, () => undefined, {
        orderId,
        baseUrl: servers.server.url,
        codes: true,
        out,
        by: 'codes get',
      });
      const words = `the codes of order ${orderId} are in ${change.path ?? first} too, written there by an earlier run that was interrupted before its end was recorded (order place, or codes get or order watch finishing it). Both files hold the same codes: hand out one of them`;
      if (said) expect(c.err(), what).toContain(words);
      else expect(c.err(), what).not.toContain('too: that order place');
    }
    // Fetched as the order, not its codes (order watch without --out): nothing said of files.
    const { journal, intent } = await interrupted(orderId);
    journal.save({ ...intent, phase: 'accepted', orderId, owner: { pid: 999_999_999 }, files: [identity] });
    const w = capturedIo();
    await deliverFetched(w.io, journal, () => undefined, {
      orderId,
      baseUrl: servers.server.url,
      codes: false,
      by: 'order watch',
    });
    expect(w.err()).not.toContain('too: that order place');
  });
});

// codes get --out and order watch --out finishing an interrupted order place: the file recorded in its note around
// the rename, as order place records its own (a review, stop 78: killed right after the rename, no note knew of the
// file, and another --out wrote the same codes into a second file).
describe('recordingIn', () => {
  it("records the file in the interrupted note of this order on this server before the rename, marks it after; a failed export's identity is taken back", async () => {
    const { api, orderId } = await order();
    const path = join(tempDir(), 'c.csv');
    const { journal, intent } = await interrupted(orderId, undefined, outTo(path));
    fired.length = 0;
    const now = () => Date.parse('2026-12-04T06:00:00Z');
    const finishing = recordingIn(journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, now);
    expect(finishing?.intent.quantity).toBe(2);
    await deliverCodes({ ...base(api, orderId, outTo(path)), intent: finishing!.intent });
    expect(fired).toEqual(['codes.tmp-written', 'codes.identity-written', 'codes.committed', 'codes.renamed']);
    const [noted] = journal.read().intents;
    expect(noted?.files).toEqual([
      expect.objectContaining({ orderId, path, count: 2, format: 'csv', renamed: true, sha256: expect.any(String) }),
    ]);
    expect(noted?.updatedAt).toBe('2026-12-04T06:00:00.000Z');
    // The note now reads as delivered: the next run finds the codes where they went. A take-back then (an error after
    // the rename: the --query's, the print's) leaves that record.
    expect(journal.reached(noted!)).toBe('delivered');
    finishing!.takeBack();
    expect(journal.read().intents[0]?.files).toHaveLength(1);
    // Nothing to record once it is reached, nor for another order, another server, or a note a live run drives.
    expect(recordingIn(journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, now)).toBeUndefined();
    const other = await interrupted(orderId, undefined, outTo(join(tempDir(), 'own.csv')));
    // This order on this server, with a file of its own: recorded (the checks after it each change one thing).
    expect(recordingIn(other.journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, now)).toBeDefined();
    // One printed to stdout has no file to find.
    const printed = await interrupted(orderId);
    expect(
      recordingIn(printed.journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, now),
    ).toBeUndefined();
    expect(
      recordingIn(other.journal, { orderId: 'ord_other', baseUrl: servers.server.url, out: outTo(path) }, now),
    ).toBeUndefined();
    expect(
      recordingIn(other.journal, { orderId, baseUrl: 'http://127.0.0.1:9', out: outTo(path) }, now),
    ).toBeUndefined();
    // The parent process (vitest's), alive: a live run's note is its run's.
    other.journal.save({ ...other.journal.read().intents[0]!, owner: { pid: process.ppid } });
    expect(recordingIn(other.journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, now)).toBeUndefined();
    // A failed export: its recorded identity is dropped (left, it would read as codes moved away); none recorded, none dropped.
    const own = outTo(join(tempDir(), 'own.csv'));
    const failed = await interrupted(orderId, undefined, own);
    const fPath = join(tempDir(), 'f.csv');
    const taking = recordingIn(failed.journal, { orderId, baseUrl: servers.server.url, out: outTo(fPath) }, now)!;
    const error = await deliverCodes({
      ...base(unreadable(api, new NetworkError('down')), orderId, outTo(join(tempDir(), 'f.csv'))),
      intent: taking.intent,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    taking.takeBack();
    expect(failed.journal.read().intents[0]?.files ?? []).toEqual([]);
    const temp = join(tempDir(), '.f.csv.tmp');
    writeFileSync(temp, 'order_id,code\r\n');
    taking.intent.recordFile(temp, 2, 'csv');
    // The note takes this file as its own, as a takeover by another --out does; taken back, it is as it was.
    expect(failed.journal.read().intents[0]).toMatchObject({ out: { path: fPath }, files: [{ path: fPath }] });
    taking.takeBack();
    expect(failed.journal.read().intents[0]?.out).toEqual(own);
    expect(failed.journal.read().intents[0]?.files ?? []).toEqual([]);
    expect(intent.key).toBe(noted?.key);
  });

  it("the note's dead run is named among its runs gone beside its own --out, once; a file the note records, there unchanged, is found for its order only", async () => {
    const { api, orderId } = await order();
    const dir = tempDir();
    const own = join(dir, 'own.csv');
    const { journal } = await interrupted(orderId, undefined, outTo(own));
    const path = join(dir, 'b.csv');
    const finishing = recordingIn(journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, Date.now)!;
    await deliverCodes({ ...base(api, orderId, outTo(path)), intent: finishing.intent });
    const [noted] = journal.read().intents;
    expect(noted?.out?.path).toBe(path);
    // This run beside its file, named before its export (killed, its temporary file is swept at the order's end), and
    // over two writes (the identity, then its mark) one entry for the run that was to write own.csv.
    expect(noted?.leftBy).toEqual([
      { path, pid: process.pid },
      { path: own, pid: 999_999_999 },
    ]);
    // The command that began it is kept: the same command again is not this run's variant.
    expect(noted?.origin).toEqual({ out: outTo(own) });
    expect(recordedIn(journal, orderId, path)).toMatchObject({ path, orderId, renamed: true });
    expect(recordedIn(journal, 'ord_other', path)).toBeUndefined();
    expect(recordedIn(journal, orderId, own)).toBeUndefined();
    // Runs gone already named keep their places: the dead run added only where no entry names both its file and pid.
    for (const [given, wanted] of [
      [[{ path: own, pid: 999_999_999 }], [{ path: own, pid: 999_999_999 }, 'here']],
      [
        [
          { path: own, pid: 123 },
          { path: join(dir, 'x.csv'), pid: 999_999_999 },
        ],
        [
          { path: own, pid: 123 },
          { path: join(dir, 'x.csv'), pid: 999_999_999 },
          'here',
          { path: own, pid: 999_999_999 },
        ],
      ],
    ] as const) {
      const other = await interrupted(orderId, undefined, outTo(own));
      other.journal.save({ ...other.journal.read().intents[0]!, leftBy: [...given] });
      const c = join(tempDir(), 'c.csv');
      const taking = recordingIn(other.journal, { orderId, baseUrl: servers.server.url, out: outTo(c) }, Date.now)!;
      await deliverCodes({ ...base(api, orderId, outTo(c)), intent: taking.intent });
      expect(other.journal.read().intents[0]?.leftBy).toEqual(
        wanted.map((run) => (run === 'here' ? { path: c, pid: process.pid } : run)),
      );
    }
    // Changed since: no longer the file recorded.
    writeFileSync(path, 'order_id,code\r\n');
    expect(recordedIn(journal, orderId, path)).toBeUndefined();
    // A note printed to stdout (`-`) has no file to find.
    const printed = await interrupted(orderId, undefined, outTo('-'));
    expect(
      recordingIn(printed.journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, Date.now),
    ).toBeUndefined();
  });

  it("an earlier run's file that never reached its rename is taken back first; one neither in place nor in its temporary file keeps the note as it is", async () => {
    const { orderId } = await order();
    const dir = tempDir();
    const path = join(dir, 'p.csv');
    const { journal } = await interrupted(orderId, undefined, outTo(path));
    const temp = join(dir, '.p.csv.tmp');
    writeFileSync(temp, 'order_id,code\r\n');
    const pending = { ...fileIdentity(temp, orderId, path), count: 2, format: 'csv' as const };
    journal.save({ ...journal.read().intents[0]!, files: [pending] });
    expect(recordingIn(journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, Date.now)).toBeDefined();
    expect(journal.read().intents[0]?.files).toEqual([]);
    // Unaccounted: the temporary file gone, nothing at the path, no mark of a rename.
    journal.save({ ...journal.read().intents[0]!, files: [{ ...pending, temp: join(dir, '.gone.tmp') }] });
    expect(recordingIn(journal, { orderId, baseUrl: servers.server.url, out: outTo(path) }, Date.now)).toBeUndefined();
    expect(journal.read().intents[0]?.files).toHaveLength(1);
  });
});
