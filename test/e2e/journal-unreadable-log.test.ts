// A run killed after its POST (charged; the intent `sending` in its log) whose log then holds one line this
// version cannot read (damage, or a line of another version of giftcodes): the same `order place` resumes the
// charged order instead of placing a second, and the log is kept aside for a person, reported by `order pending`.
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ledger, runCli, servedApi } from '../helpers/e2e.js';

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
