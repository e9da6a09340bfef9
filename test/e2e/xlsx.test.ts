// `--format xlsx` / `--out *.xlsx`: a real workbook, read back with an independent reader (Python's openpyxl,
// Debian's python3-openpyxl), every cell's type and value compared with what the API served.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ledger, ROOT, runCli, servedApi, tempDir, type TestServer } from '../helpers/e2e.js';
import { ensureOpenpyxl, PYTHON } from '../helpers/openpyxl.js';
import { pendingNow } from '../helpers/pending.js';

const SEED = join(ROOT, 'test/server/fixtures/xlsx-seed.json');
const KEY = 'sc_test_sheet_0a1b2c3d4e5f6a';

type CodeRecord = {
  code: string;
  pin: string;
  serial: string;
  value: { amount: number; currency: string };
  expires_at: string;
};

interface Sheet {
  title: string;
  freeze: string | null;
  filter: string | null;
  rows: { type: string; value: unknown; format: string }[][];
  /** Each column's width in characters, as the workbook sets it. */
  widths: number[];
}

/** The workbook as openpyxl reads it: each cell's type (s, n, d, b), value (dates as ISO text) and number format. */
function readWorkbook(path: string): Sheet[] {
  const script = `
import json, sys, datetime, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
out = []
for ws in wb.worksheets:
    rows = []
    for row in ws.iter_rows():
        cells = []
        for c in row:
            v = c.value
            if isinstance(v, datetime.datetime):
                v = v.isoformat()
            cells.append({"type": c.data_type, "value": v, "format": c.number_format})
        rows.append(cells)
    widths = [ws.column_dimensions[openpyxl.utils.get_column_letter(i + 1)].width for i in range(ws.max_column)]
    out.append({"title": ws.title, "freeze": ws.freeze_panes, "filter": ws.auto_filter.ref, "rows": rows, "widths": widths})
print(json.dumps(out))
`;
  return JSON.parse(
    execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }),
  ) as Sheet[];
}

