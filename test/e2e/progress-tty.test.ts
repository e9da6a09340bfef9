// Long work shows how far it is (issue 30), on a real terminal (tmux): one progress line redrawn in place,
// then cleared; in a log, no redraws and one summary line for the run.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, placedOnServer, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals, openTerminal, type Terminal } from '../helpers/tmux.js';

// Every answer a little late: the 5 pages of a 5,000-code order take seconds to read, time enough to see.
const served = servedApi(['--latency', '400', '--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();

describe('progress at a terminal', () => {
  it('order place --out shows codes written of the quantity, redrawn on one line, and clears it at the end', async () => {
    const dir = tempDir();
    const out = join(dir, 'codes.csv');
    const t = inTerminal(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '5000', '--out', out],
      served.configDir,
      { GIFTCODES_BASE_URL: served.url },
    );
    const first = await t.waitFor(
      /writing the codes of ord_\w+: [1-4],000 of 5,000 codes \([2-8]0%\), [\d,]+ codes\/s, \d+ s left/,
      30_000,
    );
    const later = await t.waitFor(/writing the codes of ord_\w+: [2-4],000 of 5,000 codes/, 30_000);
    // Redrawn in place: one line of progress on the screen, never a list of them.
    for (const screen of [first, later])
      expect(screen.split('\n').filter((l) => l.includes('writing the codes')).length).toBe(1);
    const done = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(done).toContain('[exit 0]');
    expect(done).toMatch(/wrote 5,000 codes to/);
    // Cleared: nothing of the progress line is left on the screen.
    expect(done).not.toContain('writing the codes');
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(5001);
  }, 300_000);
});

describe("progress on a dumb terminal (TERM=dumb, as in Emacs's shell)", () => {
  it('the status lines are said, stamped, one under another, as in a log', async () => {
    const t = inTerminal(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '3', '--wait'],
      served.configDir,
      { GIFTCODES_BASE_URL: served.url, TERM: 'dumb' },
    );
    const done = await t.waitFor(/\[exit \d+\]/, 30_000);
    expect(done).toContain('[exit 0]');
    // The spinner drew nothing there, and no status line was said in its place.
    expect(done).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z order ord_\w+: completed$/m);
  }, 60_000);
});

describe('progress in a log', () => {
  it('no redraws, and one timestamped summary line: what was ordered, the order, where the codes went, how long', async () => {
    const out = join(tempDir(), 'codes.csv');
    const r = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1500', '--out', out], {
      configDir: served.configDir,
      baseUrl: served.url,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain('\r');
    const summary = r.stderr.split('\n').filter((l) => l.includes('done:'));
    expect(summary).toHaveLength(1);
    expect(summary[0]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z done: ordered 1,500 × amazon-us-25: order ord_\\w+ completed, codes to ${out.replace(/[.]/g, '\\.')} \\(csv\\); took \\d+\\.\\d s$`,
      ),
    );
  }, 300_000);
});

describe('progress at a terminal, codes piped to a reader that writes to it', () => {
  /**
   * giftcodes `args` | cat at a terminal: stdout a pipe into cat, which writes to the terminal stderr is on. Tall
   * enough for every line of a small order to stay on the screen.
   */
  const piped = (args: string[]): Terminal => {
    const t = openTerminal(
      ['sh', '-c', '"$@" | cat; echo "[exit $?]"; exec sleep 3600', 'sh', process.execPath, BIN, ...args],
      {
        PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
        HOME: served.configDir,
        GIFTCODES_CONFIG_DIR: served.configDir,
        GIFTCODES_BASE_URL: served.url,
        NO_COLOR: '1',
      },
      { columns: 220, rows: 50 },
    );
    opened.push(t);
    return t;
  };
  let opened: Terminal[] = [];
  afterEach(() => {
    for (const t of opened) t.close();
    opened = [];
  });

  it('codes get --format csv | cat: the progress line is cleared before the first byte, the header on its own line', async () => {
    // Few enough codes for the whole export to stay on the screen: one page, drawn at its last count.
    const orderId = await placedOnServer(served.server, 'amazon-us-25', 20);
    const done = await piped(['codes', 'get', orderId, '--format', 'csv']).waitFor(/\[exit \d+\]/, 30_000);
    expect(done).toContain('[exit 0]');
    const lines = done.split('\n');
    const header = lines.findIndex((l) => l.includes('order_id,code'));
    expect(header).toBeGreaterThanOrEqual(0);
    expect(lines[header]).toMatch(/^order_id,code/);
    expect(lines.filter((l) => l.startsWith(orderId))).toHaveLength(20);
    expect(done).not.toContain('writing the codes');
  }, 300_000);
});
