// A plan's rows each said the CSV warnings of their own order: a 12-row plan printed six copies of a four-line
// warning about digits a spreadsheet changes. The plan says each warning once, with its totals.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_KEYS, ledger, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';
import { giftcodesTerminals } from '../helpers/tmux.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
const inTerminal = giftcodesTerminals();

/** The cells of a CSV file a spreadsheet would change: digits with a leading 0, or 16 digits and more. */
function atRisk(path: string): number {
  return readFileSync(path, 'utf8')
    .split('\r\n')
    .slice(1)
    .flatMap((line) => line.split(','))
    .filter((cell) => /^(?:0[0-9]+|[0-9]{16,})$/.test(cell)).length;
}

describe('a plan writing CSV files', () => {
  it('says the digits a spreadsheet changes once, with the values and the files of the whole plan', async () => {
    const { configDir, url: baseUrl } = served;
    const dir = tempDir();
    const outs = Array.from({ length: 6 }, (_, i) => join(dir, `amz-${i + 1}.csv`));
    writeFileSync(
      join(dir, 'plan.csv'),
      `product,quantity,out\n${outs.map((out) => `amazon-us-25,20,${out}`).join('\n')}\n`,
    );
    const result = await runCli(['order', 'place', '--plan', join(dir, 'plan.csv')], { configDir, baseUrl });
    expect(result.code, result.stderr).toBe(0);
    const values = outs.map(atRisk);
    const files = values.filter((n) => n > 0).length;
    // 120 sandbox PINs of four digits: some start with 0 in more than one file.
    expect(files).toBeGreaterThan(1);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        ` warning: ${values.reduce((a, b) => a + b, 0)} values in ${files} files would change in a spreadsheet \\(leading 0, 16\\+ digits, 1E5, TRUE\\): import as text, or use \\.xlsx$`,
      ),
    );
  }, 60_000);
});

// An adversarial review: a row copied down by accident (2 × amazon-us-10 on two lines, no out) was charged twice, and
// neither the run nor its --dry-run said so. Both say it now, and run (identical rows may be meant: cron goes on).
describe('a plan with the same row twice and no out file', () => {
  it('the dry run and the run name its lines; the run orders both', async () => {
    const { configDir, url: baseUrl, server } = served;
    const plan = join(tempDir(), 'dup.csv');
    writeFileSync(plan, 'product,quantity\namazon-us-10,2\namazon-us-10,2\n');
    const note = 'lines 2 and 3 are the same row (2 × amazon-us-10, no out file), an order each';
    const dry = await runCli(['order', 'place', '--plan', plan, '--dry-run'], { configDir, baseUrl });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr.replace(/\s+/g, ' ')).toContain(note);
    const before = (await ledger(server)).orders.length;
    const run = await runCli(['order', 'place', '--plan', plan], { configDir, baseUrl });
    expect(run.code, run.stderr).toBe(0);
    // In the run's summary line, the log's last.
    expect(run.stderr.split('\n').find((line) => line.includes(' done: plan '))).toContain(`; ${note}; took `);
    expect((await ledger(server)).orders.length).toBe(before + 2);
  }, 60_000);

  // A review (stop 77, F4): said only in the summary line, which --quiet and --json leave out, a cron line with either
  // ordered the copied-down row twice with nothing on stderr. Said there as a warning, once, before the orders.
  it('under --quiet or --json it is a warning on stderr, said once; the run orders both', async () => {
    const { configDir, url: baseUrl, server } = served;
    for (const [i, mode] of (['--quiet', '--json'] as const).entries()) {
      const plan = join(tempDir(), `dup${mode}.csv`);
      writeFileSync(plan, `product,quantity\namazon-us-10,${3 + i}\namazon-us-10,${3 + i}\n`);
      const before = (await ledger(server)).orders.length;
      const run = await runCli(['order', 'place', '--plan', plan, mode], { configDir, baseUrl });
      expect(run.code, run.stderr).toBe(0);
      const said = run.stderr.split('\n').filter((line) => line.includes('are the same row'));
      expect(said, run.stderr).toHaveLength(1);
      expect(said[0]).toContain(
        `warning: lines 2 and 3 are the same row (${3 + i} × amazon-us-10, no out file), an order each`,
      );
      expect((await ledger(server)).orders.length).toBe(before + 2);
    }
  }, 60_000);

  it("a live plan's question names them too (the last word before the charge); No orders nothing", async () => {
    const configDir = await loggedIn(served.server, BOTH_KEYS);
    const plan = join(tempDir(), 'dup.csv');
    writeFileSync(plan, 'product,quantity\nsteam-us-20,1\nsteam-us-20,1\n');
    const before = (await ledger(served.server)).orders.length;
    const t = inTerminal(['order', 'place', '--env', 'live', '--plan', plan], configDir, {
      GIFTCODES_BASE_URL: served.url,
    });
    const asked = (await t.waitFor(/Place 2 LIVE orders/, 30_000)).replace(/\s+/g, ' ');
    expect(asked).toContain('Lines 2 and 3 are the same row (1 × steam-us-20, no out file), an order each.');
    t.answer('n');
    expect(await t.waitFor(/\[exit \d+\]/, 30_000)).toContain('[exit 130]');
    expect((await ledger(served.server)).orders.length).toBe(before);
  }, 60_000);
});
