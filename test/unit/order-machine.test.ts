// Every transition of the order machine, on a real journal directory and over real HTTP to an in-process
// reference server: the phase on disk after each step, where the intent ends, and what the record says.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { ApiError, AuthError, CliError, ExitCode, NetworkError, UsageError } from '../../src/errors.js';
import { Journal } from '../../src/journal/journal.js';
import { deliveredFile, fileIdentity } from '../../src/journal/codes-file.js';
import { driveIntent, finish } from '../../src/orders/drive.js';
import { deliver, settle } from '../../src/orders/lifecycle.js';
import { certainlyRefused, OrderMachine } from '../../src/orders/machine.js';
import { OrderEndedError, PLAN_ROW_ANEW } from '../../src/orders/wait.js';
import { tempDir } from '../helpers/e2e.js';
import { inProcessServers, machineSetup, machineWithIntent, testOrderSpec } from '../helpers/inprocess.js';

const servers = inProcessServers({ server: {}, failing: { failOrders: 1 } });

const setup = (url = servers.server.url, stdout?: Writable): ReturnType<typeof machineSetup> =>
  machineSetup(url, { stdout });
const begun = (url = servers.server.url, stdout?: Writable): ReturnType<typeof machineWithIntent> =>
  machineWithIntent(url, { stdout });

const phaseOnDisk = (journal: Journal, key: string): string | undefined => journal.find(key)?.phase;

