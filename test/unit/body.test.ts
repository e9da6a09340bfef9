// parseJsonBody's depth guard: exactly MAX_JSON_DEPTH levels pass, one more is refused, in arrays, objects and both.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, parseJsonBody } from '../../src/api/body.js';

const nested = (levels: number, open: (i: number) => string, close: (i: number) => string): Buffer => {
  let text = '1';
  for (let i = levels - 1; i >= 0; i--) text = `${open(i)}${text}${close(i)}`;
  return Buffer.from(text);
};
const arrays = (levels: number) =>
  nested(
    levels,
    () => '[',
    () => ']',
  );
const objects = (levels: number) =>
  nested(
    levels,
    () => '{"a":',
    () => '}',
  );
const mixed = (levels: number) =>
  nested(
    levels,
    (i) => (i % 2 ? '[0,' : '{"k":"v","a":'),
    (i) => (i % 2 ? ']' : '}'),
  );

describe('parseJsonBody', () => {
  it.each([
    ['arrays', arrays],
    ['objects', objects],
    ['arrays and objects', mixed],
  ])('accepts %s nested MAX_JSON_DEPTH deep and refuses one level more', (_name, make) => {
    expect(parseJsonBody(make(MAX_JSON_DEPTH)).ok).toBe(true);
    expect(parseJsonBody(make(MAX_JSON_DEPTH + 1))).toEqual({
      ok: false,
      reason: `nested deeper than ${MAX_JSON_DEPTH} levels`,
    });
  });

  it('finds the deep branch beside shallow ones, and reads a wide page', () => {
    const deep = JSON.parse(arrays(MAX_JSON_DEPTH).toString()) as unknown;
    expect(parseJsonBody(Buffer.from(JSON.stringify({ data: [{ a: 1 }, { b: [deep] }, 3] }))).ok).toBe(false);
    const page = {
      data: Array.from({ length: 1000 }, (_, i) => ({ code: `C${i}`, value: { amount: i, currency: 'USD' } })),
    };
    expect(parseJsonBody(Buffer.from(JSON.stringify(page)))).toEqual({ ok: true, value: page });
  });

  it('refuses invalid UTF-8 and empty bodies', () => {
    expect(parseJsonBody(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({ ok: false, reason: 'not valid UTF-8' });
    expect(parseJsonBody(Buffer.alloc(0))).toEqual({ ok: false, reason: 'empty' });
  });
});
