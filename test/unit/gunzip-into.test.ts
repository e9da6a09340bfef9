// A gzipped page decoded straight into the export's buffer by one zlib handle kept across pages
// (src/api/transport.ts gunzipInto): the bytes gunzipSync would give, in the buffer given; and, wherever that
// path cannot be sure (a corrupt or cut body, more bytes than the room, bytes after the end, a Node without the
// handle), undefined, so that the caller decodes the body with gunzipSync and gets its result or its error.
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gunzipInto, gzipOutputSize } from '../../src/api/transport.js';

const pageOf = (seed: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      data: Array.from({ length: 500 + seed * 37 }, (_, i) => ({
        code: `C-${seed}-${(i * 7919).toString(36)}`,
        pin: i,
      })),
    }),
  );
const LIMIT = 8 * 1024 * 1024;

/** The room bodyBytes gives a body: as its trailer states, and one byte more. */
const roomFor = (gz: Buffer): Buffer => Buffer.alloc(gzipOutputSize(gz, LIMIT), 0xee);

describe('gunzipInto', () => {
  it('decodes page after page into the buffer given, each the bytes gunzipSync gives', async () => {
    for (let seed = 0; seed < 6; seed++) {
      const page = pageOf(seed);
      const gz = gzipSync(page, { level: seed % 2 ? 9 : 1 });
      const out = roomFor(gz);
      const length = await gunzipInto(gz, out);
      expect(length).toBe(page.length);
      expect(out.subarray(0, length).equals(page)).toBe(true);
      expect(out.subarray(0, length).equals(gunzipSync(gz))).toBe(true);
    }
  });

  it('a corrupt or cut body is left to gunzipSync (undefined), and the next page decodes as before', async () => {
    const page = pageOf(1);
    const gz = gzipSync(page);
    const corrupt = Buffer.from(gz);
    corrupt[20] = corrupt[20]! ^ 0xff;
    const broken = [corrupt, gz.subarray(0, -12), gz.subarray(0, 30), Buffer.from('not gzip at all')];
    for (const body of broken) {
      expect(await gunzipInto(body, Buffer.alloc(page.length + 1))).toBeUndefined();
      // gunzipSync has its own error for each: what the caller then throws.
      expect(() => gunzipSync(body)).toThrow();
      const out = roomFor(gz);
      expect(await gunzipInto(gz, out)).toBe(page.length);
      expect(out.subarray(0, page.length).equals(page)).toBe(true);
    }
  });

  it('a trailer that understates or overstates the bytes is left to gunzipSync', async () => {
    const page = pageOf(2);
    for (const stated of [0, page.length - 1, page.length + 1]) {
      const lying = Buffer.from(gzipSync(page));
      lying.writeUInt32LE(stated, lying.length - 4);
      expect(await gunzipInto(lying, roomFor(lying)), `stated ${stated}`).toBeUndefined();
    }
  });

  it('more bytes than the room holds is undefined, not a page cut at the room', async () => {
    const page = pageOf(3);
    const gz = gzipSync(page);
    expect(await gunzipInto(gz, Buffer.alloc(page.length))).toBeUndefined();
    expect(await gunzipInto(gz, Buffer.alloc(100))).toBeUndefined();
    // The room exactly: one byte more than the page, so that zlib shows it has finished.
    expect(await gunzipInto(gz, Buffer.alloc(page.length + 1))).toBe(page.length);
  });

  it('several gzip members: all of them where the room holds them, else left to gunzipSync', async () => {
    const page = pageOf(4);
    const half = page.length >> 1;
    const members = Buffer.concat([gzipSync(page.subarray(0, half)), gzipSync(page.subarray(half))]);
    // The trailer states the last member's size only: that room is too small.
    expect(await gunzipInto(members, roomFor(members))).toBeUndefined();
    const out = Buffer.alloc(page.length + 1);
    expect(await gunzipInto(members, out)).toBe(page.length);
    expect(out.subarray(0, page.length).equals(page)).toBe(true);
  });

  it('bytes after the gzip’s end are left to gunzipSync', async () => {
    const page = pageOf(5);
    const trailing = Buffer.concat([gzipSync(page), Buffer.alloc(8)]);
    expect(await gunzipInto(trailing, Buffer.alloc(page.length + 1))).toBeUndefined();
  });
});

/** transport.ts afresh, its node:zlib's createGunzip replaced by what `createGunzip` makes of the real one. */
async function transportWith(
  createGunzip: (real: typeof import('node:zlib').createGunzip) => unknown,
): Promise<typeof import('../../src/api/transport.js')> {
  vi.resetModules();
  vi.doMock('node:zlib', async (importOriginal) => {
    const zlib = await importOriginal<typeof import('node:zlib')>();
    const made = createGunzip(zlib.createGunzip.bind(zlib));
    return { ...zlib, default: { ...zlib, createGunzip: made }, createGunzip: made };
  });
  return import('../../src/api/transport.js');
}

describe('gunzipInto’s one handle', () => {
  afterEach(() => {
    vi.doUnmock('node:zlib');
    vi.resetModules();
  });

  it('is made once for every page, and made again only after a page zlib refused', async () => {
    const made = vi.fn();
    const fresh = await transportWith((real) => (...args: Parameters<typeof real>) => {
      made();
      return real(...args);
    });
    const page = pageOf(1);
    const gz = gzipSync(page);
    for (let i = 0; i < 3; i++) expect(await fresh.gunzipInto(gz, roomFor(gz))).toBe(page.length);
    expect(made).toHaveBeenCalledTimes(1);
    expect(await fresh.gunzipInto(gz.subarray(0, -12), roomFor(gz))).toBeUndefined();
    for (let i = 0; i < 2; i++) expect(await fresh.gunzipInto(gz, roomFor(gz))).toBe(page.length);
    expect(made).toHaveBeenCalledTimes(2);
  });

  // Each shape lacks one thing only, and its write state says "5 bytes of room left, all input used": a check
  // skipped would make the page decoded (a length), or throw.
  const noop = (): void => {};
  const handle = { writeSync: noop, reset: noop, close: noop };
  it.each([
    ['no handle', { _writeState: Uint32Array.of(5, 0) }],
    ['a handle without writeSync', { _handle: { ...handle, writeSync: undefined }, _writeState: Uint32Array.of(5, 0) }],
    ['a handle without reset', { _handle: { ...handle, reset: undefined }, _writeState: Uint32Array.of(5, 0) }],
    ['a handle without close', { _handle: { ...handle, close: undefined }, _writeState: Uint32Array.of(5, 0) }],
    ['a write state of another kind', { _handle: handle, _writeState: [5, 0] }],
  ])(
    'on a Node whose zlib has %s: undefined for every body (gunzipSync decodes each), never thrown',
    async (_, shape) => {
      const fresh = await transportWith(() => () => shape);
      const gz = gzipSync(pageOf(0));
      for (let i = 0; i < 2; i++) expect(await fresh.gunzipInto(gz, Buffer.alloc(LIMIT))).toBeUndefined();
    },
  );
});
