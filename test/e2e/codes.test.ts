// `codes get` end to end: exports that match the server's codes exactly, CSV escaping, 0600 files,
// --force, a SIGKILL mid-export, codes before completion, --wait.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  asRun,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  type TestServer,
  until,
  unstamped,
} from '../helpers/e2e.js';

const SEED = join(ROOT, 'test/server/fixtures/formula-seed.json');
const KEY = 'sc_test_formula_0a1b2c3d4e5f';

type CodeRecord = Record<string, unknown> & {
  code: string;
  pin: string;
  serial: string;
  value: { amount: number; currency: string };
  expires_at: string;
};

async function api(
  server: TestServer,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, { ...init, headers: { 'X-API-Key': KEY, ...init.headers } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function placeOrder(server: TestServer, productId: string, quantity: number): Promise<string> {
  const res = await api(server, '/v1/orders', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ product_id: productId, quantity }),
  });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function completed(server: TestServer, orderId: string): Promise<void> {
  await until(async () =>
    (await api(server, `/v1/orders/${orderId}`)).body.status === 'completed' ? true : undefined,
  );
}

/** The records as exported: the API's, with the amount in dollars added as value.display (the seed's products are USD). */
function displayed(codes: CodeRecord[]): CodeRecord[] {
  return codes.map((c) => ({ ...c, value: { ...c.value, display: (c.value.amount / 100).toFixed(2) } }));
}

