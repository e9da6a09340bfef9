// The full collection a large export asks for once, to keep its young generation small (src/export/write.ts
// keepYoungGenerationSmall), is asked for only where the export is large: it cost a one-page export ~35 ms of its
// ~130 ms of CPU. V8's --trace-gc names such a collection "testing" (a gc() call) on every supported line.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, placedOnServer, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });

/** `codes get <order> --out <file>` with V8's --trace-gc: the collections it made (its standard output) and the file's rows. */
function exportTraced(orderId: string): { asked: number; rows: number } {
  const out = join(tempDir(), 'codes.csv');
  const run = spawnSync(process.execPath, ['--trace-gc', BIN, 'codes', 'get', orderId, '--out', out], {
    encoding: 'utf8',
    env: { ...process.env, GIFTCODES_CONFIG_DIR: served.configDir, NO_COLOR: '1', CI: 'true' },
  });
  expect(run.stderr).not.toMatch(/error:/);
  expect(run.status).toBe(0);
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
    expect(exportTraced(id)).toEqual({ asked: 0, rows: 3 });
  });

  it('is not asked for by an export of an order placed elsewhere, its quantity read from the API', async () => {
    const id = await placedOnServer(served.server, 'amazon-us-25', 40);
    expect(exportTraced(id)).toEqual({ asked: 0, rows: 40 });
  });

  it('is not asked for by an export of three pages (2,500 codes), below the 10,000 that make one large', async () => {
    const id = await placedOnServer(served.server, 'amazon-us-25', 2_500);
    expect(exportTraced(id)).toEqual({ asked: 0, rows: 2_500 });
  });

  it('is asked for by an export of an order placed here whose quantity makes it large (10,000 codes)', async () => {
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '10000', '--wait', '--json'],
      { configDir: served.configDir },
    );
    expect(placed.code).toBe(0);
    const { asked, rows } = exportTraced((JSON.parse(placed.stdout) as { id: string }).id);
    expect(rows).toBe(10_000);
    expect(asked).toBeGreaterThan(0);
  });
});
