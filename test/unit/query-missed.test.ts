// --query that selects nothing (a field the document does not have) prints null, as jq does, and says on stderr
// what it missed and which fields there are: `order place --json --query orderId` is null (the order is `id`),
// and a script that takes null for an answer orders again.
import { describe, expect, it } from 'vitest';
import { compileQuery, queryMissed } from '../../src/output/exporter.js';
import { unstamped } from '../helpers/e2e.js';
import { capturedIo } from '../helpers/inprocess.js';

describe('a --query that selects nothing', () => {
  it('prints null and warns, naming the fields of the document', async () => {
    const { io, out, err } = capturedIo({ json: true });
    io.query = await compileQuery('orderId');
    io.outJson({ id: 'ord_1', status: 'pending', quantity: 2 });
    await io.flushOut();
    expect(out()).toBe('null\n');
    expect(unstamped(err())).toBe(
      'warning: --query "orderId" gave null (no such field: orderId); its fields: id, status, quantity\n',
    );
  });

  // A person's day: `order list --query orderId` warned "no such field: orderId" beside "each item's fields: key, keyId,
  // orderId, …". A field of a list's items named on the list says the way to it.
  it("a field of a list's items named on the list: the way to it, not 'no such field'", async () => {
    const { io, out, err } = capturedIo({ json: true });
    io.query = await compileQuery('orderId');
    io.outJson([{ key: 'k', orderId: 'ord_1' }]);
    await io.flushOut();
    expect(out()).toBe('null\n');
    expect(unstamped(err())).toBe(
      'warning: --query "orderId" gave null: the document is a list, and orderId is a field of its items: [].orderId gives each item\'s, [0].orderId the first one\'s\n',
    );
    // A name none of the items has: as before.
    expect(queryMissed('orderID', [{ orderId: 'x' }], { name: 'orderID', there: false })).toBe(
      '--query "orderID" gave null (no such field: orderID); each item\'s fields: orderId',
    );
  });

  it('says nothing when it selects something, a false or a 0 included', async () => {
    const { io, out, err } = capturedIo({ json: true });
    io.query = await compileQuery('quantity');
    io.outJson({ quantity: 0 });
    io.query = await compileQuery('ok');
    io.outJson({ ok: false });
    await io.flushOut();
    expect(out()).toBe('0\nfalse\n');
    expect(err()).toBe('');
  });

  it("an array's items' fields; at most twelve named; a document with nothing in it has none", () => {
    expect(queryMissed('[0].orderId', [{ id: 'a', status: 'x' }])).toBe(
      '--query "[0].orderId" gave null (no such field, or its value is null); each item\'s fields: id, status',
    );
    const wide = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`f${i}`, i]));
    expect(queryMissed('x', wide)).toMatch(/its fields: f0, f1, .*, f11, …$/);
    expect(queryMissed('[0]', [])).toBe('--query "[0]" gave null (no such field, or its value is null)');
    expect(queryMissed('x', 'text')).toBeUndefined();
    expect(queryMissed('x', null)).toBeUndefined();
  });

  // A review: `status --offline --query '[0].works'` warned "no such field, or its value is null" and named works
  // among the fields. The field a path of names and indexes ends with is looked for where the path leads.
  it('a field that is there, null, is never called absent; one that is not there is', async () => {
    const rows = [{ profile: 'default', key: 'sc_test_…7e2d', works: null }];
    const present = capturedIo({ json: true });
    present.io.query = await compileQuery('[0].works');
    present.io.outJson(rows);
    await present.io.flushOut();
    expect(present.out()).toBe('null\n');
    expect(unstamped(present.err())).toBe('warning: --query "[0].works" gave null: works is there, and null\n');
    const absent = capturedIo({ json: true });
    absent.io.query = await compileQuery('[0].worx');
    absent.io.outJson(rows);
    await absent.io.flushOut();
    expect(unstamped(absent.err())).toBe(
      'warning: --query "[0].worx" gave null (no such field: worx); each item\'s fields: profile, key, works\n',
    );
    // Deeper paths, quoted names, an object's own field.
    const order = { id: 'ord_1', failure_reason: null, items: [{ code: null }] };
    const missed = async (expression: string) => (await compileQuery(expression)).missed?.(order);
    expect(await missed('failure_reason')).toBe(
      '--query "failure_reason" gave null: failure_reason is there, and null',
    );
    expect(await missed('"failure_reason"')).toMatch(/: failure_reason is there, and null$/);
    expect(await missed('items[0].code')).toMatch(/: code is there, and null$/);
    expect(await missed('items[0].pin')).toMatch(
      /^--query "items\[0\]\.pin" gave null \(no such field: pin\); its fields: /,
    );
    expect(await missed('orderId')).toMatch(/^--query "orderId" gave null \(no such field: orderId\); its fields: /);
    // Where the path breaks before its last field: the name it broke at (review F7: `data.id`). More than names and
    // indexes: both ways, as before.
    expect(await missed('nope.code')).toMatch(/gave null \(no such field: nope\); its fields: id, /);
    expect(await missed("items[?code=='x'] | [0]")).toMatch(/gave null \(no such field, or its value is null\)/);
  });

  it('is silenced by --quiet', async () => {
    const { io, err } = capturedIo({ json: true });
    io.setMode({ json: true, quiet: true, verbose: false });
    io.query = await compileQuery('nope');
    io.outJson({ id: 1 });
    await io.flushOut();
    expect(err()).toBe('');
  });
});

