// The order machine's finer rules, in-process against the reference server: what a kept intent's error
// says, which fields identify a codes file, what a resumed send writes, and a short stdout.
import { scopeOf } from '../../src/journal/history.js';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, CliError, ExitCode, LocalError, NetworkError, OrderFailedError } from '../../src/errors.js';
import { type Intent } from '../../src/journal/intent.js';
import { Journal } from '../../src/journal/journal.js';
import { deliveredFile, fileIdentity, renamedFile } from '../../src/journal/codes-file.js';
import { deliver, endedRecord, settle } from '../../src/orders/lifecycle.js';
import { certainlyRefused, keptForResume, OrderMachine } from '../../src/orders/machine.js';
import { OrderEndedError } from '../../src/orders/wait.js';
import { tempDir } from '../helpers/e2e.js';
import { clientOf, inProcessServers, machineSetup, machineWithIntent } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {}, failing: { failOrders: 1 } });

const T0 = Date.parse('2026-06-01T12:00:00.000Z');

const setup = (url = servers.server.url, stdout?: Writable): ReturnType<typeof machineSetup> =>
  machineSetup(url, { stdout, now: () => T0 });
const begun = (url = servers.server.url, stdout?: Writable): ReturnType<typeof machineWithIntent> =>
  machineWithIntent(url, { stdout, now: () => T0 });

describe('keptForResume', () => {
  const intent = { key: 'k-1' } as Intent;

  it('says the order may or may not exist, and how to finish it; code, status and exit kept', () => {
    const kept = keptForResume(
      new NetworkError('connection reset', { code: 'network_error', status: 503 }),
      intent,
    ) as CliError;
    expect(kept).toBeInstanceOf(CliError);
    expect(kept).toMatchObject({
      exitCode: ExitCode.network,
      code: 'network_error',
      status: 503,
      message: 'connection reset; the order may or may not have been placed',
      hint: 'nothing is lost or charged twice: run the same command again, or: giftcodes order resume k-1',
    });
  });

  it('a local failure keeps its own mend first (a full disk: free space, then run it again)', () => {
    const kept = keptForResume(
      new LocalError('cannot write the codes file /x/codes.csv: no space left on the device (ENOSPC)', {
        code: 'write_failed',
        hint: 'free some space on that disk, then run the same command again',
      }),
      { ...intent, orderId: 'ord_7' },
    ) as CliError;
    expect(kept).toMatchObject({
      exitCode: ExitCode.local,
      message: 'cannot write the codes file /x/codes.csv: no space left on the device (ENOSPC); order ord_7 was placed',
      hint: 'free some space on that disk, then run the same command again (nothing is lost or charged twice), or: giftcodes order resume k-1',
    });
    // A local failure without a hint of its own gets the usual one.
    expect((keptForResume(new LocalError('boom'), intent) as CliError).hint).toBe(
      'nothing is lost or charged twice: run the same command again, or: giftcodes order resume k-1',
    );
  });

  it('with an order id: the order was placed', () => {
    expect(
      (keptForResume(new ApiError('boom', { status: 500 }), { ...intent, orderId: 'ord_7' }) as Error).message,
    ).toBe('boom; order ord_7 was placed');
  });

  it("only a local failure's hint is kept, and only its closing 'then run the same command again' is taken off", () => {
    const generic = 'nothing is lost or charged twice: run the same command again, or: giftcodes order resume k-1';
    const proxy = new NetworkError('reset', {
      code: 'network_error',
      hint: 'check the proxy, then run the same command again',
    });
    expect((keptForResume(proxy, intent) as CliError).hint).toBe(generic);
    const hintOf = (hint: string) => (keptForResume(new LocalError('disk', { hint }), intent) as CliError).hint;
    expect(hintOf('mend it then run the same command again')).toBe(
      'mend it, then run the same command again (nothing is lost or charged twice), or: giftcodes order resume k-1',
    );
    expect(hintOf('free space, then run the same command again (twice), and check')).toBe(
      'free space, then run the same command again (twice), and check, then run the same command again (nothing is lost or charged twice), or: giftcodes order resume k-1',
    );
  });

  it("without an order id, a message ending '; it was placed' is not taken for one already said", () => {
    const kept = keptForResume(new ApiError('boom; it was placed'), intent) as CliError;
    expect(kept.message).toBe('boom; it was placed; the order may or may not have been placed');
  });

  // `order place --wait --timeout 1 --json` said "…after 1s; it is still pending; it was placed", and its JSON
  // error did not name the order: a script parsed prose to learn which order was charged (a review).
  it("an error about a placed order keeps its id for --json, and a wait's timeout is said in one sentence", () => {
    const timeout = new CliError(ExitCode.timeout, 'gave up waiting for order ord_7 after 1s; it is still pending', {
      code: 'wait_timeout',
      orderId: 'ord_7',
      placedMessage: 'gave up waiting after 1s: order ord_7 was placed and is still pending',
    });
    const kept = keptForResume(timeout, { ...intent, orderId: 'ord_7' }) as CliError;
    expect(kept).toMatchObject({
      message: 'gave up waiting after 1s: order ord_7 was placed and is still pending',
      code: 'wait_timeout',
      orderId: 'ord_7',
      hint: 'nothing is lost or charged twice: run the same command again, or: giftcodes order resume k-1',
    });
    expect(keptForResume(kept, { ...intent, orderId: 'ord_7' })).toBe(kept);
    // Any other error after the order was accepted names it too; before, there is no order to name.
    expect(keptForResume(new NetworkError('cannot reach'), { ...intent, orderId: 'ord_7' })).toMatchObject({
      orderId: 'ord_7',
    });
    expect((keptForResume(new NetworkError('cannot reach'), intent) as CliError).orderId).toBeUndefined();
  });

  it('a message that names the order already is not told its id again', () => {
    const waiting = new CliError(ExitCode.interrupted, 'interrupted by SIGINT while waiting for order ord_7');
    const kept = keptForResume(waiting, { ...intent, orderId: 'ord_7' }) as CliError;
    expect(kept.message).toBe('interrupted by SIGINT while waiting for order ord_7; it was placed');
    expect(keptForResume(kept, { ...intent, orderId: 'ord_7' })).toBe(kept);
  });

  it('said once; a failed order and a non-CLI error pass unchanged', () => {
    const once = new ApiError('boom; order ord_7 was placed');
    expect(keptForResume(once, { ...intent, orderId: 'ord_7' })).toBe(once);
    const failed = new OrderFailedError('ended failed');
    expect(keptForResume(failed, intent)).toBe(failed);
    const bug = new Error('bug');
    expect(keptForResume(bug, intent)).toBe(bug);
  });
});

