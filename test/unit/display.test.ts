// value.display: the major-unit amount beside the API's minor units, in CSV and JSON, on both paths
// (records parsed, and pages read from their bytes), with nothing the API sent changed or dropped.
import { describe, expect, it } from 'vitest';
import { displayOf, withDisplay } from '../../src/export/display.js';
import { JsonArrayWriter } from '../../src/export/json.js';
import { PageScanner } from '../../src/export/scan.js';
import type { TextSink } from '../../src/export/format.js';

function collect(): { sink: TextSink; text: () => string } {
  const chunks: string[] = [];
  return {
    sink: {
      write: (chunk) => (
        chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')),
        Promise.resolve()
      ),
    },
    text: () => chunks.join(''),
  };
}

describe('value.display', () => {
  it('displayOf: integer amount and a currency code; nothing for an object that has its own display or is no money', () => {
    expect(displayOf({ amount: 2500, currency: 'USD' })).toBe('25.00');
    expect(displayOf({ amount: 500, currency: 'JPY' })).toBe('500');
    expect(displayOf({ amount: -7, currency: 'KWD' })).toBe('-0.007');
    expect(displayOf({ amount: 2500, currency: 'USD', display: '$25' })).toBeUndefined();
    expect(displayOf({ amount: 25.5, currency: 'USD' })).toBeUndefined();
    expect(displayOf({ amount: 2500, currency: 'dollars' })).toBeUndefined();
    expect(displayOf({ amount: '2500', currency: 'USD' })).toBeUndefined();
  });

  it('withDisplay adds display last in nested money objects only, and leaves the record itself untouched', () => {
    const record = {
      code: 'A',
      amount: 1,
      currency: 'USD',
      value: { amount: 2500, currency: 'USD' },
      fee: { net: { amount: 5, currency: 'EUR' } },
    };
    const copy = JSON.stringify(record);
    expect(JSON.stringify(withDisplay(record))).toBe(
      '{"code":"A","amount":1,"currency":"USD","value":{"amount":2500,"currency":"USD","display":"25.00"},"fee":{"net":{"amount":5,"currency":"EUR","display":"0.05"}}}',
    );
    expect(JSON.stringify(record)).toBe(copy);
  });

  it('JSON from bytes is JSON from records, the display inside the money object', async () => {
    const body =
      '{"data":[{"code":"A","value":{"amount":2500,"currency":"USD"},"x":1},{"code":"B","value":{"amount":500,"currency":"JPY"},"x":2},{"code":"C","value":{"amount":null,"currency":"USD"},"x":3}],"has_more":false}';
    const fast = collect();
    const page = new PageScanner(['data']).scan(Buffer.from(body));
    expect(page).toBeDefined();
    const writer = new JsonArrayWriter(fast.sink);
    await writer.raw(page!);
    await writer.finish();
    const slow = collect();
    const reference = new JsonArrayWriter(slow.sink);
    await reference.page((JSON.parse(body) as { data: Record<string, unknown>[] }).data);
    await reference.finish();
    expect(fast.text()).toBe(slow.text());
    expect(JSON.parse(fast.text())).toEqual([
      { code: 'A', value: { amount: 2500, currency: 'USD', display: '25.00' }, x: 1 },
      { code: 'B', value: { amount: 500, currency: 'JPY', display: '500' }, x: 2 },
      { code: 'C', value: { amount: null, currency: 'USD' }, x: 3 },
    ]);
  });
});
