// `order place --plan <file.csv>`: bulk restock. One order per row (`product,quantity[,out]`), each with its
// own journal intent and a key derived from the plan's bytes and the row's line number, so the same plan run
// again orders nothing more (rows already delivered are read, not placed; others resume with their key) and
// a run killed half way finishes exactly the missing rows. Every row is checked before anything is sent.
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Order } from '../api/schemas.js';
import { CliError, ExitCode, InterruptedError, isCliError, LocalError, UsageError } from '../errors.js';
import type { Factory } from '../factory.js';
import type { OutLock } from '../export/out-lock.js';
import type { OutSpec } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import type { OrderRecord } from '../journal/history.js';
import { sha256 } from '../journal/intent.js';
import { exportResult } from '../output/exporter.js';
import { renderTable } from '../output/table.js';
import type { OrderMachine as Machine } from './machine.js';
import type { Driven } from './drive.js';

export interface PlanRow {
  /** The line number in the plan file (1-based): the row's name in every message. */
  row: number;
  productId: string;
  quantity: number;
  key: string;
  out?: string | undefined;
}

export interface PlanResult {
  row: number;
  productId: string;
  quantity: number;
  key: string;
  order?: Order | undefined;
  out?: string | undefined;
  /** Written codes, when the row had an out file. */
  count?: number | undefined;
  /** True when the local record shows the row delivered by an earlier run: nothing was placed. */
  already?: boolean | undefined;
  dryRun?: boolean | undefined;
  error?: { code: string; message: string; exitCode: number } | undefined;
}

export interface PlanOptions {
  plan: string;
  dryRun?: boolean | undefined;
  concurrency: number;
  wait?: boolean | undefined;
  interval?: number | undefined;
  timeout?: number | undefined;
  force?: boolean | undefined;
}

const MAX_QUANTITY = 1_000_000;

/** The row's idempotency key: the plan's content and the row, nothing else (a re-run of the same bytes finds it). */
export function rowKey(planSha: string, row: number): string {
  return `plan-${planSha.slice(0, 24)}-r${row}`;
}

/** Parses the plan; every bad row is reported with its line number, and nothing is ordered if there is one. */
export function parsePlan(bytes: Buffer, planPath: string): PlanRow[] {
  const planSha = sha256(bytes.toString('latin1'));
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const rows: PlanRow[] = [];
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const cells = trimmed.split(',').map((cell) => cell.trim().replace(/^"(.*)"$/, '$1'));
    if (rows.length === 0 && problems.length === 0 && cells[0]?.toLowerCase() === 'product' && cells[1]?.toLowerCase() === 'quantity') return; // the header
    const [productId, quantity, out, ...extra] = cells;
    if (extra.length > 0 || cells.length < 2) return void problems.push(`line ${line}: expected product,quantity[,out], got ${cells.length} fields`);
    if (!productId || !/^[\x21-\x7e]{1,200}$/.test(productId)) return void problems.push(`line ${line}: "${productId ?? ''}" is not a product id`);
    const n = /^\d+$/.test(quantity ?? '') ? Number(quantity) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_QUANTITY) return void problems.push(`line ${line}: quantity must be a whole number from 1 to ${MAX_QUANTITY}, got "${quantity ?? ''}"`);
    const outPath = out === undefined || out === '' ? undefined : resolve(dirname(planPath), out);
    rows.push({ row: line, productId, quantity: n, key: rowKey(planSha, line), ...(outPath ? { out: outPath } : {}) });
  });
  const outs = new Map<string, number>();
  for (const row of rows) {
    if (!row.out) continue;
    // Two spellings of one file (a directory reached through a symbolic link) are one file: one writer.
    const same = realFile(row.out);
    const earlier = outs.get(same);
    if (earlier !== undefined) problems.push(`line ${row.row}: out file ${row.out} is also the out file of line ${earlier}`);
    else outs.set(same, row.row);
  }
  if (problems.length > 0) {
    throw new UsageError(`the plan ${planPath} has ${problems.length} bad row${problems.length === 1 ? '' : 's'}, nothing was ordered: ${problems.slice(0, 20).join('; ')}${problems.length > 20 ? '; …' : ''}`, {
      code: 'bad_plan',
      hint: 'each row is product,quantity[,out] (a header row product,quantity,out is optional)',
    });
  }
  if (rows.length === 0) throw new UsageError(`the plan ${planPath} has no rows`, { code: 'bad_plan', hint: 'each row is product,quantity[,out]' });
  return rows;
}

/** The file a path names once its directory's symbolic links are followed (the path itself when it cannot be). */
function realFile(path: string): string {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

export function readPlan(path: string): PlanRow[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR') throw new UsageError(`cannot read the plan ${path}: ${code === 'ENOENT' ? 'no such file' : 'it is a directory'}`, { code: 'bad_plan', hint: 'check the --plan path' });
    throw new LocalError(`cannot read the plan ${path} (${code ?? 'error'})`, { code: 'plan_unreadable' });
  }
  return parsePlan(bytes, path);
}

