// What a support agent reads at 80 columns: order list and order pending keep every order id, product id and
// quantity whole, its thousands grouped (less useful columns give way), say the outcome in words, and show the amount
// where known.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_KEYS, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const api = servedApi(['--fulfil-after', '100']);
const terminal = giftcodesTerminals();
const NARROW = { columns: 80, rows: 30 };

describe('order list and order pending at 80 columns', () => {
  it('order list: ids, products and quantities whole, an amount, the outcome in words, nothing past column 80', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    // No catalog listed on this machine (a cron job's): each amount is the one the API stated for its order.
    const big = await runCli(['order', 'place', '--product', 'amazon-us-100', '--quantity', '12345', '--json'], {
      configDir,
    });
    expect(big.code, big.stderr).toBe(0);
    const bigId = (JSON.parse(big.stdout) as { id: string }).id;
    const small = await runCli(['order', 'place', '--product', 'tesco-uk-20', '--quantity', '3', '--json'], {
      configDir,
    });
    expect(small.code, small.stderr).toBe(0);
    const smallId = (JSON.parse(small.stdout) as { id: string }).id;

    const screen = await terminal(['order', 'list'], configDir, {}, NARROW).waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    const lines = screen.split('\n');
    // The table's lines; a note's command pinned to this test's long temporary config directory is not one.
    for (const line of lines.filter((l) => !l.includes('GIFTCODES_CONFIG_DIR=')))
      expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ORDER\s+PRODUCT\s+QTY\s+AMOUNT\s+.*OUTCOME/);
    const bigLine = lines.find((line) => line.startsWith(bigId));
    // The amount grouped (a person reads it), and the outcome's shorter word leaves it room at 80 columns.
    expect(bigLine).toMatch(/ amazon-us-100 +12,345 +1,234,500\.00 USD +.*placed$/);
    const smallLine = lines.find((line) => line.startsWith(smallId));
    expect(smallLine).toMatch(/ tesco-uk-20 +3 +60\.00 GBP +.*placed$/);
    expect(screen).not.toContain('…');
    // The columns left out are said, with where to see them: STATUS and CREATED went without a word.
    expect(screen).toContain('left out at 80 columns: STATUS, CREATED, KEY (--format csv or --json has them)');
    // Neither was refreshed since it was placed: the terminal is told their status may be old, and what asks again.
    // (At a terminal the line is broken at its spaces, a command wider than it continued with ` \`: output/wrap.ts.)
    expect(screen.replace(/ \\\n */g, ' ').replace(/\n */g, ' ')).toMatch(
      /2 orders were in progress when last checked: (GIFTCODES_CONFIG_DIR=\S+ )?giftcodes order list --refresh/,
    );

    // --product matches a part of the id.
    const tesco = await runCli(['order', 'list', '--product', 'TESCO', '--json'], { configDir });
    expect((JSON.parse(tesco.stdout) as { orderId: string }[]).map((r) => r.orderId)).toEqual([smallId]);
  });

  it('order pending: the key, product and quantity whole; the order id and start time give way', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-100', '--quantity', '12345', '--json'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const [pending] = JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout) as {
      key: string;
    }[];
    const screen = await terminal(['order', 'pending'], configDir, {}, NARROW).waitFor(/\[exit \d+\]/);
    const lines = screen.split('\n');
    const table = lines.filter((line) => line.startsWith('KEY') || line.startsWith(pending!.key));
    expect(table).toHaveLength(2);
    for (const line of table) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines.find((line) => line.startsWith(pending!.key))).toMatch(/ amazon-us-100 +12,345 /);
    // What gave way is said, as order list says it (a person's day: ORDER and STARTED went without a word).
    expect(screen).toMatch(/left out at 80 columns: (ORDER, )?STARTED \(--json has them\)/);
  });
});

describe('a plan run at 80 columns', () => {
  it('rows wait side by side under one progress line; the summary keeps ids and files, the key gives way', async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const dir = tempDir();
    const plan = join(dir, 'restock.csv');
    writeFileSync(plan, 'product,quantity,out\namazon-us-10,2,a.csv\nsteam-us-20,1,b.csv\napple-us-25,3,c.csv\n');
    // Run where the plan is, as a person does: its files are shown from there, whole.
    const screen = await terminal(['order', 'place', '--plan', plan], configDir, {}, NARROW, dir).waitFor(
      /\[exit \d+\]/,
    );
    expect(screen).toContain('[exit 0]');
    // Spinners drawn over each other left debris and ora's warning on the screen.
    expect(screen).not.toContain('[ora]');
    expect(screen).not.toMatch(/completed\S/);
    const lines = screen.split('\n');
    const header = lines.findIndex((line) => line.startsWith('ROW'));
    expect(lines[header]).toMatch(/^ROW +PRODUCT +QTY +ORDER +STATUS +OUT$/);
    const rows = lines.slice(header + 1, header + 4);
    for (const line of [lines[header]!, ...rows]) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(rows[0]).toMatch(/^2 +amazon-us-10 +2 +ord_\w+ +completed +a\.csv \(2\)$/);
    expect(rows[1]).toMatch(/ b\.csv \(1\)$/);
    expect(rows[2]).toMatch(/^4 +apple-us-25 +3 +ord_\w+ +completed /);
  });

  it("a night's file names stay whole: the order ids give way to a unique prefix, which order show takes", async () => {
    const configDir = await loggedIn(api.server, DEMO_KEYS.test);
    const dir = tempDir();
    const plan = join(dir, 'nightly.csv');
    writeFileSync(
      plan,
      'product,quantity,out\namazon-us-25,3,amazon-25-{batch}.csv\nsteam-us-20,2,steam-20-{batch}.csv\n',
    );
    const screen = await terminal(
      ['order', 'place', '--plan', plan, '--batch', 'night-2026-11-30'],
      configDir,
      {},
      NARROW,
      dir,
    ).waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 0]');
    const lines = screen.split('\n');
    const header = lines.findIndex((line) => line.startsWith('ROW'));
    const rows = lines.slice(header + 1, header + 3);
    for (const line of [lines[header]!, ...rows]) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(rows[0]).toMatch(/ amazon-25-night-2026-11-30\.csv \(3\)$/);
    expect(rows[1]).toMatch(/ steam-20-night-2026-11-30\.csv \(2\)$/);
    const prefix = /(ord_\w{8,})…/.exec(rows[0]!)?.[1];
    expect(prefix, rows[0]).toBeDefined();
    const shown = await runCli(['order', 'show', `${prefix}…`, '--json'], { configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { id: string }).id.startsWith(prefix!)).toBe(true);
  });
});
