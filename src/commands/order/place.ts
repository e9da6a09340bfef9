import { InvalidArgumentError, Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { InterruptedError, UsageError } from '../../errors.js';
import type { OutLock } from '../../export/out-lock.js';
import { MAX_QUANTITY } from '../../orders/limits.js';
import { formatFor, tooManyRows, XLSX_MAX_CODES } from '../../export/format.js';
import type { PlanResult, RowOptions } from '../../orders/plan.js';
import { exportResult } from '../../output/exporter.js';
import type { Io } from '../../output/io.js';
import { renderTable } from '../../output/table.js';
import { redactKeys } from '../../secrets.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { integer, nonEmpty, once } from '../parse.js';
import { addWaitFlags, checkWaitFlags, DEFAULT_INTERVAL_S, outSpec, type WaitFlags } from '../wait-flags.js';

export interface PlaceOptions extends WaitFlags {
  product: string;
  quantity: number;
  plan?: string;
  dryRun?: boolean;
  concurrency?: number;
  idempotencyKey?: string;
  wait?: boolean;
  /** --yes: a live order is placed without asking. */
  yes?: boolean | undefined;
  /** The output mode is --json (checked against --out - and --format). */
  json: boolean;
}

/** `order place --plan`: the plan file, how its rows run, and --yes. */
/** How the rows run (RowOptions), and what the plan itself is asked. */
export interface PlanRunOptions extends RowOptions {
  plan: string;
  dryRun?: boolean | undefined;
  yes?: boolean | undefined;
}

export type PlaceDeps = Pick<Deps, 'io' | 'signal' | 'connection' | 'api' | 'journal'>;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('place')
    .description('place an order exactly once, even across crashes (the key is journaled before anything is sent)')
    .addOption(new Option('--product <id>', 'product id from the catalog').argParser(once('--product', nonEmpty('product id'))))
    .addOption(new Option('--quantity <n>', 'number of units').argParser(once('--quantity', integer(1, MAX_QUANTITY))))
    .addOption(new Option('--idempotency-key <key>', 'supply the idempotency key yourself (default: a new UUID, journaled)').argParser(once('--idempotency-key', idempotencyKeyArg)))
    .option('--wait', 'wait until the order completes (exit 6 if it fails, 7 on --timeout)')
    .addOption(new Option('--plan <file.csv>', 'bulk: one order per row product,quantity[,out]; the same plan never orders twice').argParser(nonEmpty('--plan', 4096)).conflicts(['product', 'quantity', 'idempotencyKey']))
    .option('--dry-run', 'with --plan: print what would be ordered, send nothing')
    .addOption(new Option('--concurrency <n>', 'with --plan: rows at once').argParser(integer(1, 32)).default(4));
  addWaitFlags(command).action(async (flags: Omit<PlaceOptions, 'yes' | 'json'>, cmd: Command) => {
    const { globals, json, deps } = app.context(cmd);
    await run({ ...flags, yes: globals.yes, json }, deps);
  });
  examples(command, [
    'giftcodes order place --product amazon-us-25 --quantity 10',
    'giftcodes order place --product amazon-us-25 --quantity 100 --out codes.csv --yes',
    'giftcodes order place --product steam-us-20 --quantity 5 --wait --timeout 300 --json',
  ]);
}

export async function run(options: PlaceOptions, deps: PlaceDeps): Promise<void> {
  if (options.plan !== undefined) return runPlan({ ...options, plan: options.plan, concurrency: options.concurrency ?? 4 }, deps);
  checkSingleOrderFlags(options);
  const out = outSpec(options);
  const waits = options.wait === true || out !== undefined;
  checkWaitFlags(options, { json: options.json, waits, waitFlag: '--wait' });
  if (out && out.path !== '-' && options.quantity > XLSX_MAX_CODES && formatFor(out.path, out.format) === 'xlsx') throw tooManyRows(`--quantity ${options.quantity} with --out ${options.out ?? out.path}`);
  const connection = await deps.connection();
  const [journal, api, { keyIdOf }, { driveIntent, finish }, { resumableFor }, { sayReached }] = await Promise.all([
    deps.journal(),
    deps.api(),
    import('../../journal/intent.js'),
    import('../../orders/drive.js'),
    import('../../orders/recover.js'),
    import('../../orders/lifecycle.js'),
  ]);
  const spec = {
    profile: connection.profile,
    environment: connection.environment,
    baseUrl: connection.baseUrl,
    keyId: keyIdOf(connection.apiKey),
    productId: options.product,
    quantity: options.quantity,
  };
  // One writer per --out file, from before the charge to the end of the run: a second run at the same file
  // meanwhile is refused (out_busy, exit 2) with nothing charged, never after its charge. An existing file
  // is refused before anything is charged, unless it is the delivery of the very intent this run will resume
  // (a run killed right after its rename).
  let outLock: OutLock | undefined;
  if (out && out.path !== '-') {
    const { holdOutTarget } = await import('../../export/out-target.js');
    outLock = holdOutTarget(out.path, out.force, () => resumableFor(journal, spec, options.idempotencyKey, out.path));
  }
  try {
    if (connection.environment === 'live' && !options.yes) {
      const yes = await deps.io.confirm(
        deps.io.canPrompt ? await (await import('../../orders/confirm.js')).liveOrderQuestion(api, options.product, options.quantity, connection.profile) : '',
        '--yes',
        `a live order (${options.quantity} × ${options.product})`,
      );
      if (!yes) throw new InterruptedError('cancelled: nothing was sent');
    }
    const { intent, resumed, settled } = await journal.begin({ ...spec, key: options.idempotencyKey, wait: waits, out });
    sayReached(deps.io, settled);
    if (resumed) {
      deps.io.say(
        `resuming the interrupted order for ${intent.quantity} × ${intent.productId} started ${intent.createdAt} (key ${intent.key}): same key, same request, no second charge`,
      );
    }
    const driven = await driveIntent({ io: deps.io, api, journal, signal: deps.signal }, intent, {
      wait: waits,
      out: intent.out,
      intervalS: options.interval ?? DEFAULT_INTERVAL_S,
      timeoutS: options.timeout,
      // The lock held is this command's --out; a resumed intent writes where it was started to (its own lock).
      outLock: outLock && intent.out && resolve(intent.out.path) === outLock.target ? outLock : undefined,
    });
    await finish(deps.io, journal, driven);
  } finally {
    outLock?.release();
  }
}