/** Runs the plan: every row at most `concurrency` at once; one summary; the exit status of the worst row. */
export async function runPlan(o: PlanOptions, f: Factory): Promise<void> {
  const rows = readPlan(o.plan);
  if (o.dryRun) {
    await summary(f, rows.map((r) => ({ ...r, dryRun: true })));
    return;
  }
  const connection = await f.connection();
  const [journal, api, { keyIdOf }, { driveIntent }, { OrderMachine }, { deliveredFile }, { deliver, settle }, files] = await Promise.all([
    f.journal(),
    f.api(),
    import('../journal/intent.js'),
    import('./drive.js'),
    import('./machine.js'),
    import('../journal/codes-file.js'),
    import('./lifecycle.js'),
    rows.some((row) => row.out !== undefined) ? import('../export/write.js') : undefined,
  ]);
  // A row's key is the plan's bytes and its line: the same plan run on another server or environment (a test
  // run, then live) is other orders, and its records there say nothing of these rows.
  const here = (r: OrderRecord | undefined): OrderRecord | undefined => (r?.outcome === 'delivered' && r.baseUrl === connection.baseUrl && r.environment === connection.environment ? r : undefined);
  const delivered = new Map(journal.history.list().filter((r) => here(r)).map((r) => [r.key, r]));
  await checkOutFiles(rows, delivered, journal, o.force === true);
  /** Each row's out file, locked before its charge and held to the end of the run, as `order place --out` holds its own. */
  const outLocks = new Map<string, OutLock>();
  try {
    if (connection.environment === 'live' && !f.globals.yes) {
      const todo = rows.filter((r) => !delivered.has(r.key));
      const units = todo.reduce((sum, r) => sum + r.quantity, 0);
      const yes = await f.io.confirm(`Place ${todo.length} LIVE orders (${units} units in all) from ${o.plan}? They are charged to the wallet of profile "${connection.profile}".`, '--yes', `a live plan (${todo.length} orders)`);
      if (!yes) throw new InterruptedError('cancelled: nothing was sent');
    }
    const results: PlanResult[] = new Array<PlanResult>(rows.length);
    const outcomes: Driven[] = [];
    const spinner = await f.io.spinner(`plan: 0/${rows.length} rows`);
    let next = 0;
    let done = 0;
    const deps = { io: f.io, api, journal, signal: f.signal };
    const waits = o.wait === true;
    /** A row made ready to send: its intent durably `sending` (or its earlier delivery found); no request yet. */
    type Ready = { index: number; base: PlanResult } & ({ earlier: string } | { machine: Machine } | { error: unknown });
    const prepare = async (index: number): Promise<Ready> => {
      const row = rows[index]!;
      const base: PlanResult = { row: row.row, productId: row.productId, quantity: row.quantity, key: row.key, ...(row.out ? { out: row.out } : {}) };
      try {
        // Read again now, not only at the start: an overlapping run of the same plan may have delivered
        // this row meanwhile, and placing it again (the same key: the same order) would find its out file
        // taken and leave an order pending that was delivered.
        const earlier = delivered.get(row.key) ?? here(journal.history.get(row.key));
        // Delivered by an earlier run of this plan: read, never placed again; its intent, if that run was killed
        // before it settled, ends now.
        if (earlier?.orderId !== undefined) {
          if (journal.find(row.key)) await journal.settleWhere((intent) => (intent.key === row.key ? journal.reached(intent) : undefined));
          return { index, base, earlier: earlier.orderId };
        }
        const out: OutSpec | undefined = row.out ? { path: row.out, force: o.force === true, csvRaw: false } : undefined;
        if (row.out && files) {
          // Another run (order place --out, another plan) that would write this file meanwhile is refused
          // before its charge, never this row after its own: the row is refused here if the file is taken
          // now, unless it is this row's own earlier delivery.
          const own = (): boolean => {
            const existing = journal.find(row.key);
            return existing !== undefined && deliveredFile(existing, row.out!) !== undefined;
          };
          outLocks.set(row.key, files.holdOutTarget(row.out, o.force === true, own));
        }
        const spec = { profile: connection.profile, environment: connection.environment, baseUrl: connection.baseUrl, keyId: keyIdOf(connection.apiKey), productId: row.productId, quantity: row.quantity };
        const { intent, resumed } = await journal.begin({ ...spec, key: row.key, wait: waits || out !== undefined, out });
        if (resumed) f.io.notice(`row ${row.row}: resuming its interrupted order (key ${row.key})`);
        const machine = new OrderMachine(deps, intent);
        await machine.arm();
        return { index, base, machine };
      } catch (error) {
        return { index, base, error };
      }
    };
    const run = async (ready: Ready, answered: () => void): Promise<PlanResult> => {
      const { base } = ready;
      try {
        if ('error' in ready) throw ready.error;
        if ('earlier' in ready) return { ...base, order: await api.getOrder(ready.earlier), already: true };
        const outcome = await driveIntent(deps, ready.machine, {
          wait: waits || ready.machine.intent.out !== undefined,
          out: ready.machine.intent.out,
          intervalS: o.interval ?? 2,
          timeoutS: o.timeout,
          // The row's out file, locked before its charge (checkOutFiles): the lock the export then holds.
          ...(outLocks.get(base.key)?.target === ready.machine.intent.out?.path ? { outLock: outLocks.get(base.key) } : {}),
          // A row that waits for nothing is done with the network once its POST is answered: writing its
          // `accepted` state (durable before the summary, which awaits every row) need not hold up the next row.
          ...(waits || ready.machine.intent.out !== undefined ? {} : { answered }),
        });
        outcomes.push(outcome);
        return { ...base, order: outcome.order, ...(outcome.written ? { count: outcome.written.count } : {}), ...(outcome.failure ? { error: errorOf(outcome.failure) } : {}) };
      } catch (error) {
        return { ...base, error: errorOf(error) };
      }
    };
    const take = (): Promise<Ready> | undefined => (next < rows.length && !f.signal.aborted ? prepare(next++) : undefined);
    // `concurrency` rows talk to the server at once. Each worker readies its next row (the intent written and
    // fsynced, `sending`) while its current row's request is out: the disk waits overlap the network instead
    // of adding to every row. Interrupted, at most one readied row per worker is left pending, never sent:
    // the same plan again sends it with its key.
    const finishing: Promise<void>[] = [];
    const worker = async (): Promise<void> => {
      let ahead = take();
      while (ahead !== undefined) {
        const ready = await ahead;
        if (f.signal.aborted) break;
        ahead = take();
        await new Promise<void>((free) => {
          const row = run(ready, free).then((result) => {
            results[ready.index] = result;
            spinner.update(`plan: ${++done}/${rows.length} rows`);
            free();
          });
          finishing.push(row);
        });
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(o.concurrency, rows.length) }, worker));
      await Promise.all(finishing);
    } finally {
      spinner.stop();
    }
    if (f.signal.aborted) throw f.signal.reason;
    // The summary is the delivery of every row: printed and flushed, then each row's record, then its intent settled.
    await deliver(f.io, journal, () => summary(f, results), outcomes);
    await settle(journal, outcomes);
    const failed = results.filter((r) => r.error);
    if (failed.length > 0) {
      const worst = Math.max(...failed.map((r) => r.error!.exitCode)) as CliError['exitCode'];
      throw new CliError(worst, `${failed.length} of ${results.length} plan rows failed (first: line ${failed[0]!.row}: ${failed[0]!.error!.message})`, {
        code: 'plan_rows_failed',
        hint: `fix what failed and run the same plan again: rows already delivered are not ordered twice (giftcodes order list --since 1d)`,
      });
    }
  } finally {
    for (const lock of outLocks.values()) lock.release();
  }
}