describe('certainlyRefused, the rest of the table', () => {
  it('a CLI error without a status: usage and auth only on a first attempt; others never', () => {
    expect(certainlyRefused(new CliError(ExitCode.network, 'x'), true)).toBe(false);
    expect(certainlyRefused(new CliError(ExitCode.local, 'x'), true)).toBe(false);
    expect(certainlyRefused(new CliError(ExitCode.auth, 'x'), false)).toBe(false);
    expect(certainlyRefused(new CliError(ExitCode.auth, 'x', { status: 500 }), true)).toBe(false);
    expect(certainlyRefused(new CliError(ExitCode.network, 'x', { status: 404 }), false)).toBe(false);
    expect(
      certainlyRefused(new CliError(ExitCode.network, 'x', { status: 404, code: 'product_not_found' }), false),
    ).toBe(true);
  });

  it("a 400, 404 or 422 without the API's own error code proves a refusal only when no earlier attempt may have reached the API", () => {
    for (const status of [400, 404, 422]) {
      // A proxy's HTML page is read as the code http_<status> (api/errors.ts): no API named it.
      const page = (earlierMaybeSent: boolean): CliError =>
        new ApiError('x', { status, code: `http_${status}`, earlierMaybeSent });
      expect(certainlyRefused(page(false), true), `${status} to a first request`).toBe(true);
      expect(certainlyRefused(page(true), true), `${status} to a retry within the run`).toBe(false);
      expect(certainlyRefused(page(false), false), `${status} to a resumed request`).toBe(false);
      // The API's own refusal holds whatever came before: a request it had taken would be answered with its order.
      const own = new ApiError('x', { status, code: 'product_not_found', earlierMaybeSent: true });
      expect(certainlyRefused(own, false), `${status} product_not_found`).toBe(true);
    }
  });

  it('a 401 or 403 is a refusal on a first attempt only when no attempt before it (a retry of this run) may have gone', () => {
    for (const status of [401, 403]) {
      const once = new CliError(ExitCode.auth, 'x', { status });
      expect(certainlyRefused(once, true)).toBe(true);
      once.earlierMaybeSent = true;
      expect(certainlyRefused(once, true)).toBe(false);
      expect(certainlyRefused(new CliError(ExitCode.auth, 'x', { status }), false)).toBe(false);
    }
  });
});

