// Codes delivery, captured: what every verb that delivers codes (codes get, order place --out, order watch
// --out, order resume, a plan's rows) prints, writes and records, for every format, to stdout and to files,
// including a reader of stdout that goes away and a file already written. The server is made deterministic
// (its order ids count up, its clock stands still: a preload given to it alone), so the same runs give the
// same codes; what still differs from run to run (temporary paths, the server's port, the client's own
// timestamps, plan keys, which derive from the server's address) is replaced by a placeholder. The snapshot
// beside this file is the behaviour: a change in how codes reach the user shows up as its diff.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { storedRecords } from '../helpers/journal.js';
import { BIN, DEMO_KEYS, ROOT, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { ensureOpenpyxl, PYTHON } from '../helpers/openpyxl.js';

/** The server's clock, standing still: its orders' created_at and their codes' expires_at (a year later). */
const FROZEN = Date.UTC(2020, 0, 1);
const PRESERVED = new Set([new Date(FROZEN).toISOString(), new Date(FROZEN + 365 * 86_400_000).toISOString()]);
const PRELOAD = `data:text/javascript,${encodeURIComponent(`
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
let n = 0;
crypto.randomUUID = () => (++n).toString(16).padStart(8, '0') + '-0000-4000-8000-000000000000';
syncBuiltinESMExports();
Date.now = () => ${FROZEN};
`)}`;
const PRODUCT = 'amazon-us-25';
const FORMATS = ['csv', 'json', 'jsonl', 'xlsx'] as const;
const TEXT_FORMATS = ['csv', 'json', 'jsonl'] as const;
/**
 * GIFTCODES_CAPTURE=all: every verb × every format × every case (about 70 runs, a minute or more, the
 * check before and after a change to delivery); otherwise a case or two of each verb (its own snapshot).
 */
const FULL = process.env.GIFTCODES_CAPTURE === 'all';
function pick<T>(all: readonly T[], quick: readonly T[]): readonly T[] {
  return FULL ? all : quick;
}

/** This process's environment without what would reach past the test's config dir. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [
    'GIFTCODES_API_KEY',
    'GIFTCODES_PROFILE',
    'GIFTCODES_BASE_URL',
    'FORCE_COLOR',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
  ])
    delete env[name];
  return env;
}

interface Captured {
  label: string;
  code: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  files: Record<string, { mode: string; text?: string; sha256?: string; cells?: string }>;
}

describe('codes delivery, captured for every verb and format', () => {
  beforeAll(() => ensureOpenpyxl(), 600_000);
  const served = servedApi(['--fulfil-after', '0'], {
    login: DEMO_KEYS.test,
    env: { NODE_OPTIONS: `--import=${PRELOAD}` },
  });

  it('prints, writes and records what the snapshot holds', { timeout: 900_000 }, async () => {
    const configDir = served.configDir;
    const dir = tempDir('giftcodes-capture-');
    const captures: Captured[] = [];
    const xlsxFiles: string[] = [];
    const cellsDir = tempDir('giftcodes-capture-cells-');
    const normalize = (text: string): string =>
      text
        .replaceAll(served.url, '<server>')
        .replaceAll(dir, '<dir>')
        .replaceAll(configDir, '<config>')
        .replace(/plan-[0-9a-f]{24}/g, 'plan-<key>')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (t) => (PRESERVED.has(t) ? t : '<now>'))
        // How many codes went into a pipe before its reader closed it depends on the pipe, not on giftcodes.
        .replace(/; \d+ of (\d+) codes were handed to it/, '; <n> of $1 codes were handed to it')
        .replace(/took [\d.]+ (m?s|min)( [\d.]+ s)?/g, 'took <t>');
    let copies = 0;
    const fileState = (name: string): Captured['files'][string] | undefined => {
      const path = join(dir, name);
      if (!existsSync(path)) return undefined;
      const bytes = readFileSync(path);
      const mode = (statSync(path).mode & 0o777).toString(8);
      if (!name.endsWith('.xlsx')) return { mode, text: normalize(bytes.toString('utf8')) };
      // Read as a spreadsheet at the end, from a copy of it as it is now.
      const copy = join(cellsDir, `${++copies}-${name}`);
      copyFileSync(path, copy);
      xlsxFiles.push(copy);
      return { mode, sha256: createHash('sha256').update(bytes).digest('hex'), cells: `${copies}-${name}` };
    };
    const record = (
      label: string,
      result: { code: number | null; signal?: string | null; stdout: string; stderr: string },
      files: string[] = [],
    ): void => {
      const captured: Captured = {
        label,
        code: result.code,
        ...(result.signal ? { signal: result.signal } : {}),
        stdout: normalize(result.stdout),
        stderr: normalize(result.stderr),
        files: {},
      };
      for (const name of files) {
        const state = fileState(name);
        if (state !== undefined) captured.files[name] = state;
      }
      captures.push(captured);
    };
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { configDir, cwd: dir, env });
    const run = async (label: string, args: string[], files: string[] = [], env: NodeJS.ProcessEnv = {}) => {
      const result = await cli(args, env);
      record(label, result, files);
      return result;
    };
    /** The CLI with a reader of stdout that takes the first chunk and closes the pipe. */
    const readerGone = async (label: string, args: string[]): Promise<void> => {
      const proc = spawn(process.execPath, [BIN, ...args], {
        cwd: dir,
        env: { ...cleanEnv(), GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      proc.stdout.once('data', () => proc.stdout.destroy());
      const code = await new Promise<number | null>((resolve) => proc.on('close', (c) => resolve(c)));
      record(label, { code, stdout: '', stderr });
    };
    const place = (key: string, quantity = 3): string[] => [
      'order',
      'place',
      '--product',
      PRODUCT,
      '--quantity',
      String(quantity),
      '--idempotency-key',
      key,
      '--interval',
      '0.05',
    ];
    const orderIds: string[] = [];
    const placed = async (key: string, quantity = 3): Promise<string> => {
      const result = await cli([...place(key, quantity), '--wait', '--json']);
      expect(result.code, result.stderr).toBe(0);
      const id = (JSON.parse(result.stdout) as { id: string }).id;
      orderIds.push(id);
      return id;
    };

    // order place --out: each format to a file, text and --json; to stdout; again with the same key (already written).
    for (const format of pick(FORMATS, ['xlsx']))
      await run(
        `place --out codes.${format}`,
        [...place(`k-place-${format}`), '--out', `place.${format}`],
        [`place.${format}`],
      );
    for (const format of pick(FORMATS, ['csv']))
      await run(
        `place --out codes.${format} --json`,
        [...place(`k-placej-${format}`), '--out', `placej.${format}`, '--json'],
        [`placej.${format}`],
      );
    for (const format of pick(TEXT_FORMATS, ['jsonl']))
      await run(`place --out - --format ${format}`, [
        ...place(`k-place-stdout-${format}`),
        '--out',
        '-',
        '--format',
        format,
      ]);
    if (FULL)
      await run('place --out - --format xlsx', [...place('k-place-stdout-xlsx'), '--out', '-', '--format', 'xlsx']);
    for (const format of pick(FORMATS, []))
      await run(
        `place --out codes.${format} again (same key)`,
        [...place(`k-place-${format}`), '--out', `place.${format}`],
        [`place.${format}`],
      );
    if (FULL)
      await run('place --out an existing file', [...place('k-place-exists'), '--out', 'place.csv'], ['place.csv']);

    // codes get: to stdout in each text format and --json; to a file in each format, as text and --json; again
    // (the file already holds these codes); an existing file that holds others; xlsx to stdout.
    const order = await placed('k-get');
    for (const format of pick(TEXT_FORMATS, ['csv']))
      await run(`codes get --format ${format}`, ['codes', 'get', order, '--format', format]);
    if (FULL) await run('codes get --json', ['codes', 'get', order, '--json']);
    if (FULL) await run('codes get --format csv --csv-raw', ['codes', 'get', order, '--format', 'csv', '--csv-raw']);
    for (const format of pick(FORMATS, ['json', 'xlsx']))
      await run(
        `codes get --out codes.${format}`,
        ['codes', 'get', order, '--out', `get.${format}`],
        [`get.${format}`],
      );
    for (const format of pick(FORMATS, []))
      await run(
        `codes get --out codes.${format} --json`,
        ['codes', 'get', order, '--out', `getj.${format}`, '--json'],
        [`getj.${format}`],
      );
    for (const format of pick(FORMATS, ['xlsx']))
      await run(
        `codes get --out codes.${format} again`,
        ['codes', 'get', order, '--out', `get.${format}`],
        [`get.${format}`],
      );
    if (FULL)
      await run(
        'codes get --out a file of other codes',
        ['codes', 'get', order, '--out', 'place.json'],
        ['place.json'],
      );
    if (FULL)
      await run(
        'codes get --out codes.xlsx --force',
        ['codes', 'get', order, '--out', 'place.xlsx', '--force'],
        ['place.xlsx'],
      );
    if (FULL) await run('codes get --format xlsx (stdout)', ['codes', 'get', order, '--format', 'xlsx']);

    // order watch: each format to a file; to stdout; again (already holds).
    const watched = FULL ? await placed('k-watch') : order;
    for (const format of pick(FORMATS, ['csv']))
      await run(
        `watch --out codes.${format}`,
        ['order', 'watch', watched, '--out', `watch.${format}`, '--interval', '0.05'],
        [`watch.${format}`],
      );
    for (const format of pick(TEXT_FORMATS, []))
      await run(`watch --out - --format ${format}`, ['order', 'watch', watched, '--out', '-', '--format', format]);
    for (const format of pick(FORMATS, ['csv']))
      await run(
        `watch --out codes.${format} --json again`,
        ['order', 'watch', watched, '--out', `watch.${format}`, '--json'],
        [`watch.${format}`],
      );

    // order resume: a place killed before its codes were written, and one killed after its rename.
    for (const format of pick(['csv', 'xlsx'], ['xlsx'])) {
      for (const point of ['order.accepted', 'codes.renamed'] as const) {
        const file = `resume-${point}.${format}`;
        const key = `k-resume-${point}-${format}`;
        await run(`place --out codes.${format} killed at ${point}`, [...place(key), '--out', file], [file], {
          GIFTCODES_FAILPOINTS: `${point}=kill`,
        });
        await run(`resume after ${point} (${format})`, ['order', 'resume', key], [file]);
      }
    }
    if (FULL)
      await run(
        'place --out - killed at order.accepted',
        [...place('k-resume-stdout'), '--out', '-', '--format', 'jsonl'],
        [],
        { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
      );
    if (FULL) await run('resume --all --json (codes to stdout)', ['order', 'resume', '--all', '--json']);

    // A plan with a row per format, run, then again (every row delivered).
    writeFileSync(
      join(dir, 'restock.csv'),
      `product,quantity,out\n${FORMATS.map((format, i) => `${PRODUCT},${i + 2},plan.${format}`).join('\n')}\n${PRODUCT},9\n`,
    );
    const planFiles = FORMATS.map((format) => `plan.${format}`);
    await run(
      'place --plan',
      ['order', 'place', '--plan', 'restock.csv', '--concurrency', '1', '--interval', '0.05'],
      planFiles,
    );
    if (FULL)
      await run(
        'place --plan --json again',
        ['order', 'place', '--plan', 'restock.csv', '--concurrency', '1', '--json', '--interval', '0.05'],
        planFiles,
      );

    // A reader of stdout that goes away: exit 8, one line, and nothing recorded as delivered.
    const big = await placed('k-gone', 3000);
    await readerGone('codes get, the reader gone', ['codes', 'get', big, '--format', 'csv']);
    if (FULL)
      await readerGone('watch --out -, the reader gone', ['order', 'watch', big, '--out', '-', '--format', 'jsonl']);
    await readerGone('place --out -, the reader gone', [
      ...place('k-gone-place', 3000),
      '--out',
      '-',
      '--format',
      'json',
    ]);

    // The journal: what every order left (its record), and what is still pending.
    const history = join(configDir, 'history');
    const records = storedRecords(history)
      // Sorted as normalized: a plan's row keys derive from the server's address, which changes from run to run.
      .map((record) => normalize(`${JSON.stringify(record, null, 2)}\n`))
      .sort()
      .map((text) => JSON.parse(text) as unknown);
    const pending = await runCli(['order', 'pending', '--json'], { configDir });
    // Every workbook as a spreadsheet reads it: each cell's type and value.
    const cells = JSON.parse(
      execFileSync(
        PYTHON,
        [
          '-c',
          `
import json, sys, datetime, openpyxl
out = {}
for path in sys.argv[1:]:
    wb = openpyxl.load_workbook(path)
    out[path] = [[ws.title, ws.freeze_panes, ws.auto_filter.ref, [[(c.data_type, c.value.isoformat() if isinstance(c.value, datetime.datetime) else c.value, c.number_format) for c in row] for row in ws.iter_rows()]] for ws in wb.worksheets]
print(json.dumps(out))
`,
          ...new Set(xlsxFiles),
        ],
        { encoding: 'utf8', cwd: ROOT },
      ),
    ) as Record<string, unknown>;

    expect(orderIds.length).toBeGreaterThan(0);
    await expect(
      normalize(
        JSON.stringify(
          {
            captures,
            records,
            pending: JSON.parse(pending.stdout) as unknown,
            workbooks: Object.fromEntries(Object.entries(cells).map(([path, sheets]) => [basename(path), sheets])),
          },
          null,
          1,
        ),
      ),
    ).toMatchFileSnapshot(`__snapshots__/delivery-capture${FULL ? '-all' : ''}.json`);
  });
});
