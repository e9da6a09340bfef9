// A run killed after its POST (charged; the intent `sending` in its log) whose log then holds one line this
// version cannot read (damage, or a line of another version of giftcodes): the same `order place` resumes the
// charged order instead of placing a second, and the log is kept aside for a person, reported by `order pending`.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledger, loggedIn, runCli, servedApi, tempDir } from '../helpers/e2e.js';

const api = servedApi([], { login: true });
const PRODUCT = 'amazon-us-25';

describe('a dead run’s log with an unreadable line', () => {
  it('its charged order is resumed by the same command, never placed twice; the log stays aside, reported', async () => {
    const { configDir } = api;
    const place = ['order', 'place', '--product', PRODUCT, '--quantity', '1', '--yes', '--json'];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal).toBe('SIGKILL');
    const journal = join(configDir, 'journal');
    const [log] = readdirSync(journal).filter((n) => n.endsWith('.log'));
    appendFileSync(join(journal, log!), `${JSON.stringify({ key: 'other', intent: { version: 3 } })}\n`);
    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(0);
    const orders = (await ledger(api.server)).orders.filter((o) => o.product_id === PRODUCT);
    expect(orders).toHaveLength(1);
    expect(readdirSync(journal)).toContain(`${log!}.unreadable`);
    const pending = await runCli(['order', 'pending', '--json'], { configDir });
    expect(JSON.parse(pending.stdout)).toEqual([]);
    expect(pending.stderr, pending.stderr).toContain(`${log!}.unreadable (line 4 is not a journal entry`);
  });
});

// A review: a run that gave up waiting left its intent as a file, then damaged. The same command with its key sent
// the key again, was answered with its own order, took it for another machine's (exit 4) and hinted a new order: a
// second charge for a person who followed it. Another order's run said nothing of the file.
describe('an intent file that cannot be read', () => {
  it("refuses its key's command (exit 8, nothing sent), and another order's run warns of it", async () => {
    const configDir = await loggedIn(api.server);
    const key = `damaged-${process.pid}`;
    const place = ['order', 'place', '--product', PRODUCT, '--quantity', '1', '--idempotency-key', key];
    const first = await runCli([...place, '--wait', '--timeout', '0.1'], { configDir });
    expect(first.code, first.stderr).toBe(7);
    const journal = join(configDir, 'journal');
    const files = readdirSync(journal).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(1);
    const file = join(journal, files[0]!);
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
    const before = (await ledger(api.server)).orders.length;
    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(8);
    expect(again.stderr).toContain(`error: the journal's file of the key ${key}, ${file}, cannot be read`);
    expect(again.stderr).toContain('nothing was sent');
    expect(again.stderr).not.toContain('order place');
    const other = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'], { configDir });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toContain(
      `warning: 1 journal file could not be read (${file}: not valid JSON); each may be an order an earlier run sent`,
    );
    expect((await ledger(api.server)).orders.length).toBe(before + 1);
    expect(readFileSync(file, 'utf8')).toHaveLength(100);
  });
});

// A review: the key's intent in a dead run's log, its lines damaged: the same command sent the key again, was answered
// with its own order, took it for another run's (exit 4) and hinted a new order, a second charge.
describe("a key whose intent is in a log's unreadable lines", () => {
  it("the refusal's hint is that order's codes get, never a new order: one charge, its codes delivered once", async () => {
    const configDir = await loggedIn(api.server);
    const key = `damaged-log-${process.pid}`;
    const place = ['order', 'place', '--product', 'amazon-us-50', '--quantity', '2', '--idempotency-key', key];
    const killed = await runCli(place, { configDir, env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' } });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const journal = join(configDir, 'journal');
    const log = join(
      journal,
      readdirSync(journal).find((n) => n.endsWith('.log'))!,
    );
    const [header, ...entries] = readFileSync(log, 'utf8').trimEnd().split('\n');
    writeFileSync(log, [header, ...entries.map((entry) => `${entry.slice(0, 40)}#garbage`)].join('\n') + '\n');
    const charges = async (): Promise<number> =>
      (await ledger(api.server)).orders.filter((o) => o.idempotency_key === key).length;
    expect(await charges()).toBe(1);
    const again = await runCli(place, { configDir });
    expect(again.code, again.stderr).toBe(4);
    const hint =
      /hint: .*may hold this very order: if it is this directory's own, get its codes with (GIFTCODES_CONFIG_DIR=\S+ )?giftcodes codes get (ord_\w+) --out CODES_FILE --wait; order nothing anew before you know/.exec(
        again.stderr,
      );
    expect(hint, again.stderr).not.toBeNull();
    expect(again.stderr).not.toMatch(/order place/);
    const codes = join(tempDir(), 'codes.csv');
    const got = await runCli(['codes', 'get', hint![2]!, '--out', codes, '--wait'], { configDir });
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(codes, 'utf8').trim().split('\r\n')).toHaveLength(3);
    expect(await charges()).toBe(1);
  });
});

// Another review: with the order above kept pending instead (exit 8), another directory's plan, run here with one
// unrelated unreadable file in the journal, was delivered here on its second run: the same codes in two places.
describe("another directory's plan row, with an unrelated unreadable file here", () => {
  it('is refused as placed elsewhere each run: its codes are never written here', async () => {
    const [x, y] = [await loggedIn(api.server), await loggedIn(api.server)];
    mkdirSync(join(y, 'journal'), { recursive: true });
    writeFileSync(join(y, 'journal', '0123456789abcdef0123456789abcdef01234567.json'), '{garbage');
    const [dx, dy] = [tempDir(), tempDir()];
    for (const dir of [dx, dy])
      writeFileSync(join(dir, 'night.csv'), 'product,quantity,out\nsteam-us-20,8,codes.csv\n');
    const run = (configDir: string, dir: string) =>
      runCli(['order', 'place', '--plan', join(dir, 'night.csv'), '--batch', `b-${process.pid}`], { configDir });
    expect((await run(x, dx)).code).toBe(0);
    for (let i = 0; i < 2; i++) {
      const here = await run(y, dy);
      expect(here.code, here.stderr).toBe(4);
      expect(here.stderr).toContain('may hold this very order');
    }
    expect(readdirSync(dy)).toEqual(['night.csv']);
  });
});