describe('codes file identity', () => {
  it('fileIdentity records order, path, dev, ino, size, the sha256 of the bytes and the temporary file', () => {
    const file = join(tempDir(), 'f.json');
    writeFileSync(file, 'hello');
    const stat = statSync(file);
    expect(fileIdentity(file, 'ord_1', '/target')).toEqual({
      orderId: 'ord_1',
      path: '/target',
      dev: stat.dev,
      ino: stat.ino,
      size: 5,
      sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
      temp: file,
    });
  });

  it('renamedFile: an identity marked renamed (after the rename) was renamed into place, whatever is at its path now; one with only its count (recorded before) was not', () => {
    const dir = tempDir();
    const temp = join(dir, '.c.json.tmp');
    writeFileSync(temp, '[1]');
    const id = fileIdentity(temp, 'ord_1', join(dir, 'c.json'));
    const intent = { orderId: 'ord_1', files: [id] } as Intent;
    // Recorded before the rename, its temporary file since removed (a crash, then another export to the path): no proof.
    rmSync(temp);
    expect(renamedFile(intent)).toBeUndefined();
    expect(renamedFile({ ...intent, files: [{ ...id, count: 1 }] })).toBeUndefined();
    const marked = { ...id, count: 1, renamed: true };
    expect(renamedFile({ ...intent, files: [marked] })).toEqual(marked);
    // Written by versions that recorded the count only after the rename (no temporary file named): renamed.
    const { temp: _temp, ...legacy } = { ...id, count: 1 };
    expect(renamedFile({ ...intent, files: [legacy] })).toEqual(legacy);
    // Another order's identity proves nothing.
    expect(renamedFile({ ...intent, orderId: 'ord_2', files: [marked] })).toBeUndefined();
  });

  it('deliveredFile: each field must match; a directory or a missing file is never a delivery', () => {
    const dir = tempDir();
    const path = join(dir, 'c.json');
    writeFileSync(path, '[1]');
    const id = fileIdentity(path, 'ord_1', path);
    const intent = { key: 'k', orderId: 'ord_1', files: [id] } as Intent;
    expect(deliveredFile(intent, path)).toEqual(id);
    for (const change of [
      { dev: id.dev + 1 },
      { ino: id.ino + 1 },
      { size: id.size + 1 },
      { sha256: createHash('sha256').update('x').digest('hex') },
      { path: `${path}x` },
      { orderId: 'ord_2' },
    ]) {
      expect(deliveredFile({ ...intent, files: [{ ...id, ...change }] }, path), JSON.stringify(change)).toBeUndefined();
    }
    expect(deliveredFile({ ...intent, files: undefined }, path)).toBeUndefined();
    expect(deliveredFile(intent, join(dir, 'none'))).toBeUndefined();
    expect(
      deliveredFile({ ...intent, files: [{ ...id, path: join(dir, 'none') }] }, join(dir, 'none')),
    ).toBeUndefined();
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    const st = statSync(sub);
    expect(
      deliveredFile({ ...intent, files: [{ ...id, path: sub, dev: st.dev, ino: st.ino, size: st.size }] }, sub),
    ).toBeUndefined();
    // Several identities: the one whose bytes match.
    expect(deliveredFile({ ...intent, files: [{ ...id, sha256: 'other' }, id] }, path)).toEqual(id);
  });
});

