// The failpoint matrix (CONTRIBUTING.md): every durable step × every way an order reaches the user. The CLI is
// killed (SIGKILL) exactly at the step, the natural recovery runs (the same command again, when an intent
// whose outcome never reached the user is left, read from the journal's files), and then: one charge on
// the server's ledger, the order on stdout or a complete codes file, and no intent file left in the journal
// (read directly, not through `order pending`, which settles what reached the user) except one killed after
// its delivery was recorded, which the next journal command settles. Unreachable combinations are left out
// by construction (listed in UNREACHABLE).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { storedRecords } from '../helpers/journal.js';
import { pendingNow } from '../helpers/pending.js';
import { FAILPOINTS, type Failpoint } from '../../src/failpoints.js';
import { ageDecrypt, ensureAge, keyPair } from '../helpers/age.js';
import { ensureOpenpyxl, PYTHON } from '../helpers/openpyxl.js';
import {
  journalIntents,
  ledger,
  runCli,
  servedApi,
  tempDir,
  type JournalIntent,
  type RunResult,
} from '../helpers/e2e.js';

const PRODUCT = 'amazon-us-25';
const STDOUT_POINTS: Failpoint[] = [
  'intent.written',
  'sending.written',
  'request.sent',
  'order.accepted',
  'delivered',
  'resolved',
];
const RESUME_POINTS: Failpoint[] = ['request.sent', 'order.accepted', 'delivered', 'resolved'];
const FILE_ONLY_POINTS: Failpoint[] = ['codes.tmp-written', 'codes.renamed', 'delivered', 'resolved'];
const ALL_POINTS = FAILPOINTS.filter((p) => p !== 'journal.locked');
/** A plan row with an out file meets every step of the machine, as place --out does. */
const PLAN_POINTS = ALL_POINTS;

interface Ctx {
  configDir: string;
  /** The age recipient of the encrypted modes. */
  recipient: string;
  quantity: number;
  file: string;
  key?: string;
  orderId?: string;
}

interface Mode {
  name: string;
  points: Failpoint[];
  /** Leaves the pending intent the mode recovers (a place killed at one step). */
  setup?: 'sending' | 'accepted';
  args: (c: Ctx) => string[];
  /** Where the order reaches the user (a plan: its summary, and one row's codes file). */
  sink: 'json' | 'text' | 'all-json' | 'file' | 'plan';
  /** The file exists before the run (junk): an older file is never proof of delivery. */
  junk?: boolean;
  /** The codes file's extension, and so its format: json unless said. */
  ext?: 'xlsx';
  /** The codes file is encrypted (codes.json.age, --encrypt-to): read back with the real age tool. */
  age?: boolean;
}

