// The export's fast path (src/export/scan.ts) against the JSON.parse path, which is the reference: random
// pages (any key order, whitespace, extra members, unicode, escapes, numbers in every JSON form, nulls,
// nested objects, other dialects, corrupted bytes) must give the same bytes in every format whichever
// path reads them, and a page the JSON.parse path refuses is never taken by the fast path.
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/api/body.js';
import { readRaw } from '../../src/api/client.js';
import { LIST_KEYS, codeRecord, extractList, nextPageUrl, statedTotal } from '../../src/api/pagination.js';
import { CsvWriter } from '../../src/export/csv.js';
import type { FormatWriter, TextSink } from '../../src/export/format.js';
import { JsonArrayWriter } from '../../src/export/json.js';
import { JsonLinesWriter } from '../../src/export/jsonl.js';
import { PageScanner, STRING_COMMA, type ScannedPage } from '../../src/export/scan.js';
import { tempDir } from '../helpers/e2e.js';

const LIST = [...LIST_KEYS, 'codes'];

/** A sink in memory; `rewindable` like a file's (CSV then writes rows straight after its header). */
function memorySink(rewindable = false): TextSink & { bytes(): Buffer } {
  let chunks: Buffer[] = [];
  return {
    write: async (chunk) => {
      chunks.push(Buffer.from(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    },
    bytes: () => Buffer.concat(chunks),
    ...(rewindable
      ? {
          rewind: {
            read: async (buffer: Buffer, position: number, length: number) =>
              Buffer.concat(chunks).copy(buffer, 0, position, position + length),
            truncate: async () => {
              chunks = [];
            },
          },
        }
      : {}),
  };
}

type Writers = Record<string, { writer: FormatWriter; sink: ReturnType<typeof memorySink> }>;

function writers(dir: string, tag: string, rewindable = false): Writers {
  const make = (build: (sink: TextSink) => FormatWriter) => {
    const sink = memorySink(rewindable);
    return { writer: build(sink), sink };
  };
  return {
    csv: make((sink) => new CsvWriter(sink, { orderId: 'ord_1', raw: false, spoolPath: join(dir, `${tag}-csv.tmp`) })),
    'csv --csv-raw': make(
      (sink) => new CsvWriter(sink, { orderId: '=ord,"1"', raw: true, spoolPath: join(dir, `${tag}-raw.tmp`) }),
    ),
    json: make((sink) => new JsonArrayWriter(sink)),
    jsonl: make((sink) => new JsonLinesWriter(sink)),
  };
}

// Raw JSON text, so that every spelling can be produced: escapes, number forms, whitespace, mistakes.
type J = { raw: string } | { members: [string, J][] } | { items: J[] };

function text(j: J, ws: () => string): string {
  if ('raw' in j) return j.raw;
  if ('items' in j) return `[${ws()}${j.items.map((item) => text(item, ws)).join(`${ws()},${ws()}`)}${ws()}]`;
  return `{${ws()}${j.members.map(([key, value]) => `${key}${ws()}:${ws()}${text(value, ws)}`).join(`${ws()},${ws()}`)}${ws()}}`;
}

const unit = fc.constantFrom(
  'a',
  'Z',
  '0',
  '9',
  '-',
  '=',
  '+',
  '@',
  ',',
  '"',
  '\\',
  '\n',
  '\r',
  '\t',
  ' ',
  'é',
  '€',
  '😀',
  '\u2028',
  '\u0000',
  "'",
  '.',
  '/',
  '[',
  ']',
  '{',
  '}',
  ':',
);
const stringText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .string({
        unit: fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '0', '-', ',', ' ', 'é', '😀', '.', '=') },
          { weight: 1, arbitrary: unit },
        ),
        maxLength: 12,
      })
      .map((s) => JSON.stringify(s)),
  },
  // The same characters spelt with escapes JSON.stringify would not use.
  {
    weight: 1,
    arbitrary: fc
      .string({ unit, maxLength: 8 })
      .map((s) => JSON.stringify(s).replace(/a/g, '\\u0061').replace(/\//g, '\\/')),
  },
  // Not JSON: a raw control character, a lone backslash.
  { weight: 1, arbitrary: fc.constantFrom('"a\tb"', '"a\\"', '"\\x41"', '"\u0001"') },
);
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.integer({ min: -100000, max: 100000 }).map((n) => String(n / 100)),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.tuple(fc.integer({ min: -99999, max: 99999 }), fc.nat({ max: 9999 })).map(([i, f]) => `${i}.${f}`),
  fc.constantFrom(
    '-0',
    '0',
    '1.50',
    '1e5',
    '1E-7',
    '0.000001',
    '0.0000001',
    '0.0000015',
    '-0.5',
    '-0.0',
    '123456789012345',
    '1234567890123456',
    '12345678901234567890',
    '1.0',
    '0.1',
    '100',
    '-12.25',
    '1e400',
    '-1e-400',
    '01',
    '1.',
    '.5',
    '+1',
    '0.00001',
    '1e21',
    '2500',
    '-',
    '1.5e3',
  ),
);
const literalText = fc.constantFrom('true', 'false', 'null', 'nul', 'True');
const keyPool = [
  'code',
  'pin',
  'serial',
  'value',
  'amount',
  'currency',
  'expires_at',
  'order_id',
  'type',
  'id',
  'ключ',
  'x y',
  'Code',
  'constructor',
  'a,b',
  '=x',
  'toString',
];
const keyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom(...keyPool).map((k) => JSON.stringify(k)) },
  // Keys JSON.parse reads differently (integer-like first, __proto__) or CSV names ambiguously (dots, empty).
  {
    weight: 1,
    arbitrary: fc.constantFrom('attributes', 'a.b', '1', '01', '__proto__', '').map((k) => JSON.stringify(k)),
  },
  { weight: 1, arbitrary: fc.constantFrom('"c\\u006fde"', '"p\\u0069n"', '"a\\"b"') },
);

