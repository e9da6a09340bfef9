// Issue 16: a plan's rows share one rate-limit budget. Against `serve --rate-limit 2` (2 requests a second,
// 429 with Retry-After: 1 beyond), a 429 on one row holds the others and they resume one at a time, so the
// server sees fewer 429s than rows; rows that each kept their own Retry-After met the limit again together
// (about four 429s a second at --concurrency 4, over 25 for this plan). Counted on the server's --log lines.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_KEYS, ledger, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const ROWS = 16;

describe('order place --plan under --rate-limit', () => {
  const served = servedApi(['--rate-limit', '2', '--log']);
  let log = '';
  beforeAll(async () => {
    // One line per request, on stderr.
    served.server.proc.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
  });

  it('a 429 on one row holds every row: all rows ordered, fewer 429s than rows', async () => {
    const plan = join(tempDir(), 'night.csv');
    writeFileSync(plan, Array.from({ length: ROWS }, () => 'amazon-us-10,1').join('\n'));
    const result = await runCli(['order', 'place', '--plan', plan, '--json'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.test },
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { order?: { id: string } }[];
    expect(rows.filter((r) => r.order?.id)).toHaveLength(ROWS);
    expect((await ledger(served.server)).orders).toHaveLength(ROWS);
    const answers = log.split('\n').filter((line) => line.startsWith('POST /v1/orders '));
    const limited = answers.filter((line) => / 429 /.test(line)).length;
    expect(answers.filter((line) => / 201 /.test(line))).toHaveLength(ROWS);
    // The plan did meet the limit (else this proves nothing), and far less often than once per row.
    expect(limited).toBeGreaterThan(0);
    expect(limited, answers.join('\n')).toBeLessThan(ROWS);
  }, 300_000);
});
