// What the journal stores is exactly what the user gave and the server answered: a profile, a product id, an
// --out path and an idempotency key that hold key-shaped text (`misc_test_…`, `…sc_test_…`) are stored and
// resent as they are, so the run after a kill resumes the same order (one charge on the server's ledger) and
// writes its codes where they were asked for.
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { storedRecords } from '../helpers/journal.js';
import { DEMO_KEYS, ledger, runCli, servedApi, tempDir, seedFile } from '../helpers/e2e.js';

const PRODUCT = 'misc_test_pack';
const PROFILE = 'misc_test_shop';

function seed(): string {
  return seedFile({
    products: [{ id: PRODUCT, name: 'Misc test pack', brand: 'Misc', price: 500, currency: 'USD', supply: 1_000_000 }],
  });
}

describe('stored byte for byte: key-shaped text in a profile, product, path and idempotency key', () => {
  const served = servedApi(() => ['--seed', seed(), '--fulfil-after', '50']);

  async function setup(): Promise<{ configDir: string; out: string }> {
    const configDir = tempDir();
    const login = await runCli(['--profile', PROFILE, 'login', '--api-key-stdin', '--base-url', served.url], {
      configDir,
      input: DEMO_KEYS.test,
    });
    expect(login.code, login.stderr).toBe(0);
    const dir = join(tempDir(), 'misc_test_out');
    mkdirSync(dir);
    return { configDir, out: join(dir, 'codes.json') };
  }

  const place = (out: string, key: string, quantity: number): string[] => [
    '--profile',
    PROFILE,
    'order',
    'place',
    '--product',
    PRODUCT,
    '--quantity',
    String(quantity),
    '--out',
    out,
    '--idempotency-key',
    key,
    '--interval',
    '0.05',
  ];

  const charged = async (key: string): Promise<Record<string, unknown>[]> =>
    (await ledger(served.server)).orders.filter((o) => o.idempotency_key === key);

  it(
    'the same command after a kill at request.sent resumes the one order and writes its codes to the path given',
    { timeout: 300_000 },
    async () => {
      const { configDir, out } = await setup();
      const key = 'misc_test_key-1';
      const killed = await runCli(place(out, key, 3), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      // Stored as given, not masked. (The killed run may leave its lock behind, a directory: taken over at once by the next.)
      const stored = readdirSync(join(configDir, 'journal'))
        .filter((name) => name.endsWith('.json') || name.endsWith('.log'))
        .map((name) => readFileSync(join(configDir, 'journal', name), 'utf8'))
        .join('\n');
      for (const text of [PROFILE, PRODUCT, out, key]) expect(stored).toContain(JSON.stringify(text).slice(1, -1));
      const again = await runCli(place(out, key, 3), { configDir });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('resuming');
      expect(await charged(key)).toHaveLength(1);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(3);
      expect(
        readdirSync(join(configDir, 'journal')).filter((name) => name.endsWith('.json') || name.endsWith('.log')),
      ).toEqual([]);
      // The record keeps the identifiers whole too.
      const [record] = storedRecords(join(configDir, 'history'));
      expect(record).toMatchObject({ key, profile: PROFILE, productId: PRODUCT, out, outcome: 'delivered' });
    },
  );

  it(
    'order resume --all finishes the order after a kill at request.sent (a key giftcodes made)',
    { timeout: 300_000 },
    async () => {
      const { configDir, out } = await setup();
      const args = place(out, 'unused', 2).slice(0, -4).concat(['--interval', '0.05']);
      const killed = await runCli(args, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const resumed = await runCli(['order', 'resume', '--all'], { configDir });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(
        (await ledger(served.server)).orders.filter((o) => o.product_id === PRODUCT && o.quantity === 2),
      ).toHaveLength(1);
      expect(existsSync(out)).toBe(true);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveLength(2);
      // Printed, the names are not masked either: they do not start with a key's prefix.
      expect(resumed.stdout + resumed.stderr).not.toContain('sc_test_…');
    },
  );

  it(
    'a 422 idempotency_key_reused answering the resent request keeps the intent pending: exit 4 and what to check',
    { timeout: 300_000 },
    async () => {
      const { configDir, out } = await setup();
      const key = 'misc_test_key-3';
      // The server already holds an order under the key, with another body.
      const held = await fetch(`${served.url}/v1/orders`, {
        method: 'POST',
        headers: { 'X-API-Key': DEMO_KEYS.test, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify({ product_id: PRODUCT, quantity: 1 }),
      });
      expect(held.status).toBe(201);
      // Killed once `sending` is on disk: the next run cannot know whether the POST went.
      const killed = await runCli(place(out, key, 4), {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'sending.written=kill' },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const again = await runCli(place(out, key, 4), { configDir });
      expect(again.code, again.stderr).toBe(4);
      expect(again.stderr).toContain('idempotency_key_reused');
      expect(again.stderr).toContain('kept pending');
      expect(again.stderr).toMatch(new RegExp(`^(\\S+ )?hint: .*giftcodes (--profile \\S+ )?order resume ${key}`, 'm'));
      const pending = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as {
        key: string;
      }[];
      expect(pending.map((p) => p.key)).toEqual([key]);
      expect(storedRecords(join(configDir, 'history'))).toEqual([]);
      expect(await charged(key)).toHaveLength(1);
    },
  );
});
