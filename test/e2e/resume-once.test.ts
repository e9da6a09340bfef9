// Codes reach the user once: an order killed at `delivered` (its delivery recorded, its intent still pending)
// is never delivered again, whichever verb takes it over next: `order resume <key>`, `order resume --all`
// (with or without --json), or the same `order place` again. For codes to stdout (CSV) and to a file (JSON).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configCopy, ledger, runCli, type RunResult, servedApi, tempDir } from '../helpers/e2e.js';
import { pendingNow } from '../helpers/pending.js';

const PRODUCT = 'amazon-us-10';
const CODE = /\b[A-Z0-9]{4}(?:-[A-Z0-9]{4}){3}\b/g;

type Sink = 'csv-stdout' | 'json-file';
type Recovery = 'resume <key>' | 'resume --all' | 'resume --all --json' | 'place again';

const SINKS: Sink[] = ['csv-stdout', 'json-file'];
const RECOVERIES: Recovery[] = ['resume <key>', 'resume --all', 'resume --all --json', 'place again'];
const cases = SINKS.flatMap((sink) => RECOVERIES.map((recovery) => ({ sink, recovery })));

describe('killed at delivered, then taken over: the codes appear exactly once', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it.concurrent.each(cases.map((c, i) => ({ ...c, i, label: `${c.sink} × ${c.recovery}` })))(
    '$label',
    { timeout: 300_000 },
    async ({ sink, recovery, i }) => {
      const configDir = configCopy(served.configDir);
      const key = `restock-once-${i}-${Date.now()}`;
      const file = join(tempDir(), 'codes.json');
      const quantity = 3 + i;
      const out = sink === 'csv-stdout' ? ['--out', '-', '--format', 'csv'] : ['--out', file];
      const place = [
        'order',
        'place',
        '--product',
        PRODUCT,
        '--quantity',
        String(quantity),
        ...out,
        '--idempotency-key',
        key,
        '--interval',
        '0.05',
      ];

      const killed = await runCli(place, {
        configDir,
        env: { GIFTCODES_FAILPOINTS: 'delivered=kill' },
        timeoutMs: 120_000,
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const first = sink === 'csv-stdout' ? killed.stdout : readFileSync(file, 'utf8');
      const codes = first.match(CODE) ?? [];
      expect(codes).toHaveLength(quantity);
      const fileBefore =
        sink === 'json-file' ? createHash('sha256').update(readFileSync(file)).digest('hex') : undefined;

      const args: Record<Recovery, string[]> = {
        'resume <key>': ['order', 'resume', key],
        'resume --all': ['order', 'resume', '--all'],
        'resume --all --json': ['order', 'resume', '--all', '--json'],
        'place again': place,
      };
      const again: RunResult = await runCli(args[recovery], { configDir, timeoutMs: 120_000 });
      if (recovery === 'place again' && sink === 'csv-stdout') {
        // A key names one order: the one it placed already reached the user, so nothing is sent or written.
        expect(again.code, again.stderr).toBe(2);
        expect(again.stderr).toContain('already placed order');
      } else {
        expect(again.code, again.stderr).toBe(0);
      }
      for (const code of codes) expect(again.stdout + again.stderr, 'no code a second time').not.toContain(code);
      if (recovery === 'resume <key>')
        expect(again.stderr).toMatch(
          sink === 'csv-stdout'
            ? /had already reached you \(codes written to standard output\)/
            : /had already reached you \(codes in .*codes\.json\)/,
        );
      if (sink === 'json-file') {
        expect(createHash('sha256').update(readFileSync(file)).digest('hex'), 'the codes file untouched').toBe(
          fileBefore,
        );
        // No second codes file beside it (the killed run's --out lock may stay: a lock, not codes).
        expect(readdirSync(join(file, '..')).filter((name) => !name.endsWith('.giftcodes.lock'))).toEqual([
          'codes.json',
        ]);
      }
      const charged = (await ledger(served.server)).orders.filter((o) => o.idempotency_key === key);
      expect(charged).toHaveLength(1);
      expect(await pendingNow(configDir)).toEqual([]);
    },
  );

  it(
    'resume <key> --json prints the order (not its codes) once its codes went to stdout',
    { timeout: 300_000 },
    async () => {
      const configDir = configCopy(served.configDir);
      const key = `restock-json-${Date.now()}`;
      const killed = await runCli(
        [
          'order',
          'place',
          '--product',
          PRODUCT,
          '--quantity',
          '2',
          '--out',
          '-',
          '--format',
          'csv',
          '--idempotency-key',
          key,
          '--interval',
          '0.05',
        ],
        {
          configDir,
          env: { GIFTCODES_FAILPOINTS: 'delivered=kill' },
          timeoutMs: 120_000,
        },
      );
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const again = await runCli(['order', 'resume', key, '--json'], { configDir, timeoutMs: 120_000 });
      expect(again.code, again.stderr).toBe(0);
      const order = JSON.parse(again.stdout) as { id: string; quantity: number };
      expect(order.quantity).toBe(2);
      expect(
        (await ledger(served.server)).orders.filter((o) => o.idempotency_key === key).map((o) => o.order_id),
      ).toEqual([order.id]);
      for (const code of killed.stdout.match(CODE) ?? []) expect(again.stdout).not.toContain(code);
    },
  );
});

// Broke (a reseller's walkthrough): an interrupted order's --out name was taken by a re-run with a typo (a new
// order, delivered there); `order resume <key> --force` then wrote over that order's codes, silently, and
// `order resume --all` refused with no next step.
describe('an out file another order has delivered to since', () => {
  const served = servedApi(['--fulfil-after', '50'], { login: true });

  it('resume refuses it (--force too) naming that order; so does a new order; moved away, resume writes it', async () => {
    const configDir = configCopy(served.configDir);
    const file = join(tempDir(), 'am50.csv');
    const place = (quantity: number, env: NodeJS.ProcessEnv = {}) =>
      runCli(['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--out', file], {
        configDir,
        env,
      });
    expect((await place(2, { GIFTCODES_FAILPOINTS: 'order.accepted=kill' })).signal).toBe('SIGKILL');
    const [interrupted] = await pendingNow(configDir);
    expect((await place(3)).code).toBe(0);
    const held = readFileSync(file, 'utf8');
    const list = await runCli(['order', 'list', '--json', '--status', 'delivered'], { configDir });
    const holder = (JSON.parse(list.stdout) as { orderId: string }[])[0]!.orderId;
    const charges = (await ledger(served.server)).orders.length;

    const forced = await runCli(['order', 'resume', interrupted!.key, '--force'], { configDir });
    expect(forced.code).toBe(2);
    expect(forced.stderr).toContain(`${file} exists and holds the codes of order ${holder} (3 × ${PRODUCT}, written `);
    expect(forced.stderr).toContain('--force would write over them; this order was not resumed');
    const all = await runCli(['order', 'resume', '--all'], { configDir });
    expect(all.code).toBe(2);
    // Each line stamped in a log, as every stderr line is.
    expect(all.stderr).toMatch(
      /Z ✗ .*holds the codes of order .*\n\S+Z +hint: move that file away, then run this again/,
    );
    const fresh = await place(1);
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain(`exists and holds the codes of order ${holder}`);
    expect(fresh.stderr).toContain('--force would write over those codes');
    // The way to the codes delivered there comes first: another --out file is a new order.
    expect(fresh.stderr).toMatch(
      new RegExp(
        `hint: to get those codes again: (GIFTCODES_CONFIG_DIR=\\S+ )?giftcodes codes get ${holder} --out CODES_FILE; another --out file places a new order`,
      ),
    );
    expect(readFileSync(file, 'utf8')).toBe(held);
    expect((await ledger(served.server)).orders.length).toBe(charges);

    renameSync(file, `${file}.kept`);
    const resumed = await runCli(['order', 'resume', interrupted!.key], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(3);
  });

  // Broke (review): codes get finished the order, but its record kept the --out it was placed with, so order show
  // and the refusal above named a file that held another order's codes.
  it('an interrupted order finished by codes get to another file: its record names that file', async () => {
    const configDir = configCopy(served.configDir);
    const dir = tempDir();
    const placed = await runCli(
      ['order', 'place', '--product', PRODUCT, '--quantity', '2', '--out', join(dir, 'first.csv')],
      { configDir, env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' } },
    );
    expect(placed.signal).toBe('SIGKILL');
    const [interrupted] = await pendingNow(configDir);
    const other = join(dir, 'other.csv');
    const got = await runCli(['codes', 'get', interrupted!.orderId!, '--out', other], { configDir });
    expect(got.code, got.stderr).toBe(0);
    expect(await pendingNow(configDir)).toEqual([]);
    const list = await runCli(['order', 'list', '--json'], { configDir });
    const records = JSON.parse(list.stdout) as { key: string; out?: string; outcome: string }[];
    expect(records.find((r) => r.key === interrupted!.key)).toMatchObject({ outcome: 'delivered', out: other });
  });

  // Broke (review of the refusal above): it met orders whose file was theirs to write.
  it('an order placed with --force, or one whose own codes file was recorded, is resumed as before', async () => {
    const configDir = configCopy(served.configDir);
    const file = join(tempDir(), 'nightly.csv');
    const place = (quantity: number, extra: string[], env: NodeJS.ProcessEnv = {}) =>
      runCli(['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--out', file, ...extra], {
        configDir,
        env,
      });
    expect((await place(3, [])).code).toBe(0);
    // A nightly job that writes over its file, killed after the order was accepted: resume --all finishes it.
    expect((await place(2, ['--force'], { GIFTCODES_FAILPOINTS: 'order.accepted=kill' })).signal).toBe('SIGKILL');
    const all = await runCli(['order', 'resume', '--all'], { configDir });
    expect(all.code, all.stderr).toBe(0);
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(3);
    // The file moved away, a new order killed right after its codes took the name: its own file, complete.
    renameSync(file, `${file}.night1`);
    expect((await place(4, [], { GIFTCODES_FAILPOINTS: 'codes.renamed=kill' })).signal).toBe('SIGKILL');
    const [own] = await pendingNow(configDir);
    const resumed = await runCli(['order', 'resume', own!.key], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).not.toContain('holds the codes of order');
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(5);
  });
});
