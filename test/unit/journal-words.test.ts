// What the journal's refusals say: each names the order it is about and the one command that moves it on, since
// a refusal is all a cron job's mail shows. Mutation testing found these words unchecked (docs/mutation.md).
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { endedRecord } from '../../src/orders/lifecycle.js';
import { deadPid } from '../helpers/e2e.js';
import { spec, dead, journal } from '../helpers/journal.js';

/** An order placed with `key` whose outcome reached the user, its intent ended: only its record is left. */
async function deliveredRecord(j: Journal, key: string, out?: string): Promise<void> {
  const { intent } = await j.begin({
    ...spec,
    key,
    ...(out ? { out: { path: out, force: false, csvRaw: false } } : {}),
  });
  const accepted = j.save({ ...intent, phase: 'accepted', orderId: 'ord_9', status: 'completed' });
  await j.recordDelivery([endedRecord(accepted, 'delivered', Date.now())]);
  await j.end([accepted], 'delivered', { recorded: true });
}

describe('a key that already placed an order that reached the user', () => {
  it('with a codes file: names the order and the file, and how to see it or write its codes again', async () => {
    const j = journal();
    await deliveredRecord(j, 'nightly', '/srv/codes/mon.csv');
    const error = await j.begin({ ...spec, key: 'nightly' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      exitCode: 2,
      code: 'idempotency_key_used',
      message:
        'the idempotency key nightly already placed order ord_9, which reached you (codes in /srv/codes/mon.csv); a key names one order, so nothing was sent',
      hint: 'see it with: giftcodes order show ord_9; for a new order, use a new key (or give none, and one is made); its codes again: giftcodes codes get ord_9 --out CODES_FILE',
    });
  });

  it('on standard output or without a file: no file is named, and no codes get hint', async () => {
    for (const out of ['-', undefined]) {
      const j = journal();
      await deliveredRecord(j, 'nightly', out);
      const error = await j.begin({ ...spec, key: 'nightly' }).catch((e: unknown) => e);
      expect(error, String(out)).toMatchObject({
        code: 'idempotency_key_used',
        message:
          'the idempotency key nightly already placed order ord_9, which reached you; a key names one order, so nothing was sent',
        hint: 'see it with: giftcodes order show ord_9; for a new order, use a new key (or give none, and one is made)',
      });
    }
  });

  it('another product or quantity under that key is not refused here (the server decides: 422)', async () => {
    const j = journal();
    await deliveredRecord(j, 'nightly');
    await expect(j.begin({ ...spec, key: 'nightly', quantity: 4 })).resolves.toMatchObject({ resumed: false });
    const k2 = journal();
    await deliveredRecord(k2, 'nightly');
    await expect(k2.begin({ ...spec, key: 'nightly', productId: 'p2' })).resolves.toMatchObject({ resumed: false });
  });
});

describe('an interrupted intent the key belongs to', () => {
  it('in another environment with the same API key: where it is, without "another API key", and how to finish it', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'K' })).intent, owner: dead() });
    const error = await j.begin({ ...spec, environment: 'live', key: 'K' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'idempotency_key_reused',
      message:
        'the idempotency key K already belongs to another order (3 × amazon-us-25, test on http://127.0.0.1:4010), still interrupted: it was never sent',
      hint: 'finish it first (giftcodes order resume K) or drop it (giftcodes order abandon K), or use a new key',
    });
  });

  it('on another server: the same words, naming that server', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'K' })).intent, owner: dead() });
    const error = await j.begin({ ...spec, baseUrl: 'http://other:1', key: 'K' }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      '(3 × amazon-us-25, test on http://127.0.0.1:4010), still interrupted: it was never sent',
    );
  });

  it('held by a live process: says to wait, and where to look', async () => {
    const j = journal();
    j.save({ ...(await j.begin({ ...spec, key: 'held' })).intent, owner: { pid: process.ppid } });
    await expect(j.claim('held')).rejects.toMatchObject({
      code: 'intent_busy',
      hint: 'wait for it to finish, then check: giftcodes order pending',
    });
  });

  it('of another machine: names the key, the order and that machine; nothing was sent', async () => {
    const j = journal();
    const { intent } = await j.begin(spec);
    j.save({ ...intent, phase: 'sending', owner: { pid: deadPid(), machine: 'elsewhere-2' } });
    await expect(j.begin(spec)).rejects.toMatchObject({
      message: `the interrupted order with key ${intent.key} (3 × amazon-us-25) belongs to another machine (elsewhere-2) sharing this config directory, which may still be running it; nothing was sent`,
    });
  });
});
