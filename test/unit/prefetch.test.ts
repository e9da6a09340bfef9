import { describe, expect, it } from 'vitest';
import { prefetched } from '../../src/export/prefetch.js';

/** A source that records when each item is asked for, and whether it was closed. */
function source(items: number[], failAt?: number) {
  const log: string[] = [];
  async function* gen(): AsyncGenerator<number> {
    try {
      for (const [i, item] of items.entries()) {
        log.push(`fetch ${i}`);
        await new Promise((r) => setImmediate(r));
        if (i === failAt) throw new Error(`page ${i} failed`);
        yield item;
      }
    } finally {
      log.push('closed');
    }
  }
  return { log, iterable: gen() };
}

describe('prefetched', () => {
  it('yields every item in order and asks for the next one before the current is consumed', async () => {
    const s = source([10, 20, 30]);
    const seen: number[] = [];
    for await (const item of prefetched(s.iterable)) {
      // While the consumer holds item n, item n+1 has been asked for, and nothing beyond it.
      seen.push(item);
      s.log.push(`got ${item}`);
    }
    expect(seen).toEqual([10, 20, 30]);
    // Asking ahead past the last item finds the end: the source is done before the last item is consumed.
    expect(s.log).toEqual(['fetch 0', 'fetch 1', 'got 10', 'fetch 2', 'got 20', 'closed', 'got 30']);
  });

  it('a failure of a later page reaches the consumer after the pages before it', async () => {
    const s = source([1, 2, 3], 2);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of prefetched(s.iterable)) seen.push(item);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1, 2]);
  });

  it('a consumer that stops early closes the source, and a failure fetched ahead is not unhandled', async () => {
    const s = source([1, 2, 3], 1);
    for await (const item of prefetched(s.iterable)) {
      expect(item).toBe(1);
      break;
    }
    expect(s.log.at(-1)).toBe('closed');
    expect(s.log).not.toContain('fetch 2');
  });

  it('an empty source yields nothing', async () => {
    const s = source([]);
    const seen: number[] = [];
    for await (const item of prefetched(s.iterable)) seen.push(item);
    expect(seen).toEqual([]);
    expect(s.log).toEqual(['closed']);
  });
});
