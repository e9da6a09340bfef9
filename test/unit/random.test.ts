// random.ts: random bytes without node:crypto where /dev/urandom is (temporary names, a lock's token, the code
// tally's seeds), node:crypto itself on first use only.
import { describe, expect, it } from 'vitest';
import { nodeCrypto, randomBytes } from '../../src/random.js';

describe('randomBytes', () => {
  it('gives as many bytes as asked, different every call', () => {
    const seen = new Set<string>();
    for (const size of [0, 1, 6, 8, 32, 4096]) {
      const bytes = randomBytes(size);
      expect(Buffer.isBuffer(bytes)).toBe(true);
      expect(bytes.length).toBe(size);
      if (size >= 6) seen.add(bytes.toString('hex'));
    }
    expect(seen.size).toBe(4);
  });

  it('is not all zeros, nor one value repeated (a read that filled nothing)', () => {
    const bytes = randomBytes(4096);
    expect(new Set(bytes).size).toBeGreaterThan(200);
  });

  it('nodeCrypto is node:crypto', async () => {
    expect(nodeCrypto()).toBe(await import('node:crypto').then((m) => m.default));
  });
});
