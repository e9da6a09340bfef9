// Orders end to end: placement, waiting, the exit codes of docs/exit-codes.md, live confirmation, and a replay after a
// dropped connection. Failed and timed-out orders, interruption and resume: order-endings.test.ts.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEMO_KEYS,
  journalFiles,
  ledger,
  loggedIn,
  runCli,
  servedApi,
  tempDir,
  unstamped,
  withServer,
} from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

describe('order place, show, watch', () => {
  const served = servedApi(['--fulfil-after', '400'], { login: true });

  it('places an order once and prints the order as the server sent it', async () => {
    const { configDir } = served;
    const before = (await ledger(served.server)).orders.length;
    const result = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--json'], {
      configDir,
    });
    expect(result.code, result.stderr).toBe(0);
    const order = JSON.parse(result.stdout);
    expect(order).toMatchObject({ product_id: 'amazon-us-25', quantity: 3, object: 'order' });
    expect(order.id).toMatch(/^ord_/);
    const after = await ledger(served.server);
    expect(after.orders.length).toBe(before + 1);
    expect(after.orders.at(-1)).toMatchObject({ order_id: order.id });
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('shows an order and watches it to completion (exit 0, no escape codes off a terminal)', async () => {
    const { configDir } = served;
    // The order to read is placed through the API itself: placing one is the subject further up, not here.
    const res = await fetch(`${served.url}/v1/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': DEMO_KEYS.test, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body: JSON.stringify({ product_id: 'steam-us-20', quantity: 1 }),
    });
    expect(res.status).toBe(201);
    const placed = (await res.json()) as { id: string };
    const shown = await runCli(['order', 'show', placed.id, '--json'], { configDir });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout).id).toBe(placed.id);
    const watched = await runCli(['order', 'watch', placed.id, '--interval', '0.1'], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stdout).toContain('completed');
    expect(watched.stderr + watched.stdout).not.toContain('\u001b');
    const json = await runCli(['order', 'watch', placed.id, '--interval', '0.1', '--json'], { configDir });
    expect(JSON.parse(json.stdout)).toMatchObject({ id: placed.id, status: 'completed' });
  });

  it('place --wait ends completed', async () => {
    const { configDir } = served;
    const result = await runCli(
      ['order', 'place', '--product', 'apple-us-25', '--quantity', '2', '--wait', '--interval', '0.1', '--json'],
      { configDir },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).status).toBe('completed');
  });

  it('place --out - puts only the codes on stdout', async () => {
    const { configDir } = served;
    const result = await runCli(
      [
        'order',
        'place',
        '--product',
        'amazon-us-25',
        '--quantity',
        '5',
        '--out',
        '-',
        '--format',
        'csv',
        '--interval',
        '0.1',
      ],
      { configDir },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]!.startsWith('order_id,code')).toBe(true);
    expect(lines).toHaveLength(6);
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('place --out refuses an existing file before anything is placed (exit 2)', async () => {
    const { configDir } = served;
    const before = (await ledger(served.server)).orders.length;
    const file = join(configDir, 'exists.csv');
    writeFileSync(file, 'keep me');
    const result = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', file], {
      configDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--force');
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    expect((await ledger(served.server)).orders.length).toBe(before);
  });

  it('refuses flags that would do nothing, before anything is sent (exit 2)', async () => {
    const { configDir } = served;
    for (const args of [
      ['--timeout', '5'],
      ['--interval', '1'],
      ['--format', 'csv'],
      ['--force'],
      ['--out', '-', '--format', 'csv', '--json'],
    ]) {
      const result = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', ...args], {
        configDir,
      });
      expect(result.code, args.join(' ')).toBe(2);
    }
    // --query of the order beside --out -, which leaves the order off stdout for the codes: ignored without a word
    // before (a review), refused now, before anything is sent.
    const { server } = served;
    const before = (await ledger(server)).orders.length;
    const queried = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', '-', '--query', '[].code'],
      { configDir },
    );
    expect(queried.code, queried.stderr).toBe(2);
    expect(queried.stderr).toContain('--query applies to the order, which --out - leaves off standard output');
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it('rejects bad quantities and products before writing or sending anything (exit 2)', async () => {
    const { server } = served;
    const fresh = await loggedIn(server);
    const before = (await ledger(server)).orders.length;
    for (const args of [
      ['--product', 'amazon-us-25', '--quantity', '0'],
      ['--product', 'amazon-us-25', '--quantity', 'ten'],
      ['--product', 'amazon-us-25', '--quantity', '-1'],
      ['--product', 'amazon-us-25', '--quantity', '1.5'],
      ['--product', '', '--quantity', '1'],
      ['--quantity', '1'],
      ['--product', 'amazon-us-25'],
    ]) {
      const result = await runCli(['order', 'place', ...args], { configDir: fresh });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(journalFiles(fresh)).toEqual([]);
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it('an unknown product is the API refusing (exit 4) and leaves nothing pending', async () => {
    const { configDir } = served;
    const result = await runCli(['order', 'place', '--product', 'no-such-product', '--quantity', '1'], { configDir });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 400');
    expect(journalFiles(configDir)).toEqual([]);
  });

  it('a reused idempotency key with another body is refused (exit 4)', async () => {
    const { configDir } = served;
    const key = `test-key-${Date.now()}`;
    // The key's first use is sent to the API itself: the CLI sends a given key as it is, and its refusal of the
    // second body is the subject.
    const first = await fetch(`${served.url}/v1/orders`, {
      method: 'POST',
      headers: { 'X-API-Key': DEMO_KEYS.test, 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ product_id: 'amazon-us-10', quantity: 1 }),
    });
    expect(first.status).toBe(201);
    const second = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--idempotency-key', key, '--json'],
      { configDir },
    );
    expect(second.code).toBe(4);
    expect(JSON.parse(second.stderr).error).toMatchObject({ code: 'idempotency_key_reused', status: 422, exitCode: 4 });
  });

  it('an idempotency key shaped like an API key is refused before anything is sent: masked in the journal, it would be another key on resume (a second charge)', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    for (const key of ['sc_live_0123456789abcdef0123456789abcdef', 'order-SC_TEST_abcdefgh12345678']) {
      const result = await runCli(
        ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key, '--json'],
        { configDir },
      );
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stderr).error.message).toContain('must not look like an API key');
      expect(result.stderr).not.toContain(key);
    }
    expect((await ledger(server)).orders.length).toBe(before);
    expect(await pendingNow(configDir)).toEqual([]);
  });

  // A review's script read `orderId` (order list's field) where the order says `id`: it printed null, the order was
  // taken as delivered, and the corrected re-run was a second charge.
  // A review (stop 77, F2): a --query that fails when applied (`abs(id)`: a type error, which compiling cannot see)
  // exited 2, `bad_query`, after the order was placed, and said nothing of it: exit 2 reads "nothing was sent". It is
  // exit 8 now, naming the order and that it stays pending, as a query that selects nothing is; the same command with
  // a working query picks it up, no second charge.
  it('a --query that fails when applied to the placed order: exit 8, the order named and kept pending; the same command with a working query picks it up', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '4', '--raw'];
    const failed = await runCli([...place, '--query', 'abs(id)'], { configDir });
    expect(failed.code, failed.stderr).toBe(8);
    expect(failed.stdout).toBe('');
    const said = `${failed.stderr}`.replace(/\s+/g, ' ');
    expect(said).toMatch(/--query: .*: the order ord_\w+ it was given is not taken as having reached you/);
    expect(said).toContain('query_failed');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    expect(await pendingNow(configDir)).toHaveLength(1);
    await pickedUpByRightQuery(place, configDir, server, before);
  });

  it('a --query that prints null leaves the order pending (exit 8: the order was sent, its output reached nobody); the same command with a right query picks it up, no second charge', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '3', '--raw'];
    const wrong = await runCli([...place, '--query', 'orderId'], { configDir });
    expect(wrong.code, wrong.stderr).toBe(8);
    expect(wrong.stdout).toBe('null\n');
    expect(wrong.stderr).toContain('--query "orderId" gave null');
    expect(wrong.stderr).toContain('is not taken as having reached you');
    expect((await ledger(server)).orders.length).toBe(before + 1);
    const pending = (await pendingNow(configDir)) as unknown[];
    expect(pending).toHaveLength(1);
    // resume --all prints a list, from which a field's name selects nothing: kept pending too (a review's
    // `--query id`, the field the hint names, settled it with null printed).
    const all = await runCli(['order', 'resume', '--all', '--query', 'id'], { configDir });
    expect(all.code, all.stderr).toBe(8);
    // Its hint's example is for a list, whatever its length: `id` again looped (a second review).
    expect(all.stderr).toContain('(e.g. [].order.id)');
    expect(await pendingNow(configDir)).toHaveLength(1);
    const quoted = await runCli([...place, '--query', '"orderId"'], { configDir });
    expect(quoted.code, quoted.stderr).toBe(8);
    // A path whose first name the order lacks (review F7: `data.id`, an API wrapper's shape) selects nothing as much.
    const wrapped = await runCli([...place, '--query', 'data.id'], { configDir });
    expect(wrapped.code, wrapped.stderr).toBe(8);
    expect(wrapped.stderr).toContain('--query "data.id" gave null (no such field: data)');
    expect(await pendingNow(configDir)).toHaveLength(1);
    const id = await pickedUpByRightQuery(place, configDir, server, before);
    // Not for a field the order has whose value is null (a nightly --query failure_reason), nor where the codes
    // went to a file, nor for an order watched: each reached the user, exit 0, nothing left pending.
    const nightly = await runCli([...place, '--wait', '--query', 'failure_reason'], { configDir });
    expect(nightly.code, nightly.stderr).toBe(0);
    const filed = await runCli([...place, '--out', join(tempDir(), 'c.csv'), '--query', 'orderId'], { configDir });
    expect(filed.code, filed.stderr).toBe(0);
    const watched = await runCli(['order', 'watch', id, '--query', 'orderId'], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    expect(await pendingNow(configDir)).toEqual([]);
    expect((await ledger(server)).orders.length).toBe(before + 3);
  });

  // A review (stop 78, F1): order list's idiom `[0].orderId --raw` on order place (an object, whose field is `id`)
  // printed null, exit 0, and the order counted as delivered: a charge whose id reached nobody. So did a query
  // gathering fields into one document (`{order: orderId, status: status}`), one of them a name the order lacks.
  it('an index asked of the order, or a gathered field it lacks, selects nothing too: exit 8, the order named and kept pending', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '7', '--raw'];
    const indexed = await runCli([...place, '--query', '[0].orderId'], { configDir });
    expect(indexed.code, indexed.stderr).toBe(8);
    expect(indexed.stdout).toBe('null\n');
    const said = indexed.stderr.replace(/\s+/g, ' ');
    expect(said).toContain('--query "[0].orderId" gave null (the document is not a list: [0] selects nothing)');
    // The order charged is named, so a person reading the log knows which.
    expect(said).toMatch(/the order ord_\w+ it was given is not taken as having reached you/);
    expect((await ledger(server)).orders.length).toBe(before + 1);
    expect(await pendingNow(configDir)).toHaveLength(1);
    const gathered = await runCli([...place, '--query', '{order: orderId, status: status}'], { configDir });
    expect(gathered.code, gathered.stderr).toBe(8);
    expect(gathered.stderr.replace(/\s+/g, ' ')).toContain(
      '--query "{order: orderId, status: status}" gave null for orderId (no such field: orderId); its fields: id, status,',
    );
    const listed = await runCli([...place, '--query', '[orderId][0]'], { configDir });
    expect(listed.code, listed.stderr).toBe(8);
    expect(await pendingNow(configDir)).toHaveLength(1);
    // Gathered fields the order has, one of them null, reached the script: exit 0, nothing left pending.
    const right = await runCli([...place, '--query', '{order: id, why: failure_reason}'], { configDir });
    expect(right.code, right.stderr).toBe(0);
    expect(JSON.parse(right.stdout)).toMatchObject({ order: expect.stringMatching(/^ord_/), why: null });
    expect(await pendingNow(configDir)).toEqual([]);
    expect((await ledger(server)).orders.length).toBe(before + 1);
  });

  // A second review (stop 78): a --query printing no order id (`status`, `*.foo`, a plan's `[].foo`) left the charge
  // unseen: nine orders printed as "pending", [] or null, exit 0, and order pending then said every order reached
  // the user. What the query prints is the script's answer; the orders are said on stderr with their ids.
  it('a --query that prints no id of the orders placed says them on stderr, in every mode; one that prints the id says nothing', async () => {
    const { configDir } = served;
    const place = ['order', 'place', '--product', 'amazon-us-25', '--quantity', '8'];
    for (const query of ['status', '*.foo']) {
      const run = await runCli([...place, '--query', query, '--quiet'], { configDir });
      expect(run.code, run.stderr).toBe(0);
      expect(unstamped(run.stderr)).toMatch(
        /^warning: --query printed no id of the order ord_\w+ this run placed or finished \(it is in giftcodes order list\)$/m,
      );
    }
    const named = await runCli([...place, '--query', '{order: id, status: status}'], { configDir });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).not.toContain('printed no id');
    // Nor where the codes went to a file, each of whose lines holds the order's id.
    const filed = await runCli([...place, '--out', join(tempDir(), 'f.csv'), '--query', 'status'], { configDir });
    expect(filed.code, filed.stderr).toBe(0);
    expect(filed.stderr).not.toContain('printed no id');
    const dir = tempDir();
    const plan = join(dir, 'p.csv');
    writeFileSync(plan, 'amazon-us-25,9\nsteam-us-20,9\n');
    const rows = await runCli(['order', 'place', '--plan', plan, '--query', '[].foo'], { configDir });
    expect(rows.code, rows.stderr).toBe(0);
    expect(unstamped(rows.stderr)).toMatch(
      /--query printed no id of the orders ord_\w+, ord_\w+ this run placed or finished/,
    );
    // order watch finishing an interrupted order place, through such a query (a third review).
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-25', '--quantity', '11'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const left = (await pendingNow(configDir))[0] as unknown as { key: string; orderId: string };
    const watched = await runCli(['order', 'watch', left.key, '--query', 'status'], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    expect(unstamped(watched.stderr)).toContain(
      `warning: --query printed no id of the order ${left.orderId} this run finished (it is in giftcodes order list)`,
    );
  });

  // It said "already holds these codes; it was left as it was", then "✓ wrote 1 code to …" (a review).
  it('order watch --out of a file that already holds its codes says so once, and writes nothing', async () => {
    const { configDir } = served;
    const out = join(tempDir(), 'w.csv');
    const placed = await runCli(
      ['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--out', out, '--json'],
      {
        configDir,
      },
    );
    expect(placed.code, placed.stderr).toBe(0);
    const id = (JSON.parse(placed.stdout) as { id: string }).id;
    const before = readFileSync(out, 'utf8');
    const watched = await runCli(['order', 'watch', id, '--out', out], { configDir });
    expect(watched.code, watched.stderr).toBe(0);
    expect(watched.stderr).toContain(`✓ the codes were already written to ${out} (csv)`);
    expect(watched.stderr).not.toContain('✓ wrote');
    expect(watched.stderr).not.toContain('already holds');
    expect(readFileSync(out, 'utf8')).toBe(before);
  });

  it('an idempotency key with quotes or a backslash is refused before anything is sent: a server may read "k" as k, which the record of k would not know', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    for (const key of ['"inv-7001"', 'inv\\7001', 'a"b']) {
      const result = await runCli(
        ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--idempotency-key', key, '--json'],
        { configDir },
      );
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stderr).error.message).toContain('must not hold quotes or backslashes');
    }
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it("an idempotency key that begins with plan- is refused before anything is sent: the journal reads such a key as a plan row's, and skips a given key's checks", async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    const result = await runCli(
      [
        'order',
        'place',
        '--product',
        'amazon-us-10',
        '--quantity',
        '1',
        '--idempotency-key',
        'plan-q4-restock',
        '--json',
      ],
      { configDir },
    );
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stderr).error;
    expect(error.message).toContain("keys that begin with plan- are the plan's own");
    expect(error.message).toContain('e.g. q4-restock');
    expect((await ledger(server)).orders.length).toBe(before);
  });

  it('a GIFTCODES_API_KEY ending in a carriage return (a key file with Windows line endings) is refused before anything is sent, and leaves no order pending', async () => {
    const { configDir, server } = served;
    const before = (await ledger(server)).orders.length;
    const env = { GIFTCODES_API_KEY: `${DEMO_KEYS.test}\r` };
    const result = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'], {
      configDir,
      baseUrl: server.url,
      env,
    });
    expect(result.code, result.stderr).toBe(3);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1) ?? '').error;
    expect(error.code).toBe('invalid_api_key_format');
    expect(error.message).toBe('the key in GIFTCODES_API_KEY holds a carriage return, which no API key has');
    expect(error.hint).toContain("tr -d '\\r'");
    expect(result.stderr).not.toContain(DEMO_KEYS.test.slice(8));
    expect((await ledger(server)).orders.length).toBe(before);
    // What order pending lists, read in this process (its runs are the subject of order-endings.test.ts).
    expect(await pendingNow(configDir)).toEqual([]);
  });

  it('a live order without --yes and without a terminal exits 2 and sends nothing', async () => {
    const { server } = served;
    const before = (await ledger(server)).orders.length;
    const result = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1'], {
      baseUrl: server.url,
      env: { GIFTCODES_API_KEY: DEMO_KEYS.live },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes');
    expect((await ledger(server)).orders.length).toBe(before);
    const confirmed = await runCli(
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--yes', '--json'],
      {
        baseUrl: server.url,
        env: { GIFTCODES_API_KEY: DEMO_KEYS.live },
      },
    );
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(JSON.parse(confirmed.stdout).environment).toBe('live');
  });
});

describe('resume after a dropped connection', () => {
  it('a second run replays the committed order instead of charging again', async () => {
    await withServer(['--drop-after-commit', '1'], async (server) => {
      // The key and the server from the environment, not a login (a CLI run of its own: this server is a kind of
      // its own for loggedIn's copies); both runs share the config dir, and so the journal.
      const configDir = tempDir();
      const env = { GIFTCODES_API_KEY: DEMO_KEYS.test };
      const first = await runCli(['order', 'place', '--product', 'amazon-us-50', '--quantity', '7', '--retries', '0'], {
        configDir,
        baseUrl: server.url,
        env,
      });
      expect(first.code).toBe(5);
      expect(first.stderr).toMatch(/may or may not have been placed/);
      expect((await ledger(server)).orders).toHaveLength(1);
      const second = await runCli(['order', 'place', '--product', 'amazon-us-50', '--quantity', '7', '--json'], {
        configDir,
        baseUrl: server.url,
        env,
      });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('resuming');
      const ledgerAfter = await ledger(server);
      expect(ledgerAfter.orders).toHaveLength(1);
      expect(JSON.parse(second.stdout).id).toBe(ledgerAfter.orders[0]!.order_id);
    });
  });
});

/**
 * The same `order place` with a --query that names a field of the order: it picks up the order a failed query left
 * pending (printing its id), and charges nothing more than the one order since `before`. Returns the order's id.
 */
async function pickedUpByRightQuery(
  place: readonly string[],
  configDir: string,
  server: Parameters<typeof ledger>[0],
  before: number,
): Promise<string> {
  const right = await runCli([...place, '--query', 'id'], { configDir });
  expect(right.code, right.stderr).toBe(0);
  expect(right.stdout).toMatch(/^ord_\w+\n$/);
  expect((await ledger(server)).orders.length).toBe(before + 1);
  expect(await pendingNow(configDir)).toEqual([]);
  return right.stdout.trim();
}