describe('machine transitions, more', () => {
  it('every save is stamped with the machine clock; accept records id and status', async () => {
    const { deps, journal, spec } = setup();
    const { intent } = await journal.begin(spec, T0 - 1000);
    const machine = new OrderMachine(deps, intent);
    const order = await machine.send();
    expect(journal.find(intent.key)).toMatchObject({
      phase: 'accepted',
      orderId: order.id,
      status: order.status,
      updatedAt: '2026-06-01T12:00:00.000Z',
    });
    const outcome = { intent: machine.intent, ending: 'delivered' as const };
    await deliver(deps.io, journal, () => undefined, [outcome], T0);
    await settle(journal, [outcome], T0);
    expect(journal.history.list()[0]).toMatchObject({ endedAt: '2026-06-01T12:00:00.000Z', outcome: 'delivered' });
  });

  it('accept keeps what the API says the order costs (its amount, else its total, when money), and the record carries it for order list', async () => {
    const { deps, journal, spec } = setup();
    const { intent } = await journal.begin(spec, T0 - 1000);
    const machine = new OrderMachine(deps, intent);
    const order = await machine.send();
    // The reference server states amount = price × quantity.
    expect(order.amount).toEqual({ amount: expect.any(Number), currency: 'USD' });
    expect(journal.find(intent.key)?.amount).toEqual(order.amount);
    const outcome = { intent: machine.intent, ending: 'delivered' as const };
    await deliver(deps.io, journal, () => undefined, [outcome], T0);
    await settle(journal, [outcome], T0);
    expect(journal.history.list()[0]?.amount).toEqual(order.amount);

    // Other services' shapes: a total as money; an amount that is not money (a bare number, a float, no currency) is none.
    const accepted = async (fields: Record<string, unknown>) => {
      const { intent: next } = await journal.begin(
        { ...spec, productId: `p-${Object.keys(fields).join()}-${JSON.stringify(fields).length}` },
        T0,
      );
      const m = new OrderMachine(deps, next);
      await m.arm();
      await m.accept({ id: 'ord_x', status: 'pending', ...fields } as never);
      return m.intent.amount;
    };
    expect(await accepted({ total: { amount: 1999, currency: 'EUR' } })).toEqual({ amount: 1999, currency: 'EUR' });
    expect(await accepted({ amount: { amount: 500, currency: 'JPY' }, total: { amount: 1, currency: 'EUR' } })).toEqual(
      {
        amount: 500,
        currency: 'JPY',
      },
    );
    expect(await accepted({ amount: 7500 })).toBeUndefined();
    expect(await accepted({ amount: { amount: 12.5, currency: 'USD' } })).toBeUndefined();
    expect(await accepted({ amount: { amount: 100, currency: 'dollars' } })).toBeUndefined();
  });

  it('a read of an order accepted without an amount (by an older giftcodes) adds it once; later reads write nothing', async () => {
    const { deps, journal, intent } = await begun();
    const first = new OrderMachine(deps, intent);
    const order = await first.send();
    const { amount: _stated, ...older } = first.intent;
    const accepted = journal.save(older, T0 - 5000);
    expect(accepted.amount).toBeUndefined();
    const again = new OrderMachine(deps, accepted);
    await again.refresh();
    expect(journal.find(intent.key)).toMatchObject({ amount: order.amount, updatedAt: '2026-06-01T12:00:00.000Z' });
    const known = journal.save({ ...again.intent }, T0 - 5000);
    await new OrderMachine(deps, known).refresh();
    expect(journal.find(intent.key)?.updatedAt).toBe('2026-06-01T11:59:55.000Z');
  });

  it('a resumed `sending` intent is POSTed again without first writing `sending`; a refusal then is certain only for 400/404/422', async () => {
    const { deps, journal, intent } = await begun();
    const sending = journal.save({ ...intent, phase: 'sending' });
    const saves: string[] = [];
    const watching = Object.assign(Object.create(journal) as Journal, {
      save: (i: Intent, now?: number) => (saves.push(i.phase), journal.save(i, now)),
    });
    const unauthorized = {
      createOrder: () => Promise.reject(new ApiError('forbidden', { status: 403 })),
    } as unknown as ApiClient;
    await expect(
      new OrderMachine({ ...deps, journal: watching, api: unauthorized }, sending).send(),
    ).rejects.toMatchObject({ status: 403, message: 'forbidden; the order may or may not have been placed' });
    expect(saves).toEqual([]);
    expect(journal.find(intent.key)?.phase).toBe('sending');
    // A 404 with no code the API names for the order keeps it pending; the API's product_not_found is a refusal.
    const bare = {
      createOrder: () => Promise.reject(new ApiError('not found', { status: 404 })),
    } as unknown as ApiClient;
    await expect(new OrderMachine({ ...deps, api: bare }, sending).send()).rejects.toMatchObject({ status: 404 });
    expect(journal.find(intent.key)?.phase).toBe('sending');
    const gone = {
      createOrder: () => Promise.reject(new ApiError('no such product', { status: 404, code: 'product_not_found' })),
    } as unknown as ApiClient;
    // Said as certain, in the error line a cron job's mail holds (a person's day).
    const said = 'no such product; no order was made, so nothing was charged';
    await expect(new OrderMachine({ ...deps, api: gone }, sending).send()).rejects.toMatchObject({
      status: 404,
      message: said,
    });
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.list()[0]).toMatchObject({ outcome: 'refused', error: { message: said } });
  });

  // A review: the abandoned key sent again met a proxy's HTML 404, read as a first attempt's refusal; the key was
  // settled as refused and its charged order lost. A key sent again after an abandon (keySince) was sent before.
  it('a key sent again after an abandon is never on its first attempt: a page with no API code keeps it pending', async () => {
    const { deps, journal, intent } = await begun();
    const reused = journal.save({ ...intent, keySince: new Date(T0).toISOString() });
    const proxyPage = {
      createOrder: () => Promise.reject(new ApiError('HTTP 404', { code: 'http_404', status: 404 })),
    } as unknown as ApiClient;
    await expect(new OrderMachine({ ...deps, api: proxyPage }, reused).send()).rejects.toMatchObject({ status: 404 });
    expect(journal.find(intent.key)?.phase).toBe('sending');
    // A gateway's or framework's JSON body says the reason phrase, not an API's code (a third review lost an order).
    for (const code of ['Not Found', 'not_found', 'NotFound', 'Bad Request', '404', '5', 'section-15.5.5', '7003']) {
      const gateway = {
        createOrder: () => Promise.reject(new ApiError('HTTP 404', { code, status: 404 })),
      } as unknown as ApiClient;
      await expect(
        new OrderMachine({ ...deps, api: gateway }, journal.find(intent.key)!).send(),
        code,
      ).rejects.toMatchObject({ status: 404 });
      expect(journal.find(intent.key)?.phase, code).toBe('sending');
    }
    // The API's own refusal (its code) is one, as for any resumed send.
    const funds = {
      createOrder: () => Promise.reject(new ApiError('no funds', { code: 'insufficient_funds', status: 422 })),
    } as unknown as ApiClient;
    await expect(new OrderMachine({ ...deps, api: funds }, journal.find(intent.key)!).send()).rejects.toMatchObject({
      code: 'insufficient_funds',
    });
    expect(journal.find(intent.key)).toBeUndefined();
  });

  it('an order already failed when accepted is exit 6 with its status on disk; the intent ends only once that reached the user', async () => {
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(deps, intent);
    await machine.arm();
    await expect(machine.accept({ id: 'ord_f', status: 'Failed' })).rejects.toBeInstanceOf(OrderEndedError);
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', orderId: 'ord_f', status: 'Failed' });
    expect(journal.history.list()).toEqual([]);
  });

  it('a move the lifecycle table does not allow is a bug, refused before anything is written', async () => {
    const { deps, journal, intent } = await begun();
    await expect(new OrderMachine(deps, intent).accept({ id: 'ord_x', status: 'pending' })).rejects.toThrow(
      'order lifecycle: no move from prepared to accepted',
    );
    expect(journal.find(intent.key)).toMatchObject({ phase: 'prepared' });
  });

  it('refresh saves a changed status only, and never POSTs; a failed read keeps the intent', async () => {
    const { deps, journal, intent } = await begun();
    const first = new OrderMachine(deps, intent);
    const order = await first.send();
    const accepted = journal.save({ ...first.intent, status: 'stale-status' }, T0 - 5000);
    const again = new OrderMachine(deps, accepted);
    const read = await again.refresh();
    expect(read.id).toBe(order.id);
    expect(journal.find(intent.key)).toMatchObject({ status: read.status, updatedAt: '2026-06-01T12:00:00.000Z' });
    const unchanged = journal.save({ ...again.intent }, T0 - 5000);
    await new OrderMachine(deps, unchanged).refresh();
    expect(journal.find(intent.key)?.updatedAt).toBe('2026-06-01T11:59:55.000Z');
    const down = { getOrder: () => Promise.reject(new NetworkError('down')) } as unknown as ApiClient;
    await expect(new OrderMachine({ ...deps, api: down }, unchanged).refresh()).rejects.toMatchObject({
      message: `down; order ${order.id} was placed`,
    });
  });

  it('complete saves the final status; a failed order ends the intent failed; other errors keep it', async () => {
    const { failing } = servers;
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(deps, intent);
    await machine.send();
    journal.save({ ...machine.intent, status: 'processing' });
    machine.intent = { ...machine.intent, status: 'processing' };
    const done = await machine.complete({ intervalS: 0.01 });
    expect(done.status).toBe('completed');
    expect(journal.find(intent.key)?.status).toBe('completed');
    const down = { getOrder: () => Promise.reject(new NetworkError('down')) } as unknown as ApiClient;
    await expect(
      new OrderMachine({ ...deps, api: down }, machine.intent).complete({ intervalS: 0.01 }),
    ).rejects.toMatchObject({ message: `down; order ${done.id} was placed` });
    expect(journal.find(intent.key)).toBeDefined();
    const f = setup(failing.url);
    const failed = new OrderMachine(f.deps, (await f.journal.begin(f.spec)).intent);
    await failed.send().catch(() => undefined);
    const error = await failed.complete({ intervalS: 0.01, timeoutS: 30 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderEndedError);
    expect((error as Error).message).not.toContain('may or may not');
  });

  it('an error the client did not classify (a bug, a TypeError) never proves a refusal, whatever fields it carries', () => {
    expect(certainlyRefused(Object.assign(new Error('x'), { status: 400 }), true)).toBe(false);
    expect(certainlyRefused(Object.assign(new TypeError('x'), { notSent: true }), true)).toBe(false);
  });

  it('complete writes a failed status before the failure is told (deliver ends the intent failed from it); an unchanged status is not written again', async () => {
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(deps, intent);
    const order = await machine.send();
    const unchanged = journal.save({ ...machine.intent }, T0 - 5000);
    expect(await new OrderMachine(deps, unchanged).complete({ intervalS: 0.01 })).toMatchObject({ id: order.id });
    expect(journal.find(intent.key)?.updatedAt).toBe('2026-06-01T11:59:55.000Z');
    const f = setup(servers.failing.url);
    const failed = new OrderMachine(f.deps, (await f.journal.begin(f.spec)).intent);
    await expect(failed.send()).rejects.toBeInstanceOf(OrderEndedError);
    // Read as processing by an earlier run; the server now says failed.
    failed.intent = f.journal.save({ ...failed.intent, status: 'processing' });
    await expect(failed.complete({ intervalS: 0.01, timeoutS: 30 })).rejects.toBeInstanceOf(OrderEndedError);
    expect(f.journal.find(failed.intent.key)).toMatchObject({ phase: 'accepted', status: 'failed' });
  });

  it('after a POST that may have reached the server, the same machine never takes its next POST for a first attempt', async () => {
    const { deps, journal, intent } = await begun();
    let posts = 0;
    const api = {
      createOrder: () =>
        Promise.reject(
          ++posts === 1
            ? new NetworkError('connection reset')
            : new NetworkError('connection refused', { notSent: true }),
        ),
    } as unknown as ApiClient;
    const machine = new OrderMachine({ ...deps, api }, intent);
    await expect(machine.send()).rejects.toMatchObject({
      message: 'connection reset; the order may or may not have been placed',
    });
    // Refused before it left, but the first POST may have gone: not a refusal, the intent stays pending.
    await expect(machine.send()).rejects.toMatchObject({
      message: 'connection refused; the order may or may not have been placed',
    });
    expect(posts).toBe(2);
    expect(journal.find(intent.key)?.phase).toBe('sending');
    expect(journal.history.list()).toEqual([]);
  });

  it('writeCodes: the identity gains count and format after the rename; a second run finds its file and writes nothing', async () => {
    const { deps, journal, spec } = setup();
    const path = join(tempDir(), 'codes.csv');
    const out = { path, format: 'csv' as const, force: false, csvRaw: false };
    const { intent } = await journal.begin({ ...spec, out });
    const machine = new OrderMachine(deps, intent);
    await machine.send();
    await machine.complete({ intervalS: 0.01 });
    const written = await machine.writeCodes(out);
    expect(written).toMatchObject({ path, count: 2, format: 'csv' });
    const files = journal.find(intent.key)!.files!;
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({
      orderId: machine.intent.orderId,
      path,
      count: 2,
      format: 'csv',
      size: statSync(path).size,
    });
    const again = await new OrderMachine(deps, journal.find(intent.key)!).writeCodes(out);
    expect(again).toEqual({ path, count: 2, format: 'csv', earlier: true });
    // An identity recorded before the rename (no count or format yet): the intent's quantity and the --out format.
    const bare = { ...journal.find(intent.key)!, files: [{ ...files[0]!, count: undefined, format: undefined }] };
    expect(await new OrderMachine(deps, bare).writeCodes({ ...out, format: 'jsonl' })).toEqual({
      path,
      count: 2,
      format: 'jsonl',
      earlier: true,
    });
    expect(await new OrderMachine(deps, bare).writeCodes({ ...out, format: undefined })).toEqual({
      path,
      count: 2,
      format: 'json',
      earlier: true,
    });
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('code');
  });

  it('codes to stdout: a write error is exit 8 in words, the intent kept', async () => {
    const { server } = servers;
    const broken = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('EPIPE'), { code: 'EPIPE' })) });
    const { deps, journal, intent } = await begun(server.url, broken);
    const machine = new OrderMachine(deps, intent);
    await machine.send();
    await machine.complete({ intervalS: 0.01 });
    const error = await machine.writeCodes({ path: '-', force: false, csvRaw: false }).catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: 8 });
    expect((error as Error).message).toMatch(/standard output/);
    expect(journal.find(intent.key)?.phase).toBe('accepted');
  });
});