const leaf: fc.Arbitrary<J> = fc.oneof(
  { weight: 6, arbitrary: stringText.map((raw) => ({ raw })) },
  { weight: 4, arbitrary: numberText.map((raw) => ({ raw })) },
  { weight: 2, arbitrary: literalText.map((raw) => ({ raw })) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<J>(
      { raw: '[]' },
      { raw: '{}' },
      { items: [{ raw: '1' }, { raw: '"a"' }] },
      { members: [['"k"', { raw: '1' }]] },
    ),
  },
);

/** Values the fast path reads (its usual case), so that enough pages take it. */
const plainLeaf: fc.Arbitrary<J> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .string({
        unit: fc.constantFrom('a', 'Z', '0', '-', ',', ' ', 'é', '😀', '.', '=', '+', '@', "'"),
        maxLength: 12,
      })
      .map((raw) => ({ raw: JSON.stringify(raw) })),
  },
  { weight: 3, arbitrary: fc.integer({ min: -1e6, max: 1e6 }).map((n) => ({ raw: String(n / 100) })) },
  { weight: 2, arbitrary: fc.constantFrom('true', 'false', 'null').map((raw) => ({ raw })) },
);

/** A record's keys: leaves, or nested objects of keys (at most two levels). */
type Template = [string, Template | 'leaf'][];
const template: fc.Arbitrary<Template> = fc.letrec<{ t: Template }>((tie) => ({
  t: fc.oneof(
    {
      weight: 9,
      arbitrary: fc.uniqueArray(
        fc.tuple(
          keyText,
          fc.oneof({ weight: 5, arbitrary: fc.constant<'leaf'>('leaf') }, { weight: 1, arbitrary: tie('t') }),
        ),
        { minLength: 1, maxLength: 7, selector: ([key]) => key, depthIdentifier: 'template' },
      ),
    },
    // Duplicate keys now and then.
    { weight: 1, arbitrary: fc.array(fc.tuple(keyText, fc.constant<'leaf'>('leaf')), { minLength: 1, maxLength: 7 }) },
  ),
})).t;

