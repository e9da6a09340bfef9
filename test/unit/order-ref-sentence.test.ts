// A ref pasted with the words of its sentence (a support desk walkthrough): `order show "Order #ord_68e9…"` went to
// the API as GET /v1/orders/Order%20%23ord_68e9… (404). Text with whitespace cannot be one id: the one word of it
// that names an order is read, said on stderr, and text with whitespace is never sent.
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { OrderRecord } from '../../src/journal/history.js';
import { orderRef } from '../../src/orders/ref.js';
import { capturedIo, freshJournal } from '../helpers/inprocess.js';
import { recordAt } from '../helpers/journal.js';

const here = 'https://api.example';
const id = 'ord_68e9c1d2e3f4a5b6c7d8e9f0';

function refDeps(records: readonly OrderRecord[], target = { profile: 'default', baseUrl: here }) {
  const journal = freshJournal();
  for (const r of records) journal.history.record(r);
  const { io, err } = capturedIo();
  const asked: string[] = [];
  const client = {} as ApiClient;
  const deps = {
    io,
    journal: () => Promise.resolve(journal),
    api: () => Promise.resolve(client),
    currentTarget: () => Promise.resolve({ ...target, environment: 'test' }),
    connectionTo: (where: { baseUrl: string }) => Promise.resolve({ baseUrl: where.baseUrl, apiKey: 'sc_test_x' }),
    clientFor: (baseUrl: string) => (asked.push(baseUrl), Promise.resolve(client)),
  } as unknown as Parameters<typeof orderRef>[0];
  return { deps, err, client };
}