async function serverCodes(server: TestServer, orderId: string): Promise<CodeRecord[]> {
  const codes: CodeRecord[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await fetch(`${server.url}/v1/orders/${orderId}/codes?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { 'X-API-Key': KEY },
    });
    const body = (await res.json()) as { data?: CodeRecord[]; codes?: CodeRecord[]; next_cursor?: string | null };
    codes.push(...(body.data ?? body.codes ?? []));
    if (!body.next_cursor) return codes;
    cursor = body.next_cursor;
  }
}

describe('xlsx export', () => {
  const served = servedApi(['--seed', SEED, '--fulfil-after', '0'], { login: KEY });
  beforeAll(() => ensureOpenpyxl(), 600_000);

  it.each([
    ['zeros-us-25', 'USD', 2, '25.00'],
    ['digits-jp-500', 'JPY', 0, '500'],
  ])(
    'order place --out codes.xlsx (%s): every cell read back as the API served it',
    async (product, currency, decimals, display) => {
      const out = join(tempDir(), 'codes.xlsx');
      const placed = await runCli(
        ['order', 'place', '--product', product, '--quantity', '1234', '--out', out, '--interval', '0.05', '--json'],
        { configDir: served.configDir },
      );
      expect(placed.code, placed.stderr).toBe(0);
      const orderId = (JSON.parse(placed.stdout) as { id: string }).id;
      expect(statSync(out).mode & 0o777).toBe(0o600);
      const served_ = await serverCodes(served.server, orderId);
      expect(served_).toHaveLength(1234);
      const [sheet, ...more] = readWorkbook(out);
      expect(more).toHaveLength(0);
      expect(sheet!.title).toBe(orderId);
      expect(sheet!.freeze).toBe('A2');
      expect(sheet!.filter).toBe(`A1:H1235`);
      const header = sheet!.rows[0]!;
      expect(header.map((c) => [c.type, c.value])).toEqual(
        ['order_id', 'code', 'pin', 'serial', 'value.amount', 'value.currency', 'value.display', 'expires_at'].map(
          (name) => ['s', name],
        ),
      );
      expect(sheet!.rows).toHaveLength(1235);
      served_.forEach((record, i) => {
        const row = sheet!.rows[i + 1]!;
        const text = (c: number): unknown => (expect(row[c]!.type).toBe('s'), row[c]!.value);
        expect(text(0)).toBe(orderId);
        expect(text(1)).toBe(record.code);
        expect(text(2)).toBe(record.pin);
        expect(text(3)).toBe(record.serial);
        expect(row[4]!.type).toBe('n');
        expect(row[4]!.value).toBe(record.value.amount / 10 ** decimals);
        expect(row[4]!.format).toBe(`#,##0${decimals ? '.00' : ''} "${currency}"`);
        expect(text(5)).toBe(record.value.currency);
        expect(text(6)).toBe(display);
        expect(row[7]!.type).toBe('d');
        expect(new Date(`${String(row[7]!.value)}Z`).toISOString()).toBe(new Date(record.expires_at).toISOString());
      });
      // Each column as wide as its widest cell of the first page, a date's and an amount's as their styles show them:
      // at the default 8.43 a code was cut and a date read ######## (a person's day).
      const longest = (c: number): number =>
        Math.max(...sheet!.rows.slice(1, 1001).map((row) => String(row[c]!.value).length));
      for (const c of [0, 1, 2, 3, 5, 6]) expect(sheet!.widths[c]).toBeGreaterThanOrEqual(Math.min(60, longest(c)));
      expect(sheet!.widths[4]).toBeGreaterThanOrEqual(12);
      expect(sheet!.widths[7]).toBeGreaterThanOrEqual(23);
      for (const width of sheet!.widths) expect(width).toBeLessThanOrEqual(62);
      // Leading zeros and long digit strings stay text, exactly.
      expect(served_.some((r) => /^0208/.test(r.code) || /^12345678901234567890<&>/.test(r.code))).toBe(true);
    },
    120_000,
  );

  it('--format xlsx to stdout is refused, exit 2, nothing fetched', async () => {
    const result = await runCli(['codes', 'get', 'ord_whatever', '--format', 'xlsx'], { configDir: served.configDir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--format xlsx writes a file, not stdout');
    const watched = await runCli(
      ['order', 'place', '--product', 'zeros-us-25', '--quantity', '1', '--out', '-', '--format', 'xlsx'],
      { configDir: served.configDir },
    );
    expect(watched.code, watched.stderr).toBe(2);
  });

  it('codes get --out codes.xlsx writes a workbook, and again is the same delivery (already written)', async () => {
    const placed = await runCli(
      ['order', 'place', '--product', 'zeros-us-25', '--quantity', '3', '--wait', '--interval', '0.05', '--json'],
      { configDir: served.configDir },
    );
    expect(placed.code, placed.stderr).toBe(0);
    const orderId = (JSON.parse(placed.stdout) as { id: string }).id;
    const out = join(tempDir(), 'codes.xlsx');
    const first = await runCli(['codes', 'get', orderId, '--out', out], { configDir: served.configDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('(xlsx, 0600)');
    const again = await runCli(['codes', 'get', orderId, '--out', out], { configDir: served.configDir });
    expect(again.code, again.stderr).toBe(0);
    expect(readWorkbook(out)[0]!.rows).toHaveLength(4);
  });

  it('order place --out codes.xlsx killed at delivered, then order resume: the workbook is its delivery, untouched, no second file, one charge', async () => {
    const key = `sheet-once-${Date.now()}`;
    const out = join(tempDir(), 'codes.xlsx');
    const place = [
      'order',
      'place',
      '--product',
      'zeros-us-25',
      '--quantity',
      '5',
      '--out',
      out,
      '--idempotency-key',
      key,
      '--interval',
      '0.05',
    ];
    const killed = await runCli(place, {
      configDir: served.configDir,
      env: { GIFTCODES_FAILPOINTS: 'delivered=kill' },
      timeoutMs: 120_000,
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const digest = (): string => createHash('sha256').update(readFileSync(out)).digest('hex');
    const before = digest();
    expect(readWorkbook(out)[0]!.rows).toHaveLength(6);
    const again = await runCli(['order', 'resume', key], { configDir: served.configDir, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/had already reached you \(codes in .*codes\.xlsx\)/);
    expect(digest()).toBe(before);
    expect(readdirSync(join(out, '..')).filter((name) => !name.endsWith('.giftcodes.lock'))).toEqual(['codes.xlsx']);
    expect((await ledger(served.server)).orders.filter((o) => o.idempotency_key === key)).toHaveLength(1);
    expect((await pendingNow(served.configDir)).filter((i) => i.key === key)).toEqual([]);
  }, 300_000);

  it('order watch --out and a plan row take .xlsx', async () => {
    const dir = tempDir();
    const placed = await runCli(['order', 'place', '--product', 'digits-jp-500', '--quantity', '2', '--json'], {
      configDir: served.configDir,
    });
    expect(placed.code, placed.stderr).toBe(0);
    const orderId = (JSON.parse(placed.stdout) as { id: string }).id;
    const watched = await runCli(
      ['order', 'watch', orderId, '--out', join(dir, 'watched.xlsx'), '--interval', '0.05'],
      { configDir: served.configDir },
    );
    expect(watched.code, watched.stderr).toBe(0);
    expect(readWorkbook(join(dir, 'watched.xlsx'))[0]!.rows).toHaveLength(3);
    const plan = join(dir, 'plan.csv');
    writeFileSync(plan, `product,quantity,out\nzeros-us-25,4,${join(dir, 'planned.xlsx')}\n`);
    const result = await runCli(['order', 'place', '--plan', plan, '--interval', '0.05'], {
      configDir: served.configDir,
    });
    expect(result.code, result.stderr).toBe(0);
    const [sheet] = readWorkbook(join(dir, 'planned.xlsx'));
    expect(sheet!.rows).toHaveLength(5);
    expect(sheet!.rows[1]![1]!.value).toMatch(/^0208/);
    expect(statSync(join(dir, 'planned.xlsx')).mode & 0o777).toBe(0o600);
  }, 300_000);
});