function leaves(t: Template): number {
  return t.reduce((n, [, v]) => n + (v === 'leaf' ? 1 : leaves(v)), 0);
}

function fill(t: Template, values: J[]): J {
  return { members: t.map(([key, v]) => [key, v === 'leaf' ? (values.shift() ?? { raw: 'null' }) : fill(v, values)]) };
}

/** Records that mostly share one template (the fast path's case), now and then of another. */
const records: fc.Arbitrary<J[]> = fc.tuple(template, template, fc.boolean()).chain(([a, b, plain]) =>
  fc.array(
    fc.nat({ max: 9 }).chain((pick) => {
      const t = pick === 0 && !plain ? b : a;
      return fc
        .array(plain ? plainLeaf : leaf, { minLength: leaves(t), maxLength: leaves(t) })
        .map((values) => fill(t, values));
    }),
    { minLength: 0, maxLength: 6 },
  ),
);

const extra: fc.Arbitrary<[string, J]> = fc.constantFrom<[string, J]>(
  ['"has_more"', { raw: 'false' }],
  ['"has_more"', { raw: 'true' }],
  ['"next_cursor"', { raw: '"Y3Vy"' }],
  ['"total"', { raw: '3' }],
  ['"object"', { raw: '"list"' }],
  [
    '"meta"',
    {
      members: [
        ['"total"', { raw: '2' }],
        ['"x"', { items: [{ raw: '1' }, { raw: '"]}\\""' }] }],
      ],
    },
  ],
  ['"links"', { members: [['"next"', { raw: '"/v1/orders/ord_1/codes?cursor=2"' }]] }],
  ['"note"', { raw: '"a\\"b]},["' }],
  [
    '"page"',
    {
      members: [
        ['"number"', { raw: '0' }],
        ['"size"', { raw: '1000' }],
      ],
    },
  ],
  ['"codes"', { items: [] }],
  ['"items"', { items: [{ members: [['"code"', { raw: '"B"' }]] }] }],
  ['"c\\u006fdes"', { items: [] }],
  ['"data"', { members: [['"k"', { raw: '1' }]] }],
);

const body: fc.Arbitrary<string> = fc
  .tuple(
    records,
    fc.constantFrom(...LIST, 'products'),
    fc.array(extra, { maxLength: 4 }),
    fc.nat({ max: 4 }),
    fc.nat({ max: 12 }),
    fc.array(fc.constantFrom('', '', '', '', ' ', '\n', '\t', '\r\n  '), { minLength: 1, maxLength: 16 }),
  )
  .map(([list, key, extras, at, dialect, spaces]) => {
    let i = 0;
    const ws = (): string => spaces[i++ % spaces.length] ?? '';
    const array: J = { items: list };
    const members: [string, J][] = [...extras];
    members.splice(Math.min(at, members.length), 0, [JSON.stringify(key), array]);
    switch (dialect) {
      case 0:
        return text(array, ws);
      case 1:
        return text({ members: [['"data"', { members: [['"items"', array]] }]] }, ws);
      case 2:
        return text({ members: [['"codes"', { items: [{ raw: '"A-1"' }, { raw: '"B-2"' }] }]] }, ws);
      case 3:
        return text(
          {
            members: [
              [
                '"data"',
                {
                  items: list.map((record) => ({
                    members: [
                      ['"type"', { raw: '"codes"' }],
                      ['"id"', { raw: '"7"' }],
                      ['"attributes"', record],
                    ],
                  })),
                },
              ],
            ],
          },
          ws,
        );
      default:
        return `${ws()}${text({ members }, ws)}${ws()}`;
    }
  });