/**
 * Every row's out file is refused before anything is sent (a symbolic link, an existing file without
 * --force, a directory that cannot be written), as `order place --out` does: after the charge it would be
 * an order left pending. A row already delivered, or whose interrupted intent's own file is there, passes.
 */
async function checkOutFiles(rows: readonly PlanRow[], delivered: ReadonlyMap<string, unknown>, journal: Journal, force: boolean): Promise<void> {
  const todo = rows.filter((row) => row.out !== undefined && !delivered.has(row.key));
  if (todo.length === 0) return;
  const [{ checkOutTarget }, { deliveredFile }] = await Promise.all([import('../export/write.js'), import('../journal/codes-file.js')]);
  const { intents } = journal.read();
  for (const row of todo) {
    const intent = intents.find((i) => i.key === row.key);
    if (intent && deliveredFile(intent, row.out!) !== undefined) continue;
    try {
      checkOutTarget(row.out!, force);
    } catch (error) {
      if (isCliError(error)) throw new CliError(error.exitCode, `line ${row.row}: ${error.message}; nothing was ordered`, { code: error.code, ...(error.hint ? { hint: error.hint } : {}) });
      throw error;
    }
  }
}

function errorOf(error: unknown): NonNullable<PlanResult['error']> {
  const e = isCliError(error) ? error : undefined;
  return { code: e?.code ?? 'internal_error', message: error instanceof Error ? error.message : String(error), exitCode: e?.exitCode ?? ExitCode.internal };
}

async function summary(f: Factory, results: readonly PlanResult[]): Promise<void> {
  await exportResult(f.io, results, {
    text: (data) =>
      renderTable(f.io, data, [
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
