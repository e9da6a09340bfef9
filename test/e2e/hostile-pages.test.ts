// Pages that never end or repeat a code (issue 29): a service that always names a next page, with a fresh
// cursor each time, keeps no export fetching (exit 5 as soon as the codes outnumber the order's quantity), and
// a code sent twice in one order's pages (the count still matching) is a server fault, never codes handed out.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, runCli, tempDir } from '../helpers/e2e.js';
import { jsonReply, startHostileServer, type HostileServer } from '../helpers/hostile-server.js';

const notFound = (path: string) => jsonReply({ error: { code: 'not_found', message: path } }, 404);

function filesIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('hostile pages of codes', () => {
  let hostile: HostileServer;
  beforeAll(async () => {
    hostile = await startHostileServer(() => ({ kind: 'reset' }));
  });
  afterAll(() => hostile.close());
  const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };

  // Records as objects go through the fast page reader (scan.ts), plain strings through JSON.parse: both paths.
  const shapes = [
    { name: 'records', code: (n: number) => ({ code: `C-${n}`, pin: `0${n}` }) },
    { name: 'plain strings', code: (n: number) => `C-${n}` },
  ];

  it.each(shapes)(
    'a next page named forever ($name): exit 5 once the codes outnumber the order, no file',
    async ({ code }) => {
      hostile.requests.length = 0;
      let n = 0;
      hostile.plan = (request) => {
        if (request.path === '/v1/orders/ord_endless')
          return jsonReply({ id: 'ord_endless', status: 'completed', quantity: 3 });
        if (request.path.startsWith('/v1/orders/ord_endless/codes')) {
          const page = [code(++n), code(++n), code(++n)];
          return jsonReply({ object: 'list', data: page, has_more: true, next_cursor: `cur_${n}` });
        }
        return notFound(request.path);
      };
      const dir = tempDir();
      for (const out of [join(dir, 'codes.csv'), '-']) {
        const result = await runCli(['codes', 'get', 'ord_endless', '--wait', '--out', out, '--format', 'csv'], {
          baseUrl: hostile.url,
          env,
        });
        expect(result.code, result.stderr).toBe(5);
        expect(result.stderr).toContain('the order is for 3 codes but 6 arrived, more than that');
      }
      expect(filesIn(dir)).toEqual([]);
      // Two pages each time (and at most one asked ahead), never hundreds.
      expect(hostile.requests.filter((r) => r.path.includes('/codes')).length).toBeLessThanOrEqual(6);
    },
  );

  it.each(shapes)(
    'a page that repeats a code in place of another ($name): exit 5 duplicate_code, no file',
    async ({ code }) => {
      hostile.plan = (request) => {
        if (request.path === '/v1/orders/ord_dup')
          return jsonReply({ id: 'ord_dup', status: 'completed', quantity: 4 });
        if (request.path.startsWith('/v1/orders/ord_dup/codes') && !request.path.includes('cursor=')) {
          return jsonReply({ object: 'list', data: [code(1), code(2)], has_more: true, next_cursor: 'cur_2' });
        }
        if (request.path.startsWith('/v1/orders/ord_dup/codes'))
          return jsonReply({ object: 'list', data: [code(3), code(1)], has_more: false, next_cursor: null });
        return notFound(request.path);
      };
      const dir = tempDir();
      for (const format of ['csv', 'json', 'jsonl', 'xlsx']) {
        const result = await runCli(
          ['codes', 'get', 'ord_dup', '--wait', '--out', join(dir, `codes.${format}`), '--json'],
          { baseUrl: hostile.url, env },
        );
        expect(result.code, result.stderr).toBe(5);
        expect(JSON.parse(result.stderr)).toMatchObject({ error: { code: 'duplicate_code', exitCode: 5 } });
        expect(result.stderr).toContain('code number 4 repeats a code sent earlier in the same order');
        // The code itself is cash: never in an error line.
        expect(result.stderr).not.toContain('C-1');
      }
      const stdout = await runCli(['codes', 'get', 'ord_dup', '--wait', '--json'], { baseUrl: hostile.url, env });
      expect(stdout.code, stdout.stderr).toBe(5);
      // Standard output streams (no atomicity): the page before the fault went out, the faulty page did not, and the document is left unclosed.
      expect(stdout.stdout).not.toContain('C-3');
      expect(() => JSON.parse(stdout.stdout) as unknown).toThrow();
      expect(filesIn(dir)).toEqual([]);
    },
  );
});