/**
 * Runs a plan (orders/plan.ts runs its rows): every row checked, the live plan confirmed, the rows run, then
 * the summary delivered (lifecycle's deliver prints it and records each row) and the rows settled; the exit
 * status is the worst row's.
 */
export async function runPlan(o: PlanRunOptions, deps: PlaceDeps): Promise<void> {
  const { readPlan, deliveredRows, checkOutFiles, runRows, planFailure } = await import('../../orders/plan.js');
  const { io } = deps;
  const rows = readPlan(o.plan);
  if (o.dryRun) {
    await planSummary(io, rows.map((r) => ({ ...r, dryRun: true })));
    return;
  }
  const connection = await deps.connection();
  const [journal, api, { deliver, settle }] = await Promise.all([deps.journal(), deps.api(), import('../../orders/lifecycle.js')]);
  const delivered = deliveredRows(journal, connection);
  await checkOutFiles(rows, delivered, journal, o.force === true);
  /** Each row's out file, locked before its charge and held to the end of the run, as `order place --out` holds its own. */
  const outLocks = new Map<string, OutLock>();
  try {
    if (connection.environment === 'live' && !o.yes) {
      const todo = rows.filter((r) => !delivered.has(r.key));
      const units = todo.reduce((sum, r) => sum + r.quantity, 0);
      const yes = await io.confirm(`Place ${todo.length} LIVE orders (${units} units in all) from ${o.plan}? They are charged to the wallet of profile "${connection.profile}".`, '--yes', `a live plan (${todo.length} orders)`);
      if (!yes) throw new InterruptedError('cancelled: nothing was sent');
    }
    const { results, outcomes } = await runRows(rows, delivered, o, { io, api, journal, signal: deps.signal, connection }, outLocks);
    // The summary is the delivery of every row: printed and flushed, then each row's record, then its intent settled.
    await deliver(io, journal, () => planSummary(io, results), outcomes);
    await settle(journal, outcomes);
    const failure = planFailure(results);
    if (failure) throw failure;
  } finally {
    for (const lock of outLocks.values()) lock.release();
  }
}

/** One line per row: what was ordered (or read, or not sent), its order, and where its codes went. */
async function planSummary(io: Io, results: readonly PlanResult[]): Promise<void> {
  await exportResult(io, results, {
    text: (data) =>
      renderTable(io, data, [
        { header: 'row', value: (r) => String(r.row) },
        { header: 'product', value: (r) => r.productId, whole: true },
        { header: 'qty', value: (r) => String(r.quantity) },
        { header: 'order', value: (r) => (r.order ? String(r.order.id) : '-'), whole: true },
        { header: 'status', value: (r) => (r.dryRun ? 'dry run: not sent' : r.error ? `error: ${r.error.code}` : `${String(r.order?.status ?? '')}${r.already ? ' (earlier run)' : ''}`) },
        { header: 'key', value: (r) => r.key, whole: true },
        { header: 'out', value: (r) => (r.out ? `${r.out}${r.count !== undefined ? ` (${r.count})` : ''}` : '') },
      ]),
  });
}

/** Printable ASCII without spaces, as an HTTP header value and a journal key can safely carry. */
function idempotencyKeyArg(value: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new InvalidArgumentError('an idempotency key is 1 to 255 printable ASCII characters without spaces');
  }
  // Whatever is written masks API keys (the journal, every output): a key-shaped one would be read back
  // masked, a different key, and a resumed order sent under it would be charged again.
  if (redactKeys(value) !== value) throw new InvalidArgumentError('an idempotency key must not look like an API key (sc_test_… or sc_live_…): choose another');
  return value;
}


/** Without --plan, --product and --quantity are required; --dry-run and --concurrency belong to --plan. */
function checkSingleOrderFlags(options: PlaceOptions): void {
  if (options.product === undefined || options.quantity === undefined) {
    const missing = options.product === undefined ? "'--product <id>'" : "'--quantity <n>'";
    throw new UsageError(`required option ${missing} not specified`, { hint: 'giftcodes order place --product <id> --quantity <n>   (or --plan <file.csv>)' });
  }
  if (options.dryRun) throw new UsageError('--dry-run is for --plan', { hint: 'giftcodes order place --plan restock.csv --dry-run' });
}