// What orders/lifecycle.ts deliver keeps pending: only one field's name the order does not have at all. A review's
// nightly `--query failure_reason` (a field the order has, null when it did not fail) was left pending every night.
describe('Query.absent: one field the document does not have at all', () => {
  it('a name missing from an object, or any name of a list; never a null field, a longer expression or a value found', async () => {
    const order = { id: 'ord_1', status: 'completed', failure_reason: null };
    expect((await compileQuery('orderId')).absent?.(order)).toBe(true);
    expect((await compileQuery(' orderId ')).absent?.(order)).toBe(true);
    expect((await compileQuery('failure_reason')).absent?.(order)).toBe(false);
    expect((await compileQuery('id')).absent?.(order)).toBe(false);
    // A list has no fields: a name selects nothing from it (resume --all --query id).
    expect((await compileQuery('id')).absent?.([order])).toBe(true);
    // A quoted name is one field's name too.
    expect((await compileQuery('"orderId"')).absent?.(order)).toBe(true);
    expect((await compileQuery('"id"')).absent?.(order)).toBe(false);
    expect((await compileQuery('"order id"')).absent?.({ 'order id': 1 })).toBe(false);
    expect((await compileQuery('orderId')).absent?.(null)).toBe(false);
    // A path of names and indexes: a name missing where the path leads (review F7: `data.id` printed null, and the
    // order counted as delivered); never where it meets a null on the way (a field there, and null).
    expect((await compileQuery('order.id')).absent?.(order)).toBe(true);
    expect((await compileQuery('data.id')).absent?.(order)).toBe(true);
    expect((await compileQuery('data[0].id')).absent?.(order)).toBe(true);
    expect((await compileQuery('id.value')).absent?.(order)).toBe(true);
    expect((await compileQuery('failure_reason.code')).absent?.(order)).toBe(false);
    expect((await compileQuery('items[0].pin')).absent?.({ items: [{ code: 'A' }] })).toBe(true);
    expect((await compileQuery('items[0].code')).absent?.({ items: [{ code: null }] })).toBe(false);
    expect((await compileQuery('items[3].code')).absent?.({ items: [{ code: 'A' }] })).toBe(false);
    expect((await compileQuery('length(@)')).absent?.(order)).toBe(false);
    expect((await compileQuery("[?status=='failed'] | [0]")).absent?.(order)).toBe(false);
    // An index asked of an object (order list's `[0].orderId` on one order), and a gathering expression with a name
    // the document lacks (review F1, stop 78: a charge whose id reached nobody); never one whose names are all there.
    expect((await compileQuery('[0].orderId')).absent?.(order)).toBe(true);
    expect((await compileQuery('[0].id')).absent?.(order)).toBe(true);
    expect((await compileQuery('[0].id')).absent?.([order])).toBe(false);
    expect((await compileQuery('{order: orderId, status: status}')).absent?.(order)).toBe(true);
    expect((await compileQuery('[status, orderId]')).absent?.(order)).toBe(true);
    expect((await compileQuery('[orderId][0]')).absent?.(order)).toBe(true);
    expect((await compileQuery('{order: id, why: failure_reason}')).absent?.(order)).toBe(false);
    expect((await compileQuery('[id, status][0]')).absent?.(order)).toBe(false);
    expect((await compileQuery('{n: length(@)}')).absent?.(order)).toBe(false);
    // Whichever member lacks it, and a gathering then walked into (`{a: orderId}.a`).
    expect((await compileQuery('{status: status, order: orderId}')).absent?.(order)).toBe(true);
    expect((await compileQuery('{a: orderId}.a')).absent?.(order)).toBe(true);
    expect((await compileQuery('{a: id}.a')).absent?.(order)).toBe(false);
    // An index of a field that is there and null: null is its answer, not a name missing.
    expect((await compileQuery('failure_reason[0].code')).absent?.(order)).toBe(false);
    expect((await compileQuery('status[0]')).absent?.(order)).toBe(true);
  });

  it('what a gathered result holds a null for is said; nothing for one whose names are all there', async () => {
    const order = { id: 'ord_1', status: 'completed', failure_reason: null };
    const gathered = capturedIo({ json: true });
    gathered.io.query = await compileQuery('{order: orderId, status: status}');
    gathered.io.outJson(order);
    await gathered.io.flushOut();
    expect(gathered.out()).toBe('{\n  "order": null,\n  "status": "completed"\n}\n');
    expect(unstamped(gathered.err())).toBe(
      'warning: --query "{order: orderId, status: status}" gave null for orderId (no such field: orderId); its fields: id, status, failure_reason\n',
    );
    expect(gathered.io.queryAbsent).toMatch(/gave null for orderId/);
    const indexed = capturedIo({ json: true });
    indexed.io.query = await compileQuery('[0].orderId');
    indexed.io.outJson(order);
    expect(unstamped(indexed.err())).toBe(
      'warning: --query "[0].orderId" gave null (the document is not a list: [0] selects nothing)\n',
    );
    expect(indexed.io.queryAbsent).toBeDefined();
    const right = capturedIo({ json: true });
    right.io.query = await compileQuery('{order: id, why: failure_reason}');
    right.io.outJson(order);
    expect(right.err()).toBe('');
    expect(right.io.queryAbsent).toBeUndefined();
  });

  it('Io keeps what it said only for such a field', async () => {
    const missing = capturedIo({ json: true });
    missing.io.query = await compileQuery('orderId');
    missing.io.outJson({ id: 'ord_1' });
    expect(missing.io.queryAbsent).toMatch(/^--query "orderId" gave null/);
    const nullField = capturedIo({ json: true });
    nullField.io.query = await compileQuery('failure_reason');
    nullField.io.outJson({ id: 'ord_1', failure_reason: null });
    expect(nullField.io.queryAbsent).toBeUndefined();
  });
});