/** The server's codes, read page by page with its cursor: what every export must match. */
async function serverCodes(server: TestServer, orderId: string): Promise<CodeRecord[]> {
  const codes: CodeRecord[] = [];
  let cursor: string | null = null;
  do {
    const res = await api(server, `/v1/orders/${orderId}/codes${cursor ? `?cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    codes.push(...(res.body.data as CodeRecord[]));
    cursor = res.body.has_more ? (res.body.next_cursor as string) : null;
  } while (cursor);
  return codes;
}

/** RFC 4180, strictly: CRLF rows, quoted cells with doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  expect(cell).toBe('');
  expect(row).toEqual([]);
  return rows;
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

function strays(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.endsWith('.tmp'));
}

/**
 * `codes get <orderId> --out <target>` started, once its export is under way: its temporary file beside the
 * target holds codes already (the --out lock's own short-lived temporary file, a few bytes of JSON linked into
 * place at once, shares the prefix and must not be mistaken for it).
 */
async function exportUnderWay(
  server: TestServer,
  orderId: string,
  target: string,
): Promise<ReturnType<typeof spawnCli>> {
  const run = spawnCli(['codes', 'get', orderId, '--out', target], {
    baseUrl: server.url,
    env: { GIFTCODES_API_KEY: KEY },
  });
  run.proc.stdin?.end();
  const dir = dirname(target);
  const exportTemp = (): boolean =>
    strays(dir).some((name) => (statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0) > 1024);
  await until(() => exportTemp() || undefined);
  return run;
}

function cli(server: TestServer, args: string[], timeoutMs?: number) {
  return runCli(args, { baseUrl: server.url, env: { GIFTCODES_API_KEY: KEY }, ...(timeoutMs ? { timeoutMs } : {}) });
}

describe('codes get: exports', () => {
  const served = servedApi(['--seed', SEED, '--fulfil-after', '200']);
  let bigOrder: string;
  let expected: CodeRecord[];
  beforeAll(async () => {
    const { server } = served;
    bigOrder = await placeOrder(server, 'plain-us-10', 10_000);
    await completed(server, bigOrder);
    expected = await serverCodes(server, bigOrder);
  });

  it('exports a 10,000-code order to CSV, JSON and JSONL, each matching the server exactly, 0600', async () => {
    expect(expected).toHaveLength(10_000);
    expect(new Set(expected.map((c) => c.code)).size).toBe(10_000);
    const dir = tempDir();
    for (const name of ['codes.csv', 'codes.json', 'codes.jsonl']) {
      const result = await cli(served.server, ['codes', 'get', bigOrder, '--out', join(dir, name), '--json']);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        orderId: bigOrder,
        path: join(dir, name),
        count: 10_000,
        format: name.split('.')[1],
      });
      expect(mode(join(dir, name))).toBe(0o600);
    }
    expect(JSON.parse(readFileSync(join(dir, 'codes.json'), 'utf8'))).toEqual(displayed(expected));
    const lines = readFileSync(join(dir, 'codes.jsonl'), 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toEqual(displayed(expected));
    const [header, ...rows] = parseCsv(readFileSync(join(dir, 'codes.csv'), 'utf8'));
    expect(header).toEqual([
      'order_id',
      'code',
      'pin',
      'serial',
      'value.amount',
      'value.currency',
      'value.display',
      'expires_at',
    ]);
    expect(rows).toEqual(
      expected.map((c) => [
        bigOrder,
        c.code,
        c.pin,
        c.serial,
        String(c.value.amount),
        c.value.currency,
        (c.value.amount / 100).toFixed(2),
        c.expires_at,
      ]),
    );
    expect(strays(dir)).toEqual([]);
  });

  it('prints the records as one JSON array on stdout, and CSV/JSONL to stdout with --format', async () => {
    const { server } = served;
    const json = await cli(server, ['codes', 'get', bigOrder, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(displayed(expected));
    const jsonl = await cli(server, ['codes', 'get', bigOrder, '--format', 'jsonl']);
    expect(
      jsonl.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(displayed(expected));
    const csv = await cli(server, ['codes', 'get', bigOrder, '--format', 'csv', '--out', '-']);
    expect(parseCsv(csv.stdout)).toHaveLength(10_001);
    const refused = await cli(server, ['codes', 'get', bigOrder, '--json', '--format', 'csv']);
    expect(refused.code).toBe(2);
  });

  // As every other command's output (order place --out - among them): codes that did not all arrive are not
  // success. Exit 0 told a cron job's `set -o pipefail` that a consumer which died had every code.
  it('stops with exit 8 and one line when the reader of stdout goes away (| head)', async () => {
    const { proc, result } = spawnCli(['codes', 'get', bigOrder, '--format', 'jsonl'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: KEY },
    });
    proc.stdin?.end();
    proc.stdout?.once('data', () => proc.stdout?.destroy());
    const ended = await result;
    expect(ended.code, ended.stderr).toBe(8);
    expect(unstamped(ended.stderr).trimEnd().split('\n')).toEqual([
      `error: could not write the codes of order ${bigOrder} to standard output (the reader closed the pipe)`,
      expect.stringMatching(/^hint: /),
    ]);
  });

  it('escapes a formula in a CSV cell, and keeps it raw with --csv-raw', async () => {
    const { server } = served;
    const order = await placeOrder(server, 'formula-us-10', 3);
    await completed(server, order);
    const [first] = await serverCodes(server, order);
    expect(first?.code.startsWith('=')).toBe(true);
    const escaped = await cli(server, ['codes', 'get', order, '--format', 'csv']);
    expect(escaped.code, escaped.stderr).toBe(0);
    const escapedRows = parseCsv(escaped.stdout);
    expect(escapedRows[1]?.[1]).toBe(`'${first?.code}`);
    // Said, with the count: a program reading this CSV gets the leading ' too.
    expect(escaped.stderr).toMatch(
      new RegExp(
        `warning: 3 values of order ${order} began with = \\+ - @, a tab or a CR and got a leading ' .*--csv-raw, or an \\.xlsx file\\n`,
      ),
    );
    const raw = await cli(server, ['codes', 'get', order, '--format', 'csv', '--csv-raw']);
    expect(parseCsv(raw.stdout)[1]?.[1]).toBe(first?.code);
    expect(raw.stderr).not.toContain('warning');
    // JSON is data, not a spreadsheet: never altered.
    const json = await cli(server, ['codes', 'get', order, '--json']);
    expect(JSON.parse(json.stdout)[0].code).toBe(first?.code);
  });

  it('leaves an existing file untouched without --force (exit 2), and replaces it with --force', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.csv');
    writeFileSync(target, 'keep me\n', { mode: 0o644 });
    const refused = await cli(served.server, ['codes', 'get', bigOrder, '--out', target]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    const forced = await cli(served.server, ['codes', 'get', bigOrder, '--out', target, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(parseCsv(readFileSync(target, 'utf8'))).toHaveLength(10_001);
    expect(mode(target)).toBe(0o600);
    expect(strays(dir)).toEqual([]);
    // The same export again, without --force: the file holds these very codes, so it is left as it is, and said so.
    const before = statSync(target).mtimeMs;
    const again = await cli(served.server, ['codes', 'get', bigOrder, '--out', target]);
    expect(again.code, again.stderr).toBe(0);
    expect(unstamped(again.stderr)).toContain(
      `✓ ${target} already holds the 10,000 codes of ${bigOrder} (csv); left as it was\n`,
    );
    expect(unstamped(again.stderr)).toMatch(/^done: .* already held the 10,000 codes of .*; nothing written; took/m);
    expect(statSync(target).mtimeMs).toBe(before);
  });

  it('refuses a missing directory before fetching anything (exit 2)', async () => {
    const result = await cli(served.server, [
      'codes',
      'get',
      bigOrder,
      '--out',
      join(tempDir(), 'no', 'such', 'codes.csv'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('does not exist');
  });

  it('says an unknown order is not found (exit 4)', async () => {
    const result = await cli(served.server, ['codes', 'get', 'ord_does_not_exist']);
    expect(result.code).toBe(4);
  });

  // A full disk under stdout is a local resource failing, as a full disk under --out is: exit 8 and one
  // line, not "unexpected internal error" (exit 1) for the ENOSPC that the codes' stream met.
  const toFullDisk: { name: string; args: (order: string) => string[] }[] = [
    { name: 'codes get (json)', args: (order) => ['codes', 'get', order] },
    {
      name: 'codes get --format csv --out -',
      args: (order) => ['codes', 'get', order, '--format', 'csv', '--out', '-'],
    },
    { name: 'codes get --format jsonl', args: (order) => ['codes', 'get', order, '--format', 'jsonl'] },
    { name: 'codes get --json', args: (order) => ['codes', 'get', order, '--json'] },
    { name: 'order watch --out -', args: (order) => ['order', 'watch', order, '--out', '-'] },
  ];
  for (const { name, args } of toFullDisk) {
    it(`${name} with stdout on /dev/full: exit 8 and one line, no stack trace`, async () => {
      const json = args(bigOrder).includes('--json');
      const result = await runCli(args(bigOrder), {
        baseUrl: served.url,
        env: { GIFTCODES_API_KEY: KEY },
        stdoutFull: true,
      });
      expect(result.code, result.stderr).toBe(8);
      const errors = unstamped(result.stderr)
        .trimEnd()
        .split('\n')
        .filter((line) => !/order \S+: completed$/.test(line));
      const message = 'could not write the codes to standard output (no space left on the device)';
      if (json) {
        expect(errors).toHaveLength(1);
        expect(JSON.parse(errors[0] ?? '')).toMatchObject({ error: { code: 'output_failed', exitCode: 8, message } });
      } else {
        expect(errors).toEqual([`error: ${message}`, expect.stringMatching(/^hint: /)]);
      }
      expect(result.stderr).not.toMatch(/^\s+at /m);
    });
  }

  // CSV to stdout is put in column order in a temporary file first: a TMPDIR that is missing (or full) is a
  // local resource failing, not "unexpected internal error" (exit 1) for the ENOENT of its open.
  it('CSV to stdout with a TMPDIR that does not exist: exit 8 and one line naming the temporary file', async () => {
    const missing = join(tempDir(), 'no-such-tmp');
    const result = await runCli(['codes', 'get', bigOrder, '--format', 'csv'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: KEY, TMPDIR: missing },
    });
    expect(result.code, result.stderr).toBe(8);
    const errors = unstamped(result.stderr)
      .trimEnd()
      .split('\n')
      .filter((line) => !/order \S+: completed$/.test(line));
    expect(errors[0]).toMatch(
      new RegExp(
        `^error: cannot write the temporary CSV file ${missing}/giftcodes-spool-\\S+: the directory does not exist \\(ENOENT\\)$`,
      ),
    );
    expect(errors.slice(1)).toEqual([expect.stringMatching(/^hint: /)]);
    expect(result.stdout).toBe('');
  });
});

describe('codes get: timing and interruption', () => {
  // Slow pages so a kill lands mid-export, and slow fulfilment so an order can be caught before completion.
  const served = servedApi(['--seed', SEED, '--fulfil-after', '2500', '--latency', '120']);
  // Orders that stay unfinished for the whole test (an hour): 'before completion' never depends on how fast the
  // machine runs the CLI (2.5 s was spent before the first look on a loaded one).
  const unfinished = servedApi(['--seed', SEED, '--fulfil-after', '3600000']);
  let bigOrder: string;
  beforeAll(async () => {
    bigOrder = await placeOrder(served.server, 'plain-us-10', 10_000);
  });

  it('exits 4 with a hint naming --wait before completion, then --wait waits and succeeds', async () => {
    const { server } = served;
    const order = await placeOrder(unfinished.server, 'plain-us-10', 5);
    const early = await cli(unfinished.server, ['codes', 'get', order]);
    expect(early.code).toBe(4);
    expect(early.stderr).toContain('order_not_completed');
    expect(early.stderr).toContain('--wait');
    const dir = tempDir();
    const pending = await placeOrder(server, 'plain-us-10', 5);
    const waited = await cli(server, [
      'codes',
      'get',
      pending,
      '--wait',
      '--interval',
      '0.2',
      '--out',
      join(dir, 'codes.jsonl'),
    ]);
    expect(waited.code, waited.stderr).toBe(0);
    // Off a terminal, one line per status change (polled every 0.2 s for up to 2.5 s: a repeat would show), ending
    // in completed; which of pending and processing it saw first depends on how soon the CLI got to look.
    const statuses = waited.stderr
      .split('\n')
      .flatMap((line) => new RegExp(`order ${pending}: (\\w+)$`).exec(line)?.[1] ?? []);
    expect(['pending,processing,completed', 'processing,completed', 'pending,completed', 'completed']).toContain(
      statuses.join(','),
    );
    expect(readFileSync(join(dir, 'codes.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(5);
  });

  // The hint named `order watch <id>`, which waits and writes nothing: a review followed it after Ctrl-C of
  // `codes get --wait --out nr.csv` and never got its file. The same command again is what writes the codes.
  it('gives up with exit 7 after --timeout, the hint being the same command again (it writes the codes)', async () => {
    const order = await placeOrder(unfinished.server, 'plain-us-10', 1);
    const target = join(tempDir(), 'nr.csv');
    const wait = ['--wait', '--interval', '0.1', '--timeout', '0.3'];
    const result = await cli(unfinished.server, ['codes', 'get', order, ...wait, '--out', target]);
    expect(result.code).toBe(7);
    // The run's GIFTCODES_CONFIG_DIR and GIFTCODES_BASE_URL are said with "the same command again" (pinned-hint.ts).
    expect(result.stderr).toMatch(
      / run the same command again \(with GIFTCODES_CONFIG_DIR=\S+ GIFTCODES_BASE_URL=http:\/\/127\.0\.0\.1:\d+ in its environment, as this run had\):/,
    );
    expect(asRun(result.stderr)).toContain(
      `hint: the order goes on on the server; run the same command again: it waits, then writes the codes to ${target}\n`,
    );
    expect(result.stderr).not.toContain('order watch');
    const printed = await cli(unfinished.server, ['codes', 'get', order, ...wait]);
    expect(printed.code).toBe(7);
    expect(asRun(printed.stderr)).toContain('run the same command again: it waits, then prints the codes\n');
    const watched = await cli(unfinished.server, [
      'order',
      'watch',
      order,
      '--interval',
      '0.1',
      '--timeout',
      '0.3',
      '--out',
      target,
    ]);
    expect(watched.code).toBe(7);
    expect(asRun(watched.stderr)).toContain(
      `run the same command again: it waits, then writes the codes to ${target}\n`,
    );
    // Without a file, watching again is all there is to do.
    const bare = await cli(unfinished.server, ['order', 'watch', order, '--interval', '0.1', '--timeout', '0.3']);
    expect(bare.code).toBe(7);
    // The key came from GIFTCODES_API_KEY: the command pasted needs it too, and the hint says so (a person's day).
    expect(bare.stderr).toMatch(
      new RegExp(
        `wait again with: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes order watch ${order} \\(run with the API key this run read from GIFTCODES_API_KEY\\)\\n`,
      ),
    );
  });

  it('exits 6 when the order fails while waiting', async () => {
    const order = await placeOrder(served.server, 'doomed-us-10', 1);
    const result = await cli(served.server, ['codes', 'get', order, '--wait', '--interval', '0.2', '--json']);
    expect(result.code).toBe(6);
    expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'order_failed', exitCode: 6 });
  });

  it('a SIGKILL mid-export leaves no file at the target; the next run cleans the stray temporary file', async () => {
    const { server } = served;
    await completed(server, bigOrder);
    const dir = tempDir();
    const target = join(dir, 'codes.csv');
    const { proc, result } = await exportUnderWay(server, bigOrder, target);
    const temps = strays(dir);
    expect(temps.length).toBeGreaterThan(0);
    expect(temps.every((name) => name.startsWith(`.codes.csv.giftcodes-${proc.pid}-`))).toBe(true);
    proc.kill('SIGKILL');
    expect((await result).signal).toBe('SIGKILL');
    expect(existsSync(target)).toBe(false);
    expect(strays(dir).length).toBeGreaterThan(0);
    const again = await cli(server, ['codes', 'get', bigOrder, '--out', target], 60_000);
    expect(again.code, again.stderr).toBe(0);
    expect(parseCsv(readFileSync(target, 'utf8'))).toHaveLength(10_001);
    expect(strays(dir)).toEqual([]);
  });

  it('SIGTERM mid-export exits 130 and leaves no file at the target', async () => {
    const dir = tempDir();
    const target = join(dir, 'codes.json');
    const { proc, result } = await exportUnderWay(served.server, bigOrder, target);
    proc.kill('SIGTERM');
    const ended = await result;
    expect(ended.code).toBe(130);
    expect(existsSync(target)).toBe(false);
  });
});
