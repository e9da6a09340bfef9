// The room a gzipped page is decoded into (src/api/transport.ts gzipOutputSize): sized by the gzip trailer, so
// zlib makes one buffer a page instead of 16 KiB pieces joined at the end, never beyond the limit; a trailer that does
// not match the bytes is a corrupt body, as it always was.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeWhole, freeDecoded, gzipOutputSize } from '../../src/api/transport.js';

const page = Buffer.from(
  JSON.stringify({
    data: Array.from({ length: 1000 }, (_, i) => ({
      code: `CODE-${i.toString(36).padStart(12, 'x')}`,
      pin: String(i),
    })),
  }),
);
const LIMIT = 8 * 1024 * 1024;

/** The same gzip with its trailer's size field replaced. */
function withStatedSize(gz: Buffer, size: number): Buffer {
  const copy = Buffer.from(gz);
  copy.writeUInt32LE(size >>> 0, copy.length - 4);
  return copy;
}

describe('a gzipped page is decoded into one buffer of the size its trailer states', () => {
  it('one buffer, not 16 KiB pieces joined: the decoded bytes and their memory are of the stated size', async () => {
    const gz = gzipSync(page);
    expect(gzipOutputSize(gz, LIMIT)).toBe(page.length + 1);
    const decoded = await decodeWhole(gz, ['gzip'], LIMIT);
    expect(decoded?.equals(page)).toBe(true);
    // zlib's own room, sliced: before, Buffer.concat of 16 KiB pieces made a buffer of exactly the page's length.
    expect(decoded?.buffer.byteLength).toBe(page.length + 1);
  });

  it('a trailer that does not match the bytes is a corrupt body, zlib’s error, as before', async () => {
    for (const stated of [0, 1, page.length - 1, page.length + 1, 0xffffffff]) {
      await expect(decodeWhole(withStatedSize(gzipSync(page), stated), ['gzip'], LIMIT)).rejects.toMatchObject({
        code: 'Z_DATA_ERROR',
      });
    }
  });

  it('several gzip members (the trailer states the last one): all of them, in order', async () => {
    const half = page.length >> 1;
    const body = Buffer.concat([gzipSync(page.subarray(0, half)), gzipSync(page.subarray(half))]);
    expect(gzipOutputSize(body, LIMIT)).toBe(page.length - half + 1);
    expect((await decodeWhole(body, ['gzip'], LIMIT))?.equals(page)).toBe(true);
  });

  it('the room a trailer asks for is held to the limit and to what deflate can make of the bytes sent', async () => {
    const gz = withStatedSize(gzipSync(page), 0xffffffff);
    expect(gzipOutputSize(gz, LIMIT)).toBe(Math.min(LIMIT + 1, gz.length * 1032 + 64));
    expect(gzipOutputSize(gz, 1000)).toBe(1001);
    expect(gzipOutputSize(gzipSync(page), 1000)).toBe(1001);
    // Decoded bytes beyond the limit: undefined, the caller's "too large", as before.
    expect(await decodeWhole(gzipSync(page), ['gzip'], 1000)).toBeUndefined();
  });

  it('a body too short to hold a trailer gets zlib’s least room (and zlib’s own error)', async () => {
    expect(gzipOutputSize(Buffer.from([0x1f, 0x8b]), LIMIT)).toBe(64);
    // 18 bytes (a header and a trailer) hold a trailer to read: the room it states.
    expect(gzipOutputSize(withStatedSize(Buffer.alloc(18), 1000), LIMIT)).toBe(1001);
    expect(gzipOutputSize(withStatedSize(Buffer.alloc(17), 1000), LIMIT)).toBe(64);
    await expect(decodeWhole(Buffer.from([0x1f, 0x8b, 8, 0]), ['gzip'], LIMIT)).rejects.toMatchObject({
      code: expect.stringMatching(/^Z_/),
    });
  });
});

describe('freeDecoded: a decoded page’s memory given back once its bytes are copied out', () => {
  it('zlib’s own room for the page is detached (its memory freed at once)', async () => {
    const decoded = (await decodeWhole(gzipSync(page), ['gzip'], LIMIT))!;
    const copy = Buffer.from(decoded);
    freeDecoded(decoded);
    expect((decoded.buffer as ArrayBuffer & { detached: boolean }).detached).toBe(true);
    expect(copy.equals(page)).toBe(true);
  });

  it('never a buffer that may share its memory: Node’s pool, a joined body, a slice', () => {
    const pooled = Buffer.from('a small buffer from the pool');
    const neighbour = Buffer.from('its neighbour in the pool');
    const joined = Buffer.concat([Buffer.alloc(5000, 1), Buffer.alloc(5000, 2)]);
    const whole = Buffer.alloc(10_001, 3);
    for (const buffer of [pooled, joined, whole.subarray(1), whole.subarray(0, 9_999)]) {
      freeDecoded(buffer);
      expect((buffer.buffer as ArrayBuffer & { detached: boolean }).detached).toBe(false);
    }
    expect(neighbour.toString()).toBe('its neighbour in the pool');
  });
});