describe('a 422 idempotency_key_reused answering a retry: an order exists under the key', () => {
  /** The server holds an order under `key` with another body than the intent's. */
  async function heldUnder(key: string): Promise<void> {
    await clientOf(servers.server.url).createOrder(JSON.stringify({ product_id: 'amazon-us-10', quantity: 7 }), key);
  }

  it('a resent intent (sending) is kept pending: exit 4, says it may be this order, hints what to check', async () => {
    const { deps, journal, intent } = await begun();
    await heldUnder(intent.key);
    const sending = await journal.saveAsync({ ...intent, phase: 'sending' }, T0);
    const error = (await new OrderMachine(deps, sending).send().catch((e: unknown) => e)) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(ExitCode.api);
    expect(error.code).toBe('idempotency_key_reused');
    expect(error.message).toContain('may be this one: it is kept pending');
    expect(error.hint).toContain(`giftcodes order resume ${intent.key}`);
    expect(error.hint).toContain('giftcodes order show');
    expect(journal.find(intent.key)).toMatchObject({ phase: 'sending' });
    expect(journal.history.get(intent.key, scopeOf(intent))).toBeUndefined();
  });

  it('so is a first attempt whose client retried after an attempt that may have been sent', () => {
    const retried = new ApiError('422', { status: 422, code: 'idempotency_key_reused' });
    expect(certainlyRefused(retried, true)).toBe(true);
    retried.earlierMaybeSent = true;
    expect(certainlyRefused(retried, true)).toBe(false);
    expect(certainlyRefused(new ApiError('422', { status: 422, code: 'idempotency_key_reused' }), false)).toBe(false);
    expect(certainlyRefused(new ApiError('422', { status: 422, code: 'IdempotencyKeyReused' }), false)).toBe(false);
    // Another 422 on a retry is still a refusal: the server replays an order it holds under the key before it validates.
    expect(certainlyRefused(new ApiError('422', { status: 422, code: 'insufficient_funds' }), false)).toBe(true);
    // Any other code on a retry proves nothing: a key reused says an order IS under it (a fourth review).
    expect(certainlyRefused(new ApiError('400', { status: 400, code: 'idempotency_key_reused' }), false)).toBe(false);
  });

  it('a first attempt (nothing sent before) is refused and ended: this request charged nothing', async () => {
    const { deps, journal, intent } = await begun();
    await heldUnder(intent.key);
    const error = (await new OrderMachine(deps, intent).send().catch((e: unknown) => e)) as CliError;
    expect(error.code).toBe('idempotency_key_reused');
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'refused' });
  });
});

