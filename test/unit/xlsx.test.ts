// The xlsx writer's pieces: XML text, date serials, column names, and a sheet's row limit.
import { describe, expect, it } from 'vitest';
import type { TextSink } from '../../src/export/format.js';
import { columnName, dateSerial, xmlText, XlsxWriter } from '../../src/export/xlsx.js';

describe('xlsx pieces', () => {
  it('xmlText escapes markup and drops what XML 1.0 cannot hold', () => {
    expect(xmlText('0208')).toBe('0208');
    expect(xmlText('a<b>&"c"')).toBe('a&lt;b&gt;&amp;&quot;c&quot;');
    expect(xmlText('x\u0000y\u0008z\u000Bw\uFFFE\uD800!')).toBe('xyzw!');
    expect(xmlText('tab\there\nnew\rline 😀')).toBe('tab\there\nnew\rline 😀');
  });

  it('dateSerial: ISO timestamps with a time, in UTC; anything else is not a date', () => {
    expect(dateSerial('1970-01-01T00:00:00Z')).toBe(25569);
    expect(dateSerial('2027-01-31T12:00:00.000Z')).toBe(46418.5);
    expect(dateSerial('2027-01-31T14:00:00+02:00')).toBe(46418.5);
    expect(dateSerial('2027-01-31')).toBeUndefined();
    expect(dateSerial('0208')).toBeUndefined();
    expect(dateSerial('2027-13-45T99:00:00Z')).toBeUndefined();
  });

  it('columnName: A…Z, AA…', () => {
    expect([0, 25, 26, 27, 51, 52, 701, 702].map(columnName)).toEqual(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
  });

  it('more codes than a sheet holds: exit 2 naming the limit, before anything of that page is written', async () => {
    const written: (string | Uint8Array)[] = [];
    const sink: TextSink = { write: (chunk) => (written.push(chunk), Promise.resolve()) };
    const writer = new XlsxWriter(sink, { orderId: 'ord_big' });
    const record = { code: 'AAAA', value: { amount: 2500, currency: 'USD' } };
    await writer.page([record]);
    await expect(writer.page(new Array<typeof record>(1_048_575).fill(record))).rejects.toMatchObject({
      exitCode: 2,
      code: 'xlsx_too_many_rows',
      message: expect.stringContaining('1,048,575 codes') as unknown,
    });
    await writer.dispose();
  });
});
