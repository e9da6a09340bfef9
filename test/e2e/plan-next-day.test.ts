// A plan file run again (the next day's restock) without --batch orders nothing, every row delivered by an earlier
// run, and exits 0: a reseller's second day ordered nothing and was not told how it would (a person's day). The run
// now says so, with the --batch that orders the plan again; the --json document and the exit code are unchanged.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configCopy, runCli, servedApi, tempDir, unstamped } from '../helpers/e2e.js';

const served = servedApi(['--fulfil-after', '0'], { login: true });
const NOTICE = /every row of restock\.csv was delivered by an earlier run, so nothing was ordered/;

describe('a plan run again without --batch', () => {
  it("says nothing was ordered and names the --batch that orders it again, before the log's done: line", async () => {
    const configDir = configCopy(served.configDir);
    const cwd = tempDir();
    writeFileSync(join(cwd, 'restock.csv'), 'product,quantity,out\namazon-us-10,2,am10.csv\nsteam-us-20,1\n');
    const first = await runCli(['order', 'place', '--plan', 'restock.csv'], { configDir, cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(NOTICE);

    const again = await runCli(['order', 'place', '--plan', 'restock.csv'], { configDir, cwd });
    expect(again.code, again.stderr).toBe(0);
    const lines = unstamped(again.stderr).trimEnd().split('\n');
    expect(lines.at(-2)).toMatch(NOTICE);
    expect(lines.at(-2)).toMatch(/--batch \d{4}-\d\d-\d\d \(a nightly job: --batch "\$\(date \+%F\)"\)$/);
    expect(lines.at(-1)).toMatch(/^done: plan restock\.csv: 0 of 2 rows ordered/);

    // --json: the document as before, and no such line; a batch run again (a re-run of that night) is not told.
    const json = await runCli(['order', 'place', '--plan', 'restock.csv', '--json'], { configDir, cwd });
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { already?: boolean }[]).every((r) => r.already)).toBe(true);
    expect(json.stderr).not.toMatch(NOTICE);
    writeFileSync(join(cwd, 'restock.csv'), 'product,quantity,out\namazon-us-10,2,am10-{batch}.csv\nsteam-us-20,1\n');
    const batch = ['order', 'place', '--plan', 'restock.csv', '--batch', 'night-1'];
    const night = await runCli(batch, { configDir, cwd });
    expect(night.code, night.stderr).toBe(0);
    const rerun = await runCli(batch, { configDir, cwd });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/0 of 2 rows ordered/);
    expect(rerun.stderr).not.toMatch(NOTICE);
  });
});