describe('a ref of several words', () => {
  it('reads the one word that names an order recorded here, and says so', async () => {
    const { deps, err } = refDeps([recordAt('k-1', '2026-11-29T00:00:00Z', { orderId: id, baseUrl: here })]);
    for (const typed of [`Order #${id}`, `Order #${id} was not delivered.`, `"${id.slice(0, 12)}…" please`]) {
      const ref = await orderRef(deps, typed);
      expect(ref.orderId, typed).toBe(id);
      expect(ref.record?.key).toBe('k-1');
    }
    expect(err()).toContain(
      `the ref is 2 words, so not one id: reading ${id}, the one of them that names an order recorded here\n`,
    );
  });

  it('else the one word that begins as the order ids of this profile do: asked of the API, and said', async () => {
    const other = 'ord_aaaabbbbccccddddeeeeffff';
    const { deps, err, client } = refDeps([recordAt('k-1', '2026-11-29T00:00:00Z', { orderId: other, baseUrl: here })]);
    await expect(orderRef(deps, `Order #${id}, placed yesterday`)).resolves.toEqual({
      orderId: id,
      record: undefined,
      api: client,
    });
    expect(err()).toContain(
      `the ref is 4 words, so not one id: reading ${id}, the one of them that begins as the order ids recorded here do (ord_)\n`,
    );
    // Another service's ids: their own prefix, whatever it is.
    const theirs = refDeps([recordAt('k-2', '2026-11-29T00:00:00Z', { orderId: 'GC_01HZX', baseUrl: here })]);
    await expect(orderRef(theirs.deps, 'see GC_77QQ41 thanks')).resolves.toMatchObject({ orderId: 'GC_77QQ41' });
  });

  // A review: "Order ord_4889… was not delivered", with a key `order-1001` recorded here: `Order` was read as a
  // prefix of that key, and codes get wrote that other order's codes. A word names an order only whole.
  it('a word that is only a prefix of a recorded key or id names nothing: the id-shaped word is read', async () => {
    const mine = 'ord_f4e0aaaabbbbccccddddeeee';
    const { deps, err } = refDeps([recordAt('order-1001', '2026-11-29T00:00:00Z', { orderId: mine, baseUrl: here })]);
    const ref = await orderRef(deps, `Order ${id} was not delivered`);
    expect(ref.orderId).toBe(id);
    expect(ref.record).toBeUndefined();
    expect(err()).not.toContain('reading Order');
    // Whole, the key is read (any case for an id).
    expect((await orderRef(deps, `see order-1001 please`)).orderId).toBe(mine);
    expect((await orderRef(deps, `see ${mine.toUpperCase()} please`)).orderId).toBe(mine);
  });

  // A third review: "restock: please send the 5 codes of ord_X", with a key `restock` recorded here: the key was read,
  // and codes get wrote that key's order's codes. A recorded word beside an id-shaped one is two candidates.
  it('a recorded key beside an id-shaped word: both named, exit 2, nothing sent', async () => {
    const mine = 'ord_f4e0aaaabbbbccccddddeeee';
    const { deps } = refDeps([recordAt('restock', '2026-11-29T00:00:00Z', { orderId: mine, baseUrl: here })]);
    await expect(orderRef(deps, `restock: please send the 5 codes of ${id}`)).rejects.toMatchObject({
      exitCode: 2,
      code: 'ref_not_one_word',
      message: expect.stringContaining(`(restock, ${id})`),
    });
    // The id inside a link or an assignment counts as much (a fourth review: the key was read alone).
    for (const typed of [
      `restock: the codes are at https://dash.example.com/orders/${id}`,
      `restock: [${id}](https://dash.example.com/orders/${id})`,
      `restock: order=${id}`,
    ])
      await expect(orderRef(deps, typed), typed).rejects.toMatchObject({ code: 'ref_not_one_word' });
    // A link alone names its id.
    expect((await orderRef(deps, `see https://dash.example.com/orders/${id} please`)).orderId).toBe(id);
    // The key alone among other words is read.
    expect((await orderRef(deps, `restock please`)).orderId).toBe(mine);
  });

  // A support review: a dashboard link pasted alone went to the API whole, query string and all, as the order id
  // (GET /v1/orders/https%3A%2F%2Fdash…, 404, kept in access logs), where the same link inside a sentence was read.
  it('a link alone is read by its parts, as a sentence is; with no part to read it is refused, never sent', async () => {
    const { deps, err } = refDeps([recordAt('k-1', '2026-11-29T00:00:00Z', { orderId: id, baseUrl: here })]);
    const other = 'ord_0123456789abcdef01234567';
    for (const typed of [`https://dash.example.com/orders/${other}?tab=codes`, `<https://dash.example.com/o/${id}>`]) {
      const ref = await orderRef(deps, typed);
      expect(ref.orderId, typed).toBe(typed.includes(other) ? other : id);
    }
    expect(err()).toContain(
      `the ref is a link, so not one id: reading ${other}, the one part of it that begins as the order ids recorded here do (ord_)\n`,
    );
    expect(err()).toContain(`the ref is a link, so not one id: reading ${id}, the one part of it that begins`);
    await expect(orderRef(refDeps([]).deps, `https://dash.example.com/orders/${id}?tab=codes`)).rejects.toMatchObject({
      exitCode: 2,
      code: 'ref_not_one_word',
      message: 'the ref is a link, so not one id, and none of its parts names an order recorded here: it was not sent',
      // A support desk on a machine with no records (a person's-day review): "without the words around it" said
      // nothing of a link; the part of its path that may be the id is named, still not sent.
      hint: `paste the order id or key alone: in this link that may be ${id}`,
    });
    for (const [typed, part] of [
      [`https://dash.example.com/o/${id}/`, id],
      [`https://dash.example.com/view?order=${id}&tab=codes`, id],
      [`https://dash.example.com/orders/${id}/codes`, id],
      // The last part with a digit, not the last part: `details` names no order.
      [`https://dash.example.com/orders/${id}/details`, id],
      [`https://dash.example.com/view?orderId=${id}`, id],
      [`https://dash.example.com/view?order-id=${id}`, id],
      [`https://dash.example.com/view?ID=${id}`, id],
      // Only a query field named as an order's: `reseller_id` and `order_note` are not.
      [`https://dash.example.com/o/${id}?reseller_id=rs_demo_12345`, id],
      [`https://dash.example.com/o/${id}?order_note=hello12345`, id],
      // An empty or spaced query value is no id: the path's is.
      [`https://dash.example.com/o/${id}?order=`, id],
      // Parts shorter than six are no id (`p2`, a page); six are.
      [`https://dash.example.com/o/${id}/p2`, id],
      ['https://dash.example.com/o/ab1234', 'ab1234'],
      // A second link with no such part does not hide the first one's.
      [`https://dash.example.com/ https://dash.example.com/o/${id}`, id],
    ] as const)
      await expect(orderRef(refDeps([]).deps, typed), typed).rejects.toMatchObject({
        hint: `paste the order id or key alone: in this link that may be ${part}`,
      });
    // A stray % in the path (decodeURIComponent's URIError) is the part as pasted, not a crash.
    await expect(orderRef(refDeps([]).deps, `https://dash.example.com/%E0%A4%A/${id}%`)).rejects.toMatchObject({
      code: 'ref_not_one_word',
      hint: `paste the order id or key alone: in this link that may be ${id}%`,
    });
    // Two links naming two orders, a value with a space, a link with no part that may be an id: no guess.
    for (const typed of [
      `https://dash.example.com/o/${id} https://dash.example.com/o/ord_0123456789abcdef01234567`,
      'https://dash.example.com/view?order=a%20b1234567',
      'https://dash.example.com/view?reseller_id=rs_demo_12345',
    ])
      await expect(orderRef(refDeps([]).deps, typed), typed).rejects.toMatchObject({
        hint: 'paste the order id or key alone, without the words around it',
      });
    await expect(orderRef(refDeps([]).deps, 'https://dash.example.com/')).rejects.toMatchObject({
      hint: 'paste the order id or key alone, without the words around it',
    });
  });

  it('no word to read, or more than one: exit 2, nothing sent', async () => {
    const none = refDeps([]);
    await expect(orderRef(none.deps, `Order #${id}`)).rejects.toMatchObject({
      exitCode: 2,
      code: 'ref_not_one_word',
      message: 'the ref is 2 words, so not one id, and none of them names an order recorded here: it was not sent',
      hint: 'paste the order id or key alone, without the words around it',
    });
    const two = refDeps([
      recordAt('k-1', '2026-11-29T00:00:00Z', { orderId: id, baseUrl: here }),
      recordAt('k-2', '2026-11-29T00:00:00Z', { orderId: 'ord_0123456789abcdef01234567', baseUrl: here }),
    ]);
    await expect(orderRef(two.deps, `${id} or ord_0123456789abcdef01234567`)).rejects.toMatchObject({
      exitCode: 2,
      message: `the ref is 3 words, so not one id, and more than one of them could name the order (${id}, ord_0123456789abcdef01234567): it was not sent`,
      hint: 'paste the order id or key you mean alone',
    });
    // Ids of another profile at another server are not this profile's shape.
    const elsewhere = refDeps([
      recordAt('k-3', '2026-11-29T00:00:00Z', { orderId: 'ord_aaaa', profile: 'eu', baseUrl: 'https://eu.example' }),
    ]);
    await expect(orderRef(elsewhere.deps, `Order #${id}`)).rejects.toMatchObject({ code: 'ref_not_one_word' });
  });

  it('a key recorded with a space in it is found as typed; a ref of one word is as before', async () => {
    const { deps, err } = refDeps([recordAt('invoice 1001', '2026-11-29T00:00:00Z', { orderId: id, baseUrl: here })]);
    await expect(orderRef(deps, 'invoice 1001')).resolves.toMatchObject({ orderId: id });
    await expect(orderRef(deps, '  ord_0123456789abcdef01234567  ')).resolves.toMatchObject({
      orderId: 'ord_0123456789abcdef01234567',
    });
    expect(err()).not.toContain('words');
  });
});
