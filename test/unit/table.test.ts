// Tables never cut an id or a key at 80 columns (support staff copy them whole): names give way instead.
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/output/table.js';
import { terminalIo as terminal } from '../helpers/inprocess.js';

const orderId = 'ord_a31ac06557824eecba89eb1e_with_a_long_suffix';
const key = 'plan-e392c912162627605ac6cea6-r12';
const productId = 'amazon-us-25-digital-delivery-only';

describe('renderTable at 80 columns', () => {
  it('keeps every id and key whole and cuts the name', () => {
    const rows = [
      {
        orderId,
        key,
        productId,
        name: 'Amazon.com Gift Card, twenty-five US dollars, digital delivery, one per customer',
      },
    ];
    const text = renderTable(terminal(80), rows, [
      { header: 'order', value: (r) => r.orderId },
      { header: 'key', value: (r) => r.key },
      { header: 'product', value: (r) => r.productId, whole: true },
      { header: 'name', value: (r) => r.name },
    ]);
    const line = text.split('\n')[1]!;
    expect(line).toContain(orderId);
    expect(line).toContain(key);
    expect(line).toContain(productId);
    expect(line).toContain('…');
  });

  it("a column cut from its start keeps a path's file name: …/amazon-25-2026-11-29.csv", () => {
    const out = '/srv/restock/codes/by-provider/reseller-api/amazon-25-2026-11-29.csv (100)';
    const text = renderTable(
      terminal(80),
      [{ orderId, out }],
      [
        { header: 'order', value: (r) => r.orderId },
        { header: 'out', value: (r) => r.out, cut: 'start' },
      ],
    );
    const line = text.split('\n')[1]!;
    expect(line.length).toBe(80);
    expect(line).toMatch(/ {2}…\S*amazon-25-2026-11-29\.csv \(100\)$/);
  });

  it('a column cut as a path loses its directory first, then the middle of its file name, whose start tells files apart', () => {
    const rows = ['codes/amazon-10-2026-11-30.csv (2)', 'codes/steam-20-2026-11-30.csv (1)'].map((out) => ({ out }));
    // ORDER (5), PAD (whole), OUT: 80 columns leave OUT `room` wide.
    const at = (room: number) =>
      renderTable(terminal(80), rows, [
        { header: 'order', value: () => 'ord_1' },
        { header: 'pad', value: () => 'x'.repeat(71 - room), whole: true },
        { header: 'out', value: (r) => r.out, cut: 'path' },
      ])
        .split('\n')
        .slice(1)
        .map((line) => line.slice(5 + 2 + 71 - room + 2).trimEnd());
    // Room for the file name: the directory goes.
    expect(at(30)).toEqual(['…/amazon-10-2026-11-30.csv (2)', '…/steam-20-2026-11-30.csv (1)']);
    // Less: the name before its extension goes, some of its start stays; with less still, its middle.
    expect(at(15)).toEqual(['amazon….csv (2)', 'steam-….csv (1)']);
    expect(at(12)).toEqual(['ama….csv (2)', 'ste….csv (1)']);
    expect(at(10)).toEqual(['amazo… (2)', 'steam… (1)']);
    // Room for the extension and its count at the end: the rest goes to the start, where the product is (a
    // batch's file names differ at the start and share their date; a dry run at 80 columns showed amazon-2…1-30.csv).
    expect(at(20)).toEqual(['amazon-10-2….csv (2)', 'steam-20-20….csv (1)']);
    const bare = (room: number) =>
      renderTable(
        terminal(80),
        [{ out: 'google-play-10-2026-11-30.csv' }],
        [
          { header: 'pad', value: () => 'x'.repeat(78 - room), whole: true },
          { header: 'out', value: (r) => r.out, cut: 'path' },
        ],
      )
        .split('\n')[1]!
        .slice(78 - room + 2);
    expect(bare(17)).toBe('google-play-….csv');
  });

  // A plan's summary at 80 columns showed `amz-1-n1.csv (100)` as `amz-1-n…v (100)`: the extension cut in two.
  it('a path cut keeps the extension and its count whole while three characters of the start fit beside them', () => {
    const at = (room: number) =>
      renderTable(
        terminal(80),
        [{ out: 'amz-1-n1.csv (100)' }],
        [
          { header: 'pad', value: () => 'x'.repeat(78 - room), whole: true },
          { header: 'out', value: (r) => r.out, cut: 'path' },
        ],
      )
        .split('\n')[1]!
        .slice(78 - room + 2);
    expect([14, 15, 16, 17, 18, 19, 20].map(at)).toEqual([
      'amz….csv (100)',
      'amz-….csv (100)',
      'amz-1….csv (100)',
      'amz-1-….csv (100)',
      'amz-1-n1.csv (100)',
      'amz-1-n1.csv (100)',
      'amz-1-n1.csv (100)',
    ]);
    // Too narrow for three characters of the start beside `.csv (100)`: the middle of the name goes.
    expect(at(13)).toBe('amz-1-… (100)');
  });

  // A live plan's summary at 80 columns left its files `amaz… (2)`, beside a STATUS of `completed` in every row.
  it('a column with the same value in every row gives way before a cell is cut, and is said once under the table', () => {
    const summary = (statuses: string[]) =>
      renderTable(
        terminal(80),
        statuses.map((status, i) => ({ status, out: `google-play-${i}0-2026-11-30.csv (3)` })),
        [
          { header: 'order', value: () => 'ord_a08a66b0438f46f68ca5d260' },
          { header: 'pad', value: () => 'x'.repeat(20), whole: true },
          { header: 'status', value: (r) => r.status, sameRank: 3 },
          { header: 'out', value: (r) => r.out, cut: 'path' },
        ],
      ).split('\n');
    // The rest of the room the file names need comes from the order id (the next test).
    expect(summary(['completed', 'completed'])).toEqual([
      'ORDER                    PAD                   OUT',
      'ord_a08a66b0438f46f68c…  xxxxxxxxxxxxxxxxxxxx  google-play-00-2026-11-30.csv (3)',
      'ord_a08a66b0438f46f68c…  xxxxxxxxxxxxxxxxxxxx  google-play-10-2026-11-30.csv (3)',
      'status of every row: completed',
    ]);
    // Rows that differ keep the column.
    expect(summary(['completed', 'pending'])[0]).toMatch(/ STATUS +OUT$/);
    // One row is no pattern; a table that fits keeps it.
    expect(summary(['completed'])[0]).toMatch(/ STATUS +OUT$/);
    expect(renderTable(terminal(80), [{ s: 'a' }, { s: 'a' }], [{ header: 's', value: (r) => r.s, sameRank: 1 }])).toBe(
      'S\na\na',
    );
    // A column that gives way by its own dropRank is never said under the table (once, an empty "of every row:").
    const both = renderTable(
      terminal(20),
      [
        { s: 'a', w: 'w'.repeat(20) },
        { s: 'a', w: 'w'.repeat(20) },
      ],
      [
        { header: 'w', value: (r) => r.w, whole: true },
        { header: 's', value: (r) => r.s, sameRank: 1, dropRank: 1 },
      ],
    );
    expect(both.split('\n')).toEqual(['W', 'w'.repeat(20), 'w'.repeat(20)]);
  });

  // A plan's summary at 80 columns showed `amazon….csv (3)` beside whole 28-column order ids: where the codes went is
  // what the reseller reads it for, and order show takes a unique prefix of an id.
  it('beside a path, an order id gives way first, to a unique prefix of at least 8 characters after its ord_', () => {
    const rows = [
      { row: 2, id: 'ord_750b0f0531d64ebdb1090427', status: 'earlier run: completed', out: 'amazon-25-B5.csv' },
      { row: 3, id: 'ord_750b0f05ffd64ebdb1090427', status: 'earlier run: completed', out: 'steam-20-B5.csv' },
      { row: 4, id: 'ord_e8e6fba6bf2340d3a0c1b6f1', status: 'completed', out: 'google-play-25-B5.csv (2)' },
    ];
    const table = (width: number, out: 'path' | undefined) =>
      renderTable(terminal(width), rows, [
        { header: 'row', value: (r) => String(r.row) },
        { header: 'product', value: () => 'google-play-us-25', whole: true },
        { header: 'order', value: (r) => r.id, whole: true },
        { header: 'status', value: (r) => r.status, sameRank: 3 },
        { header: 'out', value: (r) => r.out, ...(out ? { cut: out } : {}) },
      ]).split('\n');
    const lines = table(80, 'path');
    expect(lines[0]).toMatch(/^ROW +PRODUCT +ORDER +STATUS +OUT$/);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    // Unique among the rows: the first two share `ord_750b0f05`, so they keep one character more.
    expect(lines[1]).toMatch(/ ord_750b0f053… +earlier[^…]*… +amazon-25-B5\.csv$/);
    expect(lines[2]).toMatch(/ ord_750b0f05f… +.* steam-20-B5\.csv$/);
    expect(lines[3]).toMatch(/ ord_e8e6fba6b… +completed +google-play-25-B5\.csv \(2\)$/);
    // No shorter than it must be: wide enough, whole.
    expect(table(120, 'path')[1]).toContain('ord_750b0f0531d64ebdb1090427');
    // A table without a path keeps its ids whole (order list: support staff copy them).
    expect(table(80, undefined)[1]).toContain('ord_750b0f0531d64ebdb1090427');
  });

  it('tells leftOut which columns a narrow terminal left out, but not one said under the table or blank in every row', () => {
    const rows = [0, 1].map((i) => ({ id: `ord_${String(i).repeat(24)}`, created: '2026-11-30T08:59:24Z' }));
    const columns = [
      { header: 'order', value: (r: (typeof rows)[number]) => r.id },
      { header: 'pad', value: () => 'x'.repeat(40), whole: true },
      { header: 'env', value: () => 'test', sameRank: 4 },
      { header: 'amount', value: () => '', dropRank: 5 },
      { header: 'created', value: (r: (typeof rows)[number]) => r.created, dropRank: 2 },
    ];
    const told = (width: number) => {
      let headers: readonly string[] | undefined;
      renderTable(terminal(width), rows, columns, { leftOut: (h) => (headers = h) });
      return headers;
    };
    expect(told(80)).toEqual(['CREATED']);
    expect(told(200)).toEqual([]);
  });

  it('a narrow column left out before a wide one comes back into the room the wide one left', () => {
    const rows = [{ id: 'i'.repeat(50), env: 'live', created: '2026-11-29T19:45:34Z (a while ago)' }];
    const text = renderTable(terminal(80), rows, [
      { header: 'id', value: (r) => r.id },
      { header: 'env', value: (r) => r.env, dropRank: 1 },
      { header: 'created', value: (r) => r.created, dropRank: 2 },
    ]);
    expect(text.split('\n')).toEqual([`ID${' '.repeat(50)}ENV`, `${'i'.repeat(50)}  live`]);
  });

  it('a row of ids wider than the terminal overflows rather than lose a character', () => {
    const rows = [{ id: 'x'.repeat(60), key: 'k'.repeat(40) }];
    const text = renderTable(terminal(80), rows, [
      { header: 'id', value: (r) => r.id },
      { header: 'idempotency key', value: (r) => r.key },
    ]);
    expect(text).toContain('x'.repeat(60));
    expect(text).toContain('k'.repeat(40));
    expect(text).not.toContain('…');
  });

  it('still fits a table whose only wide column is a name', () => {
    const text = renderTable(
      terminal(80),
      [{ id: 'a1', name: 'n'.repeat(200) }],
      [
        { header: 'id', value: (r) => r.id },
        { header: 'name', value: (r) => r.name },
      ],
    );
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('leaves out first a column that could give way and is blank in every row; one that must stay, stays', () => {
    const rows = [
      { id: 'ord_1', amount: '', status: 'completed', note: '' },
      { id: 'ord_2', amount: '', status: 'pending', note: '' },
    ];
    const columns = [
      { header: 'order', value: (r: (typeof rows)[number]) => r.id, whole: true },
      { header: 'amount', value: (r: (typeof rows)[number]) => r.amount, dropRank: 5 },
      { header: 'status', value: (r: (typeof rows)[number]) => r.status, dropRank: 1 },
      { header: 'note', value: (r: (typeof rows)[number]) => r.note },
    ];
    const header = renderTable(terminal(80), rows, columns).split('\n')[0]!;
    expect(header.split(/\s+/)).toEqual(['ORDER', 'STATUS', 'NOTE']);
    // With an amount in one row, the column stays; too narrow a terminal still drops by rank (status first).
    rows[1]!.amount = '60.00 GBP';
    expect(renderTable(terminal(80), rows, columns).split('\n')[0]!.split(/\s+/)).toEqual([
      'ORDER',
      'AMOUNT',
      'STATUS',
      'NOTE',
    ]);
    expect(renderTable(terminal(22), rows, columns).split('\n')[0]!.split(/\s+/)).toEqual(['ORDER', 'AMOUNT', 'NOTE']);
  });
});
