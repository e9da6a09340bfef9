// A plan's rows each said the CSV warnings of their own order: a 12-row plan printed six copies of a four-line
// warning about digits a spreadsheet changes. The plan says each warning once, with its totals.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, servedApi, tempDir } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });

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
        ` warning: ${values.reduce((a, b) => a + b, 0)} values in ${files} files would change in a spreadsheet \\(leading 0, 16\\+ digits\\): import as text, or use \\.xlsx$`,
      ),
    );
  }, 60_000);
});