describe('order machine transitions', () => {
  it('prepared → sending → accepted → delivered (the record) → resolved (the intent file gone), each on disk', async () => {
    const { deps, journal, intent } = await begun();
    expect(phaseOnDisk(journal, intent.key)).toBe('prepared');
    const machine = new OrderMachine(deps, intent);
    const order = await machine.send();
    expect(phaseOnDisk(journal, intent.key)).toBe('accepted');
    expect(journal.find(intent.key)).toMatchObject({ orderId: order.id, status: order.status });
    const outcome = { intent: machine.intent, ending: 'delivered' as const };
    await deliver(deps.io, journal, () => deps.io.out('the order'), [outcome]);
    expect(phaseOnDisk(journal, intent.key)).toBe('accepted');
    expect(journal.reached(journal.find(intent.key)!)).toBe('delivered');
    await settle(journal, [outcome]);
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.list()).toMatchObject([{ key: intent.key, orderId: order.id, outcome: 'delivered' }]);
  });

  it('send() writes `sending` before the POST: a request that fails after it keeps the intent pending in `sending`', async () => {
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(
      {
        ...deps,
        api: { createOrder: () => Promise.reject(new NetworkError('reset', { status: 503 })) } as unknown as ApiClient,
      },
      intent,
    );
    await expect(machine.send()).rejects.toMatchObject({
      exitCode: 5,
      hint: expect.stringContaining(`giftcodes order resume ${intent.key}`),
    });
    expect(phaseOnDisk(journal, intent.key)).toBe('sending');
    expect(journal.history.list()).toEqual([]);
  });

  it("→ refused: a first request the API answers with an order another request under the key placed (its Idempotent-Replayed): not this run's, its codes never written here", async () => {
    // Another config directory placed it first under the same key (the same plan elsewhere): the server replays it.
    const { deps, journal, intent } = await begun();
    const theirs = await deps.api.createOrder(intent.body, intent.key);
    expect(theirs.replayed).toBe(false);
    const machine = new OrderMachine(deps, intent);
    const error = await machine.send().catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: ExitCode.api, code: 'order_placed_elsewhere' });
    expect((error as CliError).message).toContain(`order ${theirs.order.id}`);
    // The command to order one of one's own names the run's environment: pasted from a live run's hint without
    // --env, it placed a test order (a review).
    expect((error as CliError).hint).toContain(
      `giftcodes order place --env ${intent.environment} --product ${intent.productId} --quantity ${intent.quantity}`,
    );
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()).toMatchObject([
      { key: intent.key, outcome: 'refused', error: { code: 'order_placed_elsewhere' } },
    ]);
    expect(journal.history.list()[0]!.orderId).toBeUndefined();
  });

  it('a replay is its own order when this intent may have sent before: an attempt of the same call, or an earlier run', async () => {
    // The same call retried after a timeout: its first attempt may be what the API replays.
    const retried = await begun();
    const real = retried.deps.api;
    const order = (await real.createOrder(retried.intent.body, retried.intent.key)).order;
    const again = new OrderMachine(
      {
        ...retried.deps,
        api: Object.assign(Object.create(real) as ApiClient, {
          createOrder: () => Promise.resolve({ order, replayed: true, earlierMaybeSent: true }),
        }),
      },
      retried.intent,
    );
    expect((await again.send()).id).toBe(order.id);
    expect(phaseOnDisk(retried.journal, retried.intent.key)).toBe('accepted');
    // An earlier run of this intent sent it (`sending` on disk), then was killed: the replay is its order.
    const resumed = await begun();
    const sending = resumed.journal.save({ ...resumed.intent, phase: 'sending' });
    await resumed.deps.api.createOrder(sending.body, sending.key);
    const replayedOrder = await new OrderMachine(resumed.deps, sending).send();
    expect(resumed.journal.find(sending.key)).toMatchObject({ phase: 'accepted', orderId: replayedOrder.id });
  });

  it('→ refused: an unknown product (400 from this server) ends the intent at once, the error in the record', async () => {
    const { deps, journal, spec } = setup();
    const { intent } = await journal.begin({ ...spec, productId: 'no-such-product' });
    const error = await new OrderMachine(deps, intent).send().catch((e: unknown) => e);
    expect(error).toMatchObject({ exitCode: ExitCode.api, status: 400 });
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()).toMatchObject([
      { key: intent.key, outcome: 'refused', error: { code: (error as CliError).code } },
    ]);
  });

  it('→ refused: a connection refused before anything was sent (notSent)', async () => {
    const { deps, journal, intent } = await begun('http://127.0.0.1:9');
    const error = await new OrderMachine(deps, intent).send().catch((e: unknown) => e);
    expect(error).toMatchObject({ notSent: true });
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()[0]?.outcome).toBe('refused');
  });

  it('arm() writes `sending` before any request; a POST refused before it left is still certain: the intent ends refused', async () => {
    const { deps, journal, intent } = await begun('http://127.0.0.1:9');
    const machine = new OrderMachine(deps, intent);
    await machine.arm();
    // A crash now leaves `sending`: resumed as "may have been sent", with its key, never a second charge.
    expect(phaseOnDisk(journal, intent.key)).toBe('sending');
    const error = await machine.send().catch((e: unknown) => e);
    expect(error).toMatchObject({ notSent: true });
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()[0]?.outcome).toBe('refused');
  });

  it('disarm() writes an armed, unsent intent back as prepared; never one this machine did not arm, nor one it sent', async () => {
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(deps, intent);
    await machine.arm();
    await machine.disarm();
    expect(phaseOnDisk(journal, intent.key)).toBe('prepared');
    // Read from disk `sending` (another process armed it, and may have sent it): left as it is.
    await machine.arm();
    await new OrderMachine(deps, journal.find(intent.key)!).disarm();
    expect(phaseOnDisk(journal, intent.key)).toBe('sending');
    // Sent, then answered: accepted stays accepted.
    await machine.send();
    await machine.disarm();
    expect(phaseOnDisk(journal, intent.key)).toBe('accepted');
  });

  it('disarm() after a send that failed leaves `sending`: the request may have gone', async () => {
    const { deps, journal, intent } = await begun();
    const machine = new OrderMachine(
      {
        ...deps,
        api: { createOrder: () => Promise.reject(new NetworkError('reset', { status: 503 })) } as unknown as ApiClient,
      },
      intent,
    );
    await machine.send().catch(() => undefined);
    await machine.disarm();
    expect(phaseOnDisk(journal, intent.key)).toBe('sending');
  });

  it('a `sending` intent read from disk is not a first attempt: a POST refused before it left keeps it pending', async () => {
    const { deps, journal, intent } = await begun('http://127.0.0.1:9');
    await new OrderMachine(deps, intent).arm();
    const error = await new OrderMachine(deps, journal.find(intent.key)!).send().catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: ExitCode.network,
      hint: expect.stringContaining(`giftcodes order resume ${intent.key}`),
    });
    expect(phaseOnDisk(journal, intent.key)).toBe('sending');
  });

  it('deliver and settle many: every record is on disk (delivered) before any intent leaves the journal; then none is left', async () => {
    const { deps, journal, spec } = setup();
    const machines = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const { intent } = await journal.begin({ ...spec, key: `row-${n}` });
        const machine = new OrderMachine(deps, intent);
        await machine.send();
        return machine;
      }),
    );
    const outcomes = machines.map((m) => ({ intent: m.intent, ending: 'delivered' as const }));
    await deliver(deps.io, journal, () => undefined, outcomes);
    const expected = machines.map((m) => `${m.intent.key} delivered ${m.intent.orderId}`).sort();
    expect(
      journal.history
        .list()
        .map((r) => `${r.key} ${r.outcome} ${r.orderId}`)
        .sort(),
    ).toEqual(expected);
    expect(
      journal
        .read()
        .intents.map((i) => i.key)
        .sort(),
    ).toEqual(['row-1', 'row-2', 'row-3']);
    await settle(journal, outcomes);
    expect(journal.read().intents).toEqual([]);
    expect(
      journal.history
        .list()
        .map((r) => `${r.key} ${r.outcome} ${r.orderId}`)
        .sort(),
    ).toEqual(expected);
  });

  it('which failures certainly charged nothing: exact statuses, first attempt or not', () => {
    const status = (s: number, code?: string): CliError => new ApiError('x', { status: s, ...(code ? { code } : {}) });
    for (const s of [400, 404, 422]) {
      expect(certainlyRefused(status(s), true), String(s)).toBe(true);
      // After a send that may have reached the API, only a refusal of the order it names (a fourth review).
      expect(certainlyRefused(status(s), false), String(s)).toBe(false);
      expect(certainlyRefused(status(s, 'insufficient_funds'), false), String(s)).toBe(true);
    }
    for (const s of [401, 403]) {
      expect(certainlyRefused(status(s), true), String(s)).toBe(true);
      expect(certainlyRefused(status(s), false), String(s)).toBe(false);
    }
    for (const s of [402, 408, 409, 429, 500, 502, 503, 200]) {
      expect(certainlyRefused(status(s), true), String(s)).toBe(false);
    }
    expect(certainlyRefused(new NetworkError('refused', { notSent: true }), true)).toBe(true);
    expect(certainlyRefused(new NetworkError('refused', { notSent: true }), false)).toBe(false);
    expect(certainlyRefused(new NetworkError('timeout'), true)).toBe(false);
    expect(certainlyRefused(new UsageError('bad'), true)).toBe(true);
    expect(certainlyRefused(new AuthError('no key'), true)).toBe(true);
    expect(certainlyRefused(new UsageError('bad'), false)).toBe(false);
    expect(certainlyRefused(new Error('bug'), true)).toBe(false);
  });

  it('→ failed: an order that ends failed is its outcome; it stays pending until that reached the user, then the record says failed', async () => {
    const { failing } = servers;
    const { deps, journal, intent } = await begun(failing.url);
    const machine = new OrderMachine(deps, intent);
    await machine.send().catch(() => undefined);
    const error = await machine.complete({ intervalS: 0.01 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderEndedError);
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', status: 'failed' });
    const driven = await driveIntent(deps, machine.intent, { wait: true, intervalS: 0.01 });
    expect(driven).toMatchObject({ ending: 'failed', failure: expect.any(OrderEndedError) });
    await expect(finish(deps.io, journal, driven)).rejects.toBeInstanceOf(OrderEndedError);
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'failed', status: 'failed' });
  });

  // Reviews: a failed live order's hint ordered it anew without --env live (a test order when pasted), and a failed plan
  // row's hint gave a lone order place, which the plan's next run then ordered again (two orders for the row).
  it("→ failed: the way to order it anew is as it was placed (its --env, its --out); a plan row's is its plan", async () => {
    const { failing } = servers;
    const ended = async (key?: string, out = true): Promise<OrderEndedError> => {
      const { deps, journal } = machineSetup(failing.url);
      const { intent } = await journal.begin({
        ...testOrderSpec(failing.url),
        ...(key === undefined ? {} : { key }),
        ...(out ? { out: { path: '/srv/it is.csv', force: false, csvRaw: false } } : {}),
      });
      const machine = new OrderMachine(deps, intent);
      await machine.send().catch(() => undefined);
      return (await machine.complete({ intervalS: 0.01 }).catch((e: unknown) => e)) as OrderEndedError;
    };
    const own = await ended();
    expect(own.hint).toMatch(
      /; to order it anew: giftcodes order place --env test --product \S+ --quantity \d+ --out '\/srv\/it is\.csv'$/,
    );
    expect((await ended(undefined, false)).hint).toMatch(
      /; to order it anew: giftcodes order place --env test --product \S+ --quantity \d+$/,
    );
    const row = await ended(`plan-${'a'.repeat(24)}`);
    expect(row.hint).toMatch(new RegExp(`; ${PLAN_ROW_ANEW.replace(/[()]/g, '\\$&')}$`));
    expect(row.hint).not.toContain('giftcodes order place');
    expect(own.ofPlanRow().hint).toBe(row.hint?.replace(row.order.id, own.order.id));
  });

  it('→ failed with stdout failing (--json > /dev/full): exit 8, the intent stays pending, no record (gap 4)', async () => {
    const { failing } = servers;
    const broken = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })) });
    const { deps, journal, intent } = await begun(failing.url, broken);
    const driven = await driveIntent(deps, intent, { wait: true, intervalS: 0.01 });
    expect(driven.ending).toBe('failed');
    await expect(finish(deps.io, journal, driven)).rejects.toMatchObject({ exitCode: 8 });
    expect(journal.find(intent.key)).toMatchObject({ phase: 'accepted', status: 'failed' });
    expect(journal.history.list()).toEqual([]);
  });

  it('→ abandoned: abandon ends the intent in the record as abandoned', async () => {
    const { journal, intent } = await begun();
    journal.save({ ...intent, owner: { pid: 999_999_999 } });
    await journal.abandon(intent.key);
    expect(journal.history.list()[0]).toMatchObject({ key: intent.key, outcome: 'abandoned' });
  });

  it('a resumed accepted intent is read with GET, never POSTed again', async () => {
    const { deps, intent } = await begun();
    const first = new OrderMachine(deps, intent);
    const order = await first.send();
    const api = {
      getOrder: (id: string) => deps.api.getOrder(id),
      createOrder: () => Promise.reject(new Error('a second POST')),
    } as unknown as ApiClient;
    const driven = await driveIntent({ ...deps, api }, first.intent, { wait: false, intervalS: 0.01 });
    expect(driven.order.id).toBe(order.id);
  });

  it('delivery: the intent stays accepted when stdout fails (exit 8), and is resolved once it was flushed', async () => {
    const { server } = servers;
    const broken = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('ENOSPC'), { code: 'ENOSPC' })) });
    const { deps, journal, intent } = await begun(server.url, broken);
    const driven = await driveIntent(deps, intent, { wait: false, intervalS: 0.01 });
    await expect(finish(deps.io, journal, driven)).rejects.toMatchObject({ exitCode: 8 });
    expect(phaseOnDisk(journal, intent.key)).toBe('accepted');
    expect(journal.history.list()).toEqual([]);
    const ok = setup(server.url);
    const again = await driveIntent({ ...ok.deps, journal }, journal.find(intent.key)!, {
      wait: false,
      intervalS: 0.01,
    });
    await finish(ok.deps.io, journal, again);
    expect(journal.read().intents).toEqual([]);
    expect(journal.history.list()[0]).toMatchObject({ outcome: 'delivered', orderId: driven.order.id });
  });

  it('a codes file: its identity is recorded before the rename, and only that file is recognised later', async () => {
    const { deps, journal, spec } = setup();
    const path = join(tempDir(), 'codes.json');
    const { intent } = await journal.begin({ ...spec, out: { path, force: false, csvRaw: false } });
    const driven = await driveIntent(deps, intent, { wait: true, out: intent.out, intervalS: 0.01 });
    expect(driven.written).toMatchObject({ path, count: 2 });
    const onDisk = journal.find(intent.key)!;
    expect(onDisk.files).toHaveLength(1);
    expect(onDisk.files![0]).toMatchObject({ orderId: driven.order.id, path, size: readFileSync(path).length });
    expect(deliveredFile(onDisk, path)).toBeDefined();
    // Same size, other bytes: not its file.
    const text = readFileSync(path, 'utf8');
    const changed = text.replace('"code"', '"codf"');
    expect(changed).not.toBe(text);
    writeFileSync(path, changed);
    expect(deliveredFile(onDisk, path)).toBeUndefined();
    writeFileSync(path, text);
    expect(deliveredFile(onDisk, path)).toBeDefined();
    // Same bytes in another file (another inode, made while the first still exists): not its file either.
    writeFileSync(`${path}.copy`, text);
    renameSync(`${path}.copy`, path);
    expect(deliveredFile(onDisk, path)).toBeUndefined();
    // Another order's identity at the same path is never proof.
    const other = { ...onDisk, orderId: 'ord_other', files: [{ ...fileIdentity(path, 'ord_x', path) }] };
    expect(deliveredFile(other, path)).toBeUndefined();
    expect(deliveredFile({ ...onDisk, files: [fileIdentity(path, onDisk.orderId!, path)] }, path)).toBeDefined();
    await finish(deps.io, journal, driven);
    expect(journal.read().intents).toEqual([]);
  });
});
