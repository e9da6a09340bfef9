// The full collection a large export asks for once, to keep its young generation small (src/export/write.ts
// keepYoungGenerationSmall), is asked for only where the export is large: it cost a one-page export ~35 ms of its
// ~130 ms of CPU. V8's --trace-gc names such a collection "testing" (a gc() call) on every supported line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, placedOnServer, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { jsonReply, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });

/** `codes get <order> --out <file>` with V8's --trace-gc: the collections it made (its standard output) and the file's rows. */
async function exportTraced(orderId: string, env: NodeJS.ProcessEnv = {}): Promise<{ asked: number; rows: number }> {
  const out = join(tempDir(), 'codes.csv');
  const run = await runCli(['codes', 'get', orderId, '--out', out], {
    configDir: served.configDir,
    nodeArgs: ['--trace-gc'],
    env,
  });
  expect(run.stderr).not.toMatch(/error:/);
  expect(run.code).toBe(0);
  // Every collection is one trace line; a scavenge is no collection this asks about.
  expect(run.stdout).toMatch(/Scavenge/);
  const asked = run.stdout.split('\n').filter((line) => /Mark-Compact.*\btesting\b/.test(line)).length;
  const rows = readFileSync(out, 'utf8').trimEnd().split('\n').length - 1;
  return { asked, rows };
}

describe('the collection that keeps a large export small in memory', () => {
  it('is not asked for by an export of an order placed here, its few codes known', async () => {
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--wait', '--json'],
      {
        configDir: served.configDir,
      },
    );
    expect(placed.code).toBe(0);
    const id = (JSON.parse(placed.stdout) as { id: string }).id;
    expect(await exportTraced(id)).toEqual({ asked: 0, rows: 3 });
  });

  it('is not asked for by an export of an order placed elsewhere, its quantity read from the API', async () => {
    const id = await placedOnServer(served.server, 'amazon-us-25', 40);
    expect(await exportTraced(id)).toEqual({ asked: 0, rows: 40 });
  });

  it('is not asked for by an export of three pages (2,500 codes), below the 10,000 that make one large', async () => {
    const id = await placedOnServer(served.server, 'amazon-us-25', 2_500);
    expect(await exportTraced(id)).toEqual({ asked: 0, rows: 2_500 });
  });

  it('is asked for by an export of an order placed here whose quantity makes it large (10,000 codes)', async () => {
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '10000', '--wait', '--json'],
      { configDir: served.configDir },
    );
    expect(placed.code).toBe(0);
    const { asked, rows } = await exportTraced((JSON.parse(placed.stdout) as { id: string }).id);
    expect(rows).toBe(10_000);
    expect(asked).toBeGreaterThan(0);
  });

  describe('an order whose quantity the API does not state (a service of its own: no quantity in the order)', () => {
    let api: HostileServer;
    beforeAll(async () => {
      api = await startHostileServer(() => ({ kind: 'reset' }));
    });
    afterAll(() => api.close());

    /** `pages` pages of 1,000 codes, by cursor, and an order that says no quantity. */
    const serve = (pages: number): void => {
      const page = (n: number) =>
        Array.from({ length: 1_000 }, (_, i) => ({ code: `CODE-${n}-${i}`, pin: '1234', serial: `S-${n}-${i}` }));
      api.plan = (request) => {
        if (request.path === '/v1/orders/ord_unsized') return jsonReply({ id: 'ord_unsized', status: 'completed' });
        const at = /^\/v1\/orders\/ord_unsized\/codes\?/.test(request.path)
          ? Number(/cursor=p(\d+)/.exec(request.path)?.[1] ?? '1')
          : 0;
        if (at === 0) return { kind: 'reply', status: 404, body: '' };
        return jsonReply({
          data: page(at),
          has_more: at < pages,
          ...(at < pages ? { next_cursor: `p${at + 1}` } : {}),
        });
      };
    };
    const unsized = (): Promise<{ asked: number; rows: number }> =>
      exportTraced('ord_unsized', { GIFTCODES_BASE_URL: api.url, GIFTCODES_API_KEY: DEMO_KEYS.test });

    it('is not asked for by its export of one page', async () => {
      serve(1);
      expect(await unsized()).toEqual({ asked: 0, rows: 1_000 });
    });

    it('is asked for, from its second page, by its export of more', async () => {
      serve(3);
      const { asked, rows } = await unsized();
      expect(rows).toBe(3_000);
      expect(asked).toBeGreaterThan(0);
    });
  });
});