/** Bytes that may be broken: cut, a byte inserted or replaced, a BOM, trailing text, invalid UTF-8. */
const pageBytes: fc.Arbitrary<Buffer> = fc
  .tuple(body, fc.nat({ max: 19 }), fc.nat(), fc.constantFrom(...'"\\,:}]{[x\u0001 9'.split('')))
  .map(([json, how, where, ch]) => {
    const bytes = Buffer.from(json, 'utf8');
    const at = bytes.length === 0 ? 0 : where % bytes.length;
    switch (how) {
      case 0:
        return bytes.subarray(0, at);
      case 1:
        return Buffer.concat([bytes.subarray(0, at), Buffer.from(ch), bytes.subarray(at)]);
      case 2: {
        const copy = Buffer.from(bytes);
        if (copy.length > 0) copy[at] = ch.charCodeAt(0);
        return copy;
      }
      case 3:
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      case 4:
        return Buffer.concat([bytes, Buffer.from(' x')]);
      case 5:
        return Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
      default:
        return bytes;
    }
  });

/** What the JSON.parse path makes of a page: its records, or undefined where it refuses the page. */
function slowRecords(bytes: Buffer): { body: unknown; items: Record<string, unknown>[] } | undefined {
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) return undefined;
  const list = extractList(parsed.value, 'codes');
  if (!list) return undefined;
  const items = list.map(codeRecord);
  if (!items.every((item) => item !== null && typeof item === 'object' && !Array.isArray(item))) return undefined;
  return { body: parsed.value, items: items as Record<string, unknown>[] };
}

