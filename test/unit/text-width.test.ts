// Tables measure text in terminal columns (src/output/width.ts): a CJK character or an emoji takes two, a
// combining mark none, and no cut splits a character. Measured in UTF-16 units, a catalog of Japanese names put
// every column after NAME out of line, and a cut through an emoji printed half a surrogate pair.
import { describe, expect, it } from 'vitest';
import { renderTable } from '../../src/output/table.js';
import { charWidth, headOfWidth, padToWidth, tailOfWidth, textWidth } from '../../src/output/width.js';
import { productChoices } from '../../src/orders/guided.js';
import { terminalIo as terminal } from '../helpers/inprocess.js';

describe('text width in terminal columns', () => {
  it('counts wide characters twice, marks and joiners not at all, everything else once', () => {
    expect(textWidth('amazon-us-25')).toBe(12);
    expect(textWidth('楽天ギフト')).toBe(10);
    expect(textWidth('기프트카드')).toBe(10);
    expect(textWidth('ＡＢ')).toBe(4);
    expect(textWidth('🎁 gift')).toBe(7);
    expect(textWidth('Gutschein 25 €')).toBe(14);
    expect(textWidth('Café')).toBe(4);
    // e and a combining acute accent: one column.
    expect(textWidth('Cafe\u0301')).toBe(4);
    expect(textWidth('a\u200db')).toBe(2);
    expect(textWidth('ｶﾀｶﾅ')).toBe(4);
    expect(charWidth('\u{20000}')).toBe(2);
    expect(charWidth('\u{3fffe}')).toBe(1);
  });

  it('pads and cuts by columns, never through a character', () => {
    expect(padToWidth('楽天', 6)).toBe('楽天  ');
    expect(padToWidth('楽天ギフト', 4)).toBe('楽天ギフト');
    expect(headOfWidth('楽天ギフト', 5)).toBe('楽天');
    expect(headOfWidth('🎁🎁🎁', 3)).toBe('🎁');
    expect(headOfWidth('Cafe\u0301 noir', 4)).toBe('Cafe\u0301');
    expect(tailOfWidth('ギフト.csv', 7)).toBe('ト.csv');
    expect(tailOfWidth('🎁🎁', 3)).toBe('🎁');
    // A mark kept at the start of an end would be drawn over nothing.
    expect(tailOfWidth('e\u0301x', 1)).toBe('x');
  });
});

describe('tables of wide text', () => {
  const rows = [
    { id: 'rakuten-jp-5000', name: '楽天ギフトカード 5,000円', price: '5,000 JPY' },
    { id: 'amazon-us-25', name: 'Amazon.com Gift Card', price: '25.00 USD' },
  ];
  const columns = [
    { header: 'id', value: (r: (typeof rows)[number]) => r.id },
    { header: 'name', value: (r: (typeof rows)[number]) => r.name },
    { header: 'price', value: (r: (typeof rows)[number]) => r.price },
  ];

  it('lines each column up in terminal columns', () => {
    const lines = renderTable(terminal(80), rows, columns).split('\n');
    expect(lines).toEqual([
      'ID               NAME                      PRICE',
      'rakuten-jp-5000  楽天ギフトカード 5,000円  5,000 JPY',
      'amazon-us-25     Amazon.com Gift Card      25.00 USD',
    ]);
  });

  it('cuts a wide name to fit the terminal, in columns, with no half character', () => {
    // NAME has 8 columns: three wide characters and the ellipsis take 7, a space the eighth.
    expect(renderTable(terminal(36), rows, columns).split('\n')).toEqual([
      'ID               NAME      PRICE',
      'rakuten-jp-5000  楽天ギ…   5,000 JPY',
      'amazon-us-25     Amazon.…  25.00 USD',
    ]);
    const emoji = renderTable(terminal(20), [{ id: 'gift', name: '🎁🎁🎁🎁🎁🎁🎁🎁', price: '1' }], columns);
    expect(emoji.split('\n')).toEqual(['ID    NAME     PRICE', 'gift  🎁🎁🎁…  1']);
  });

  it("the guided order's product list lines prices up after a wide brand", () => {
    const price = (amount: number, currency: string) => ({ price: { amount, currency } });
    const choices = productChoices([
      { id: 'rakuten-jp-5000', name: 'x', brand: '楽天', ...price(5000, 'JPY') },
      { id: 'amazon-us-25', name: 'y', brand: 'Amazon', ...price(2500, 'USD') },
    ] as never);
    expect(choices.map((choice) => choice.name)).toEqual([
      'rakuten-jp-5000  楽天    5,000 JPY',
      'amazon-us-25     Amazon  25.00 USD',
    ]);
  });
});
