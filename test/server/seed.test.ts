import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { defaultServerOptions, startServer } from '../../src/server/index.js';
import { checkServerOptions } from '../../src/server/options.js';
import { defaultSeed, parseSeed } from '../../src/server/seed.js';

describe('seed', () => {
  test('the default seed has two resellers and 12 products, all with valid keys', () => {
    const seed = defaultSeed();
    expect(seed.products).toHaveLength(12);
    expect(parseSeed(seed)).toEqual(seed);
  });

  test('a seed may leave products or resellers out and gets the defaults; a bare wallet number is USD', () => {
    const seed = parseSeed({ resellers: [{ id: 'rs_x', keys: { test: ['sc_test_xxxxxxxxxxxxxxxx'] }, wallet: 100 }] });
    expect(seed.products).toEqual(defaultSeed().products);
    expect(seed.resellers).toEqual([
      { id: 'rs_x', keys: { test: ['sc_test_xxxxxxxxxxxxxxxx'], live: [] }, wallet: { USD: 100 }, supply: {} },
    ]);
  });

  test.each([
    ['not an object', [], /must be an object/],
    [
      'a key in the wrong environment',
      { resellers: [{ id: 'r', keys: { test: ['sc_live_xxxxxxxxxxxxxxxx'] } }] },
      /keys\.test\[0\]/,
    ],
    ['a short key', { resellers: [{ id: 'r', keys: { live: ['sc_live_x'] } }] }, /keys\.live\[0\]/],
    [
      'a key used twice',
      {
        resellers: [
          { id: 'a', keys: { test: ['sc_test_xxxxxxxxxxxxxxxx'] } },
          { id: 'b', keys: { test: ['sc_test_xxxxxxxxxxxxxxxx'] } },
        ],
      },
      /used twice/,
    ],
    ['a negative price', { products: [{ id: 'p', name: 'n', brand: 'b', price: -1, currency: 'USD' }] }, /price/],
    ['a bad currency', { products: [{ id: 'p', name: 'n', brand: 'b', price: 1, currency: 'dollars' }] }, /currency/],
    [
      'a duplicate product',
      {
        products: [
          { id: 'p', name: 'n', brand: 'b', price: 1, currency: 'USD' },
          { id: 'p', name: 'n', brand: 'b', price: 1, currency: 'USD' },
        ],
      },
      /twice/,
    ],
    ['a bad wallet', { resellers: [{ id: 'r', keys: {}, wallet: { USD: 1.5 } }] }, /wallet\.USD/],
  ])('%s is refused with a message naming the field', (_what, raw, message) => {
    expect(() => parseSeed(raw)).toThrow(message);
  });

  test('startServer refuses a missing or broken seed file, and bad options', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'giftcodes-seed-'));
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"resellers": [');
    await expect(startServer({ ...defaultServerOptions(), port: 0, seedFile: join(dir, 'none.json') })).rejects.toThrow(
      /cannot read seed file/,
    );
    await expect(startServer({ ...defaultServerOptions(), port: 0, seedFile: broken })).rejects.toThrow(
      /not valid JSON/,
    );
    expect(() => checkServerOptions({ ...defaultServerOptions(), failRate: 2 })).toThrow(/fail rate/);
    expect(() => checkServerOptions({ ...defaultServerOptions(), webhookUrl: 'ftp://x' })).toThrow(/http or https/);
    expect(() => checkServerOptions({ ...defaultServerOptions(), port: 70000 })).toThrow(/port/);
  });
});