function nextOf(body: unknown, last: unknown, count: number): string {
  try {
    return String(
      nextPageUrl(body, undefined, new URL('http://127.0.0.1/v1/orders/ord_1/codes?limit=1000'), last, count),
    );
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
}

describe('the export fast path', () => {
  it('writes the same bytes as the JSON.parse path, and takes no page that path refuses', async () => {
    const dir = tempDir();
    let taken = 0;
    let pagesSeen = 0;
    let run = 0;
    let escapedRuns = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(pageBytes, { minLength: 1, maxLength: 4 }), async (pages) => {
        run++;
        const scanner = new PageScanner(LIST);
        const slow = writers(dir, `s${run}`);
        // The JSON.parse path into the spool; the mixed one straight into a file-like sink where it can.
        const mixed = writers(dir, `m${run}`, true);
        const read: { items: Record<string, unknown>[]; fast?: ScannedPage }[] = [];
        for (const bytes of pages) {
          pagesSeen++;
          const reference = slowRecords(bytes);
          const fast = readRaw(bytes, (b) => scanner.scan(b), 'codes');
          if (!reference) {
            expect(fast, `taken though JSON.parse refuses it: ${bytes.toString('utf8')}`).toBeUndefined();
            continue;
          }
          if (fast) {
            taken++;
            expect(fast.page.count).toBe(reference.items.length);
            expect(JSON.stringify(fast.last)).toBe(JSON.stringify(reference.items.at(-1)));
            expect(statedTotal(fast.envelope)).toBe(statedTotal(reference.body));
            expect(nextOf(fast.envelope, fast.last, fast.page.count)).toBe(
              nextOf(reference.body, reference.items.at(-1), reference.items.length),
            );
          }
          read.push({ items: reference.items, ...(fast ? { fast: fast.page } : {}) });
        }
        for (const name of Object.keys(slow)) {
          const a = slow[name]!;
          const b = mixed[name]!;
          try {
            for (const page of read) {
              await a.writer.page(page.items);
              if (page.fast) await b.writer.raw(page.fast);
              else await b.writer.page(page.items);
            }
            await a.writer.finish();
            await b.writer.finish();
          } finally {
            await a.writer.dispose();
            await b.writer.dispose();
          }
          expect(b.sink.bytes().toString('utf8'), `${name} of ${read.length} pages`).toBe(
            a.sink.bytes().toString('utf8'),
          );
          // What each path says it escaped is what the other does (the warning after a CSV export counts it).
          expect(b.writer.escaped, name).toBe(a.writer.escaped);
          // And the digits a spreadsheet would change (the warning after a CSV export counts them too).
          expect(b.writer.numeric, name).toBe(a.writer.numeric);
          if ((b.writer.escaped ?? 0) > 0) escapedRuns++;
        }
      }),
      { numRuns: Number(process.env.FAST_RUNS ?? 400) },
    );
    // The property says nothing if the fast path never takes a page: it must take a fair share of them.
    expect(taken).toBeGreaterThan(pagesSeen / 40);
    expect(escapedRuns).toBeGreaterThan(0);
  }, 300_000);

  it('takes a page of the reference server, in any key order and spacing, and reads it as JSON.parse does', async () => {
    const record = (i: number) =>
      `{"code":"TEST-${i}","pin":"0${i}","serial":"SN-${i}","value":{"amount":2500,"currency":"USD"},"expires_at":"2027-11-23T10:57:22.996Z"}`;
    const bodies = [
      `{"object":"list","data":[${record(1)},${record(2)}],"has_more":true,"next_cursor":"Y3Vy"}`,
      `{ "has_more" : false ,\n "data" : [ { "value" : { "currency" : "USD" , "amount" : 2500 } , "code" : "=X,1" , "pin" : null } ] }`,
    ];
    const scanner = new PageScanner(LIST);
    for (const body of bodies) {
      const fast = readRaw(Buffer.from(body), (b) => scanner.scan(b), 'codes');
      expect(fast?.page.count).toBe(slowRecords(Buffer.from(body))?.items.length);
      const slow = writers(tempDir(), 's');
      const mixed = writers(tempDir(), 'm');
      for (const name of Object.keys(slow)) {
        await slow[name]!.writer.page(slowRecords(Buffer.from(body))!.items);
        await mixed[name]!.writer.raw(fast!.page);
        await slow[name]!.writer.finish();
        await mixed[name]!.writer.finish();
        expect(mixed[name]!.sink.bytes().toString()).toBe(slow[name]!.sink.bytes().toString());
        // The PINs `01` and `02` of the first page (a leading zero a spreadsheet drops), counted alike by both paths.
        expect(mixed[name]!.writer.numeric, name).toBe(slow[name]!.writer.numeric);
        if (name === 'csv') expect(mixed[name]!.writer.numeric).toBe(body === bodies[0] ? 2 : 0);
        await slow[name]!.writer.dispose();
        await mixed[name]!.writer.dispose();
      }
    }
  });

  it('writes CSV rows straight after the header of a file, and moves them to the spool when a column is added', async () => {
    const cases: Record<string, unknown>[][][] = [
      [[{ code: 'A', pin: '1' }], [{ code: 'B', pin: '2' }]],
      [[{ code: 'A', pin: '1' }], [{ code: 'B', pin: '2', extra: '=x' }], [{ code: 'C' }]],
      [[{ pin: '1' }, { pin: '2' }], [{ code: 'B', pin: '3' }]],
      [[{ code: 'A' }, { code: 'B', value: { amount: 1 } }]],
      [[]],
    ];
    for (const pages of cases) {
      const dir = tempDir();
      const plain = memorySink();
      const file = memorySink(true);
      const a = new CsvWriter(plain, { orderId: 'ord_1', raw: false, spoolPath: join(dir, 'a.tmp') });
      const b = new CsvWriter(file, { orderId: 'ord_1', raw: false, spoolPath: join(dir, 'b.tmp') });
      for (const page of pages) {
        await a.page(page);
        await b.page(page);
      }
      await a.finish();
      await b.finish();
      await a.dispose();
      await b.dispose();
      expect(file.bytes().toString(), JSON.stringify(pages)).toBe(plain.bytes().toString());
    }
  });

  it('leaves to JSON.parse what it does not read: escapes, arrays in a record, other dialects, a duplicate list', () => {
    const scanner = new PageScanner(LIST);
    for (const body of [
      '{"data":[{"code":"A\\u0042"}]}',
      '{"data":[{"code":"A","tags":["x"]}]}',
      '{"data":[{"code":"A","n":1.50}]}',
      '{"data":[{"code":"A","n":1e3}]}',
      '{"data":[{"code":"A","code":"B"}]}',
      '{"data":[{"1":"A"}]}',
      '{"codes":["A","B"]}',
      '[{"code":"A"}]',
      '{"data":{"items":[{"code":"A"}]}}',
      '{"data":[{"type":"codes","id":"1","attributes":{"code":"A"}}]}',
      '{"data":[{"code":"A"}],"data":[]}',
      '{"items":[{"code":"A"}],"data":[{"code":"B"}]}',
      '\ufeff{"data":[{"code":"A"}]}',
      '{"data":[{"code":"A"},{"pin":"B"}]}',
    ]) {
      expect(
        readRaw(Buffer.from(body), (b) => scanner.scan(b), 'codes'),
        body,
      ).toBeUndefined();
    }
  });

  it('takes no page cut short, wherever the cut falls (keys and strings are read four bytes at a time)', () => {
    const scanner = new PageScanner(LIST);
    const page =
      '{"data":[{"code":"TEST-MX43-2TGY","pin":"9972","value":{"amount":2500,"currency":"USD"},"expires_at":"2027-11-23"},{"code":"TEST-Q8N8-X2P6","pin":"1571","value":{"amount":2500,"currency":"USD"},"expires_at":"2027-11-23"}],"has_more":false}';
    expect(scanner.scan(Buffer.from(page))?.count).toBe(2);
    for (let cut = 1; cut < page.length; cut++) {
      // In a buffer of its own, so nothing past the cut can be read.
      const bytes = Buffer.from(page.slice(0, cut));
      expect(() => scanner.scan(bytes), page.slice(0, cut)).not.toThrow();
      expect(scanner.scan(bytes), page.slice(0, cut)).toBeUndefined();
    }
  });

  it('sees a control character, a backslash, a quote or a comma wherever it falls in a string (strings are read four bytes at a time)', () => {
    const scanner = new PageScanner(LIST);
    const plain = 'ABCDEFGHJKLMNPQRSTUV';
    for (let at = 0; at < plain.length; at++) {
      for (let prefix = 0; prefix < 4; prefix++) {
        // The record starts `prefix` bytes later, so the special byte lands at every offset of a word.
        const body = (value: string): Buffer => Buffer.from(`{"data":[{"code":"${'X'.repeat(prefix)}${value}"}]}`);
        for (const control of ['\x00', '\x01', '\t', '\n', '\x1f']) {
          const bad = body(plain.slice(0, at) + control + plain.slice(at));
          expect(scanner.scan(bad), JSON.stringify(bad.toString())).toBeUndefined();
        }
        // An escape is JSON.parse's to read.
        expect(scanner.scan(body(`${plain.slice(0, at)}\\\\n${plain.slice(at)}`))).toBeUndefined();
        // A comma makes the value a quoted CSV cell; a quote ends the string there.
        const comma = scanner.scan(body(`${plain.slice(0, at)},${plain.slice(at)}`));
        expect(comma?.values[0]).toBe(STRING_COMMA);
        const quoted = scanner.scan(body(`${plain.slice(0, at)}","pin":"1${plain.slice(at)}`));
        expect(quoted?.shape.leafNames).toEqual(['code', 'pin']);
        expect(quoted?.values[2]).toBe(quoted ? quoted.values[1]! + prefix + at : -1);
      }
    }
  });
  it("reads each record's keys and punctuation as one run of bytes where it is compact, and byte by byte where it is not: the same records, or none, either way", async () => {
    // The page's shape is learnt from its first record; every later one is matched against the compact bytes of each
    // key (`,"pin":`, a word at a time), and read byte by byte where they differ: whitespace at every place JSON
    // allows it, a key one byte longer, shorter or other, a unicode key, a nested object's first key (no comma).
    const compact = '{"code":"A-1","pin":"0440","ünï":"x","value":{"amount":2500,"currency":"USD"},"exp":"2027"}';
    const spaced = [
      '{ "code":"A-2","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code" :"A-3","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code": "A-4","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-5" ,"pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-6", "pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-7","pin":"1","ünï"\t:"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-8","pin":"1","ünï":"x","value":{ "amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-9","pin":"1","ünï":"x","value":{"amount":1 ,"currency":"EUR"},"exp":"2"}',
      '{"code":"A-10","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"} ,"exp":"2"}',
      '{"code":"A-11","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},\r\n"exp":"2"}',
      '{"code":"A-12","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":\n"2" }',
    ];
    const other = [
      '{"code":"B","pins":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pi":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pim":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pin":"1","üni":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pin":"1","üxï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"curXency":"EUR"},"exp":"2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exq":"2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"}"exp":"2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp"="2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{,"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B" "pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"exp":"2","x":"3"}',
      '{"code":"B","pin":"1","ünï":"x","value":{"amount":1,"currency":"EUR"},"ex',
    ];
    const scanner = new PageScanner(LIST);
    for (const record of [...spaced, compact]) {
      const body = Buffer.from(`{"data":[${compact},${record},${compact}]}`);
      const page = scanner.scan(body);
      expect(page?.count, record).toBe(3);
      // Only a record without whitespace is its own compact JSON.
      expect(
        [...page!.records.subarray(0, 9)].filter((_, i) => i % 3 === 2),
        record,
      ).toEqual([1, record === compact ? 1 : 0, 1]);
      const slow = writers(tempDir(), 's');
      const fast = writers(tempDir(), 'f');
      for (const name of Object.keys(slow)) {
        await slow[name]!.writer.page(slowRecords(body)!.items);
        await fast[name]!.writer.raw(page!);
        await slow[name]!.writer.finish();
        await fast[name]!.writer.finish();
        expect(fast[name]!.sink.bytes().toString(), `${name} ${record}`).toBe(slow[name]!.sink.bytes().toString());
        await slow[name]!.writer.dispose();
        await fast[name]!.writer.dispose();
      }
    }
    // A record of other keys or broken punctuation is not of the page's shape: the whole page goes to JSON.parse.
    for (const record of other)
      expect(scanner.scan(Buffer.from(`{"data":[${compact},${record}]}`)), record).toBeUndefined();
  });
  it('gives each page arrays of its own: two pages held at once (the one written, the one read ahead) never share them, across pages of every size', async () => {
    const scanner = new PageScanner(LIST);
    const body = (from: number, count: number): Buffer =>
      Buffer.from(
        JSON.stringify({
          data: Array.from({ length: count }, (_, i) => ({ code: `C-${from + i}`, pin: `${i % 7}` })),
        }),
      );
    const csvOf = async (page: ScannedPage): Promise<string> => {
      const sink = memorySink();
      const writer = new CsvWriter(sink, { orderId: 'ord_1', raw: false, spoolPath: join(tempDir(), 'a.tmp') });
      await writer.raw(page);
      await writer.finish();
      await writer.dispose();
      return sink.bytes().toString();
    };
    const expected = (from: number, count: number): string =>
      `order_id,code,pin\r\n${Array.from({ length: count }, (_, i) => `ord_1,C-${from + i},${i % 7}\r\n`).join('')}`;
    // Sizes that grow the scratch arrays past what released ones hold, and shrink again.
    const sizes = [3, 1000, 2500, 1, 1000, 4000, 2, 2, 1500];
    let held: { page: ScannedPage; from: number; count: number } | undefined;
    let from = 0;
    for (const count of sizes) {
      const page = scanner.scan(body(from, count))!;
      expect(page.count).toBe(count);
      if (held) {
        expect(page.records).not.toBe(held.page.records);
        expect(page.values).not.toBe(held.page.values);
        // The page read ahead left the held one as it was.
        expect(await csvOf(held.page)).toBe(expected(held.from, held.count));
        scanner.releasePage(held.page);
      }
      held = { page, from, count };
      from += count;
    }
    expect(await csvOf(held!.page)).toBe(expected(held!.from, held!.count));
  });
});