const place = (c: Ctx): string[] => ['order', 'place', '--product', PRODUCT, '--quantity', String(c.quantity)];
const MODES: Mode[] = [
  { name: 'place --json', points: STDOUT_POINTS, args: (c) => [...place(c), '--json'], sink: 'json' },
  {
    name: 'place --wait',
    points: STDOUT_POINTS,
    args: (c) => [...place(c), '--wait', '--interval', '0.05'],
    sink: 'text',
  },
  {
    name: 'place --out',
    points: ALL_POINTS,
    args: (c) => [...place(c), '--out', c.file, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'place --out --force',
    points: ALL_POINTS,
    junk: true,
    args: (c) => [...place(c), '--out', c.file, '--force', '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'place --out codes.xlsx',
    points: ALL_POINTS,
    ext: 'xlsx',
    args: (c) => [...place(c), '--out', c.file, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'resume <key>',
    points: RESUME_POINTS,
    setup: 'sending',
    args: (c) => ['order', 'resume', c.key!, '--json'],
    sink: 'json',
  },
  {
    name: 'resume --all',
    points: RESUME_POINTS,
    setup: 'sending',
    args: () => ['order', 'resume', '--all'],
    sink: 'text',
  },
  {
    name: 'resume --all --json',
    points: RESUME_POINTS,
    setup: 'sending',
    args: () => ['order', 'resume', '--all', '--json'],
    sink: 'all-json',
  },
  {
    name: 'watch --out',
    points: FILE_ONLY_POINTS,
    setup: 'accepted',
    args: (c) => ['order', 'watch', c.orderId!, '--out', c.file, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'watch --out codes.xlsx',
    points: FILE_ONLY_POINTS,
    setup: 'accepted',
    ext: 'xlsx',
    args: (c) => ['order', 'watch', c.orderId!, '--out', c.file, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'codes get --out',
    points: FILE_ONLY_POINTS,
    setup: 'accepted',
    args: (c) => ['codes', 'get', c.orderId!, '--wait', '--interval', '0.05', '--out', c.file],
    sink: 'file',
  },
  {
    name: 'place --out .age',
    points: ALL_POINTS,
    age: true,
    args: (c) => [...place(c), '--out', c.file, '--encrypt-to', c.recipient, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'place --out .age --force',
    points: ['codes.tmp-written', 'codes.identity-written', 'codes.committed', 'codes.renamed'],
    age: true,
    junk: true,
    args: (c) => [...place(c), '--out', c.file, '--force', '--encrypt-to', c.recipient, '--interval', '0.05'],
    sink: 'file',
  },
  {
    name: 'codes get --out .age',
    points: ['codes.tmp-written', 'resolved'],
    setup: 'accepted',
    age: true,
    args: (c) => [
      'codes',
      'get',
      c.orderId!,
      '--wait',
      '--interval',
      '0.05',
      '--out',
      c.file,
      '--encrypt-to',
      c.recipient,
    ],
    sink: 'file',
  },
  {
    name: 'place --plan',
    points: PLAN_POINTS,
    args: (c) => ['order', 'place', '--plan', planFor(c), '--json', '--interval', '0.05'],
    sink: 'plan',
  },
];

/** A plan of two rows: `quantity` with the codes file, and `quantity + 500` without one. */
function planFor(c: Ctx): string {
  const plan = join(c.configDir, `restock-${c.quantity}.csv`);
  if (!existsSync(plan))
    writeFileSync(plan, `product,quantity,out\n${PRODUCT},${c.quantity},${c.file}\n${PRODUCT},${c.quantity + 500}\n`);
  return plan;
}

/** Not reachable, so not in the matrix: said here so the gaps are visible. */
export const UNREACHABLE = {
  'place --json / place --wait': 'codes.tmp-written, codes.renamed (no codes file)',
  'resume <key> / resume --all / resume --all --json':
    'intent.written (written by place); codes.* (resumed intents placed without --out)',
  'resume <key> / resume --all / resume --all --json ':
    'sending.written (a resumed `sending` intent is sent again without writing it)',
  'watch --out / watch --out codes.xlsx / codes get --out':
    'intent.written, sending.written, request.sent, order.accepted, codes.identity-written, codes.committed (they never place an order, and record no file)',
  'place --out .age --force':
    'the steps before the codes file are those of place --out (an encrypted file is written at the same steps)',
  'codes get --out .age':
    'codes.renamed, delivered: its recovery finds the encrypted file and cannot compare it without the identity, so it refuses it (exit 2, tested below) rather than deliver twice',
};

const cases = MODES.flatMap((mode) => mode.points.map((point) => ({ mode, point })));

/** Read from the files alone: an intent whose delivery is recorded (its own record in history/, or phase `delivered`). */
function deliveryRecorded(configDir: string, intent: JournalIntent): boolean {
  if (intent.phase === 'delivered') return true;
  // Whatever a record's file or line, it is this intent's when it holds its key and its createdAt.
  return storedRecords(join(configDir, 'history')).some(
    ({ key, outcome, createdAt }) =>
      key === intent.key && (outcome === 'delivered' || outcome === 'failed') && createdAt === intent.createdAt,
  );
}

function printedIds(sink: Mode['sink'], run: RunResult | undefined): string[] {
  if (!run) return [];
  if (sink === 'text') return [...run.stdout.matchAll(/^order\s+(\S+)/gm)].map((m) => m[1]!);
  try {
    const doc = JSON.parse(run.stdout) as unknown;
    if (sink === 'all-json' || sink === 'plan')
      return (doc as { order?: { id: string } }[]).flatMap((r) => (r.order ? [r.order.id] : []));
    return [(doc as { id: string }).id];
  } catch {
    return [];
  }
}

function readCodes(path: string): { code: unknown }[] {
  return JSON.parse(readFileSync(path, 'utf8')) as { code: unknown }[];
}

/**
 * A workbook's codes as a spreadsheet reads it (Python's openpyxl, test/helpers/openpyxl.ts):
 * a whole, valid zip with one sheet, its header row, then one row per code, each code a text cell.
 */
function workbookCodes(path: string): { code: unknown }[] {
  const script = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
[ws] = wb.worksheets
rows = [[(c.data_type, c.value) for c in row] for row in ws.iter_rows()]
header = [v for _, v in rows[0]]
at = header.index("code")
print(json.dumps([{"code": row[at][1] if row[at][0] == "s" else None} for row in rows[1:]]))
`;
  return JSON.parse(execFileSync(PYTHON, ['-c', script, path], { encoding: 'utf8' })) as {
    code: unknown;
  }[];
}

describe('failpoint matrix: a kill at every durable step, then the natural recovery', () => {
  const served = servedApi(['--fulfil-after', '100'], { login: true });
  let pair: { identity: string; recipient: string } | undefined;
  beforeAll(() => {
    ensureAge();
    ensureOpenpyxl();
    pair = keyPair();
  });
  /** A codes file, decrypted with the real age tool when the mode encrypts it. */
  const codesText = (mode: Mode, file: string): string =>
    mode.age ? ageDecrypt(pair!.identity, file).toString('utf8') : readFileSync(file, 'utf8');

  it('names every failpoint of the contract', () => {
    expect(ALL_POINTS).toEqual([
      'intent.written',
      'sending.written',
      'request.sent',
      'order.accepted',
      'codes.tmp-written',
      'codes.identity-written',
      'codes.committed',
      'codes.renamed',
      'delivered',
      'resolved',
    ]);
    expect(cases.length).toBe(92);
  });

  it.concurrent.each(cases.map((c, i) => ({ ...c, i, label: `${c.mode.name} × ${c.point}` })))(
    '$label',
    { timeout: 300_000 },
    async ({ mode, point, i }) => {
      const { server, configDir: template } = served;
      const configDir = tempDir();
      cpSync(template, configDir, { recursive: true });
      const file = join(tempDir(), mode.age ? 'codes.json.age' : `codes.${mode.ext ?? 'json'}`);
      const ctx: Ctx = { configDir, recipient: pair!.recipient, quantity: 100 + i, file };
      if (mode.junk) writeFileSync(ctx.file, '["an older file"]\n');
      if (mode.setup) {
        const killAt = mode.setup === 'sending' ? 'request.sent' : 'order.accepted';
        const setup = await runCli([...place(ctx), '--json'], {
          configDir,
          env: { GIFTCODES_FAILPOINTS: `${killAt}=kill` },
        });
        expect(setup.signal).toBe('SIGKILL');
        // Looked at, not run: the run killed below is the next journal command, as in the matrix's other modes.
        const [intent] = await pendingNow(configDir);
        expect(intent?.phase).toBe(mode.setup);
        ctx.key = intent!.key;
        ctx.orderId = intent!.orderId ?? undefined;
      }

      const killed = await runCli(mode.args(ctx), { configDir, env: { GIFTCODES_FAILPOINTS: `${point}=kill` } });
      expect(killed.signal, `${killed.stderr}`).toBe('SIGKILL');

      let recovery: RunResult | undefined;
      const undelivered = journalIntents(configDir).filter((intent) => !deliveryRecorded(configDir, intent));
      const hasFile = mode.sink === 'file' || mode.sink === 'plan';
      const needsRecovery =
        undelivered.length > 0 ||
        (hasFile && !existsSync(ctx.file)) ||
        (mode.junk && readFileSync(ctx.file, 'utf8').includes('older'));
      if (needsRecovery) {
        recovery = await runCli(mode.args(ctx), { configDir });
        expect(recovery.code, recovery.stderr).toBe(0);
      }

      const book = (await ledger(server)).orders;
      const rows = mode.sink === 'plan' ? [ctx.quantity, ctx.quantity + 500] : [ctx.quantity];
      for (const quantity of rows) {
        const charged = book.filter((o) => o.product_id === PRODUCT && o.quantity === quantity);
        expect(charged, `exactly one charge for ${quantity}`).toHaveLength(1);
        if (mode.sink !== 'file')
          expect(
            [...printedIds(mode.sink, killed), ...printedIds(mode.sink, recovery)],
            'the order reached stdout',
          ).toContain(String(charged[0]!.order_id));
      }
      if (hasFile) {
        const codes =
          mode.ext === 'xlsx'
            ? workbookCodes(ctx.file)
            : mode.age
              ? (JSON.parse(codesText(mode, ctx.file)) as { code: unknown }[])
              : readCodes(ctx.file);
        expect(codes).toHaveLength(ctx.quantity);
        expect(codes.every((c) => typeof c.code === 'string')).toBe(true);
        expect(new Set(codes.map((c) => c.code)).size, 'each code once').toBe(ctx.quantity);
      }
      // Read from the files, not through `order pending`: only an intent killed after its delivery was recorded
      // may be left, and the next journal command settles it.
      const left = journalIntents(configDir);
      if (point === 'delivered' && !recovery) {
        expect(
          left.every((intent) => deliveryRecorded(configDir, intent)),
          'only intents whose delivery is recorded',
        ).toBe(true);
        expect(JSON.parse((await runCli(['order', 'pending', '--json'], { configDir })).stdout)).toEqual([]);
        expect(journalIntents(configDir)).toEqual([]);
      } else {
        expect(left, 'no intent left').toEqual([]);
      }
      // The killed run's log was compacted by the next command (or, at `resolved`, removed by the run itself).
      expect(
        readdirSync(join(configDir, 'journal')).filter((name) => name.endsWith('.log')),
        'no log left',
      ).toEqual([]);
    },
  );

  // Between the rename and the mark that it happened: the file moved away (sold from, filed) before the next
  // run. Its identity and count were recorded before the rename; neither the temporary file nor the target
  // holds them, so the next run stops (exit 2) rather than write the same codes to a second file.
  it.concurrent.each(
    MODES.filter((m) => ['place --out', 'place --plan', 'place --out .age'].includes(m.name)).map((mode) => ({
      mode,
      label: mode.name,
    })),
  )(
    '$label × codes.committed, the file moved away: exit 2 codes_file_unaccounted, never the codes again',
    { timeout: 300_000 },
    async ({ mode }) => {
      const { server, configDir: template } = served;
      const configDir = tempDir();
      cpSync(template, configDir, { recursive: true });
      const ctx: Ctx = {
        configDir,
        recipient: pair!.recipient,
        quantity: mode.sink === 'plan' ? 91 : mode.age ? 95 : 93,
        file: join(tempDir(), mode.age ? 'codes.json.age' : 'codes.json'),
      };
      const killed = await runCli(mode.args(ctx), { configDir, env: { GIFTCODES_FAILPOINTS: 'codes.committed=kill' } });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(JSON.parse(codesText(mode, ctx.file))).toHaveLength(ctx.quantity);
      const moved = `${ctx.file}.sold`;
      renameSync(ctx.file, moved);
      const again = await runCli(mode.args(ctx), { configDir });
      expect(again.code, again.stderr).toBe(2);
      if (mode.sink === 'plan') expect(again.stdout).toContain('codes_file_unaccounted');
      expect(again.stdout + again.stderr).toContain('neither that file nor its temporary file holds them now');
      expect(existsSync(ctx.file), 'the codes are not written a second time').toBe(false);
      const charged = (await ledger(server)).orders.filter(
        (o) => o.product_id === PRODUCT && o.quantity === ctx.quantity,
      );
      expect(charged).toHaveLength(1);
    },
  );

  // codes get --out .age killed after its rename: the next run finds an encrypted file it cannot compare with
  // the codes without the identity, and refuses it (exit 2, the file as it was), never writing it twice.
  it.concurrent.each(['codes.renamed', 'delivered'])(
    'codes get --out .age × %s: the next run refuses the encrypted file it cannot compare, exit 2',
    { timeout: 120_000 },
    async (point) => {
      const { configDir: template } = served;
      const configDir = tempDir();
      cpSync(template, configDir, { recursive: true });
      const mode = MODES.find((m) => m.name === 'codes get --out .age')!;
      const quantity = point === 'delivered' ? 98 : 97;
      const ctx: Ctx = { configDir, recipient: pair!.recipient, quantity, file: join(tempDir(), 'codes.json.age') };
      const placed = await runCli([...place(ctx), '--json'], { configDir });
      ctx.orderId = (JSON.parse(placed.stdout) as { id: string }).id;
      const killed = await runCli(mode.args(ctx), { configDir, env: { GIFTCODES_FAILPOINTS: `${point}=kill` } });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      const first = readFileSync(ctx.file);
      const again = await runCli(mode.args(ctx), { configDir });
      expect(again.code, again.stderr).toBe(2);
      expect(again.stderr).toContain('exists');
      expect(readFileSync(ctx.file).equals(first)).toBe(true);
      expect(JSON.parse(codesText(mode, ctx.file))).toHaveLength(quantity);
    },
  );
});