describe('the API client marks an answer that follows an attempt which may have been sent', () => {
  it('a 503 then a 422: earlierMaybeSent; a 422 at once: not', async () => {
    const { createServer } = await import('node:http');
    const answers: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = answers.shift() ?? 422;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ error: { code: status === 422 ? 'idempotency_key_reused' : 'unavailable', message: 'x' } }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { DEFAULT_RETRY_POLICY } = await import('../../src/api/retry.js');
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const api = new ApiClient({
        baseUrl: url,
        apiKey: 'sc_test_demo_4f3c9a1b7e2d',
        requestTimeoutMs: 5000,
        retry: { ...DEFAULT_RETRY_POLICY, retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
      });
      answers.push(503, 422);
      const retried = (await api.createOrder('{}', 'k').catch((e: unknown) => e)) as CliError;
      expect(retried).toMatchObject({ status: 422, earlierMaybeSent: true });
      expect(certainlyRefused(retried, true)).toBe(false);
      answers.push(422);
      const first = (await api.createOrder('{}', 'k').catch((e: unknown) => e)) as CliError;
      expect(first).toMatchObject({ status: 422, earlierMaybeSent: false });
    } finally {
      server.close();
    }
  });
});

describe('a replayed order answering a first request: whose it is', () => {
  /** A server answering POSTs with the statuses given, then with a replayed order (Idempotent-Replayed: true). */
  async function scripted(
    statuses: { status: number; code?: string }[],
  ): Promise<{ api: ApiClient; close: () => void }> {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const next = statuses.shift();
        if (next) {
          res.writeHead(next.status, { 'content-type': 'application/json', 'retry-after': '0' });
          res.end(JSON.stringify({ error: { code: next.code ?? 'unavailable', message: 'x' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
        res.end(JSON.stringify({ id: 'ord_theirs', status: 'pending', product_id: 'p', quantity: 1 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { DEFAULT_RETRY_POLICY } = await import('../../src/api/retry.js');
    const api = new ApiClient({
      baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      apiKey: 'sc_test_demo_4f3c9a1b7e2d',
      requestTimeoutMs: 5000,
      retry: { ...DEFAULT_RETRY_POLICY, retries: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });
    return { api, close: () => server.close() };
  }

  it("after a 409 request_in_progress or a 429, the API took none of this call: the replay is another request's", async () => {
    // An adversarial review: two runs 0.7 s apart (409), or a rate limiter (429), and both wrote the same codes.
    for (const first of [
      { status: 409, code: 'request_in_progress' },
      { status: 429, code: 'rate_limited' },
    ]) {
      const { api, close } = await scripted([first]);
      try {
        const created = await api.createOrder('{}', 'k');
        expect(created, String(first.status)).toMatchObject({ replayed: true, earlierMaybeSent: false });
      } finally {
        close();
      }
    }
  });

  it("after a 503, the first attempt may have been taken up: the replay may be this call's own", async () => {
    const { api, close } = await scripted([{ status: 503 }]);
    try {
      expect(await api.createOrder('{}', 'k')).toMatchObject({ replayed: true, earlierMaybeSent: true });
    } finally {
      close();
    }
  });

  it('a key this directory recorded an order under before (abandoned after a kill) is its own: the replay is accepted', async () => {
    // An adversarial review: a plan row killed after its charge, abandoned, the plan run again: its own order was
    // refused as placed elsewhere, and the hint's order place charged the row a second time.
    const { deps, journal, intent } = await begun();
    const first = await deps.api.createOrder(intent.body, intent.key);
    await journal.recordDelivery([endedRecord(intent, 'abandoned', T0)]);
    const order = await new OrderMachine(deps, intent).send();
    expect(order.id).toBe(first.order.id);
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', orderId: first.order.id });
  });

  it('a key whose record here says refused (order_placed_elsewhere among them) placed nothing from here: still elsewhere', async () => {
    const { deps, journal, intent } = await begun();
    await deps.api.createOrder(intent.body, intent.key);
    await journal.recordDelivery([
      endedRecord(intent, 'refused', T0, { code: 'order_placed_elsewhere', message: 'x' }),
    ]);
    await expect(new OrderMachine(deps, intent).send()).rejects.toMatchObject({ code: 'order_placed_elsewhere' });
    // Ended as refused, naming the order: nothing of it is pending here.
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({
      outcome: 'refused',
      error: { code: 'order_placed_elsewhere' },
    });
  });

  // A review: the key's intent in a dead run's log whose lines were damaged; the replay was taken for another run's,
  // and its hint ordered anew. Another review: kept pending instead, another directory's plan rows were delivered here.
  it('with journal files here that cannot be read: still refused, its hint the codes get of that order, never a new order', async () => {
    const { deps, journal, intent } = await begun();
    const first = await deps.api.createOrder(intent.body, intent.key);
    writeFileSync(join(journal.dir, '0000000000000000000000000000000000000001.json'), '{"cut');
    writeFileSync(join(journal.dir, '0000000000000000000000000000000000000002.json'), '{"cut');
    const refused = new OrderMachine(deps, intent).send();
    await expect(refused).rejects.toMatchObject({
      exitCode: 4,
      code: 'order_placed_elsewhere',
      hint: `2 journal files here cannot be read (giftcodes order pending names them), and may hold this very order: if it is this directory's own, get its codes with giftcodes codes get ${first.order.id} --out CODES_FILE --wait; order nothing anew before you know`,
    });
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'refused' });
  });
});
