// `order place --plan <file.csv>`: bulk restock. One order per row (`product,quantity[,out]`), each with its
// own journal intent and a key derived from what the row is (rowKey), so the same plan run again orders nothing
// more (rows already delivered are read, not placed; others resume with their key), a run killed half way
// finishes exactly the missing rows, and fixing one row leaves the others' keys alone. Every row is checked
// before anything is sent. This is the rows' side (parse, check, run each to its outcome); the live-plan
// question, the summary and its delivery are the verb's (commands/order/place.ts).
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { realFile, realPath } from '../files/real-path.js';
import { basename, dirname, resolve } from 'node:path';
import type { Order } from '../api/schemas.js';
import type { ApiClient } from '../api/client.js';
import type { Connection } from '../config/resolve.js';
import { refusesTheOrder } from '../api/errors.js';
import { orderOutcome } from '../api/outcome.js';
import { CliError, ExitCode, isCliError, LocalError, UsageError } from '../errors.js';
import type { OutLock } from '../export/out-lock.js';
import { waitingForOtherRun } from '../journal/lock.js';
import { anotherLiveRun, otherMachine } from '../journal/owner.js';
import { chargeWords, footprintOf, placedSince, resumableHere, underWay, type Footprint } from './recover.js';
import {
  codesFileNow,
  endedWithinDay,
  inScope,
  sentUnanswered,
  withStatus,
  writtenAt,
  type OrderRecord,
  type Scope,
} from '../journal/history.js';
import type { Intent, OutSpec } from '../journal/intent.js';
import { AHEAD_OF_CLOCK, type Journal } from '../journal/journal.js';
import { keyIdOf, neverSent, otherKeyOfReseller, sameReseller, sha256, staleness } from '../journal/intent.js';
import type { Io } from '../output/io.js';
import { MAX_QUANTITY } from './limits.js';
import { noSuchProduct, UNKNOWN_PRODUCT_HINT, unknownRows } from './products.js';
import type { OrderMachine as Machine } from './machine.js';
import type { Driven } from './drive.js';
import {
  counted,
  firstOf,
  NOTHING_CHARGED,
  grouped,
  linesOf,
  mayBeOwn,
  unitsOf,
  unreadableOwnHint,
} from '../output/words.js';
import { groupBy } from '../group.js';
import { batchFlag, pinnedHint, placeCommand } from '../output/pinned-hint.js';

export interface PlanRow {
  /** The line number in the plan file (1-based): the row's name in every message. */
  row: number;
  productId: string;
  quantity: number;
  /** rowKey: empty in a dry run without a key to scope it. */
  key: string;
  /** The key versions before 0.2 gave the row (the plan's bytes and the line): their records and intents are still this row's. */
  legacyKey: string;
  out?: string | undefined;
  /** The out cell names `{batch}`: each batch already writes a file of its own. */
  batched?: boolean;
  /**
   * The row finishes an earlier run's order of it (its key is that order's, outMovedRows): that run placed the row (or
   * sent it, its answer lost) with another out cell, and its codes never reached anyone.
   */
  moved?: MovedRow | undefined;
}

/** What an earlier run of a row whose out cell alone changed since left: the order it placed, the file it was to write. */
export interface MovedRow {
  /** The codes file that run was to write (`-` or absent: standard output). */
  from?: string | undefined;
  /** The order the API placed for it, when it answered. */
  orderId?: string | undefined;
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
  /** With `already`: that earlier order was abandoned here after the API placed it (its codes were not written). */
  abandoned?: boolean | undefined;
  /** The row finished an earlier run's interrupted order under its key: that run may have sent the request. */
  resumed?: boolean | undefined;
  /**
   * With `resumed`: the codes file that earlier run was to write (`-`: standard output), another than this row's out
   * now: its out cell was all that changed, and this run wrote that order's codes to the new file (outMovedRows).
   */
  movedFrom?: string | undefined;
  dryRun?: boolean | undefined;
  /** A dry run's unit price, as the catalog gave it (minor units). */
  price?: { amount: number; currency: string } | undefined;
  /**
   * `notSent`: certainly nothing of the row's request reached the network (a refused connection). `orderId`: the
   * order the API had placed before the row failed.
   */
  error?: { code: string; message: string; exitCode: number; notSent?: true; orderId?: string } | undefined;
}

/** How the rows run: rows at once, whether each waits for its order, and --force for their out files. */
export interface RowOptions {
  concurrency: number;
  wait?: boolean | undefined;
  interval?: number | undefined;
  timeout?: number | undefined;
  force?: boolean | undefined;
  /** age recipients every row's codes file is encrypted to (checked against the rows' names before the run). */
  encryptTo?: string[] | undefined;
  /** The plan's path: its name goes into each row's intent and record (sameRowsElsewhere). */
  plan?: string | undefined;
  /** The run's --batch: kept in each row's intent and record, whose words name it (ref.ts planRunWords). */
  batch?: string | undefined;
}

/**
 * The plan's family: the scope its orders are placed in (server, environment, API key), the plan file's name
 * (not its folder: a copy elsewhere is the same plan) and the batch (`--batch`, to order the same plan again
 * on purpose, e.g. once a night). 12 hex digits, the first half of every row key of the plan.
 */
export function planFamily(scope: Scope, planPath: string, batch: string | undefined): string {
  return sha256(
    JSON.stringify(['giftcodes-plan', scope.baseUrl, scope.environment, scope.keyId, planName(planPath), batch ?? '']),
  ).slice(0, 12);
}

/**
 * What a shell's process substitution (`--plan <(…)`) passes: a descriptor's path, its number chosen by the shell;
 * and stdin's own names (`--plan /dev/stdin < plan.csv`), the same descriptor as /dev/fd/0 (a review ordered one pipe
 * plan twice, given once as /dev/fd/0 and once as /dev/stdin, and wrote its codes into /dev/).
 */
const DESCRIPTOR = /^\/(dev|proc\/(self|\d+))\/fd\/\d+$|^\/dev\/stdin$/;

/**
 * The name a plan is keyed by: its file name; a descriptor's path (`/dev/fd/63`) names no file, and its number is
 * whichever the shell had free, so every such plan is keyed by the name `<(…)`: the same rows given that way again are
 * the same orders, whatever the number (docs/cron-and-plans.md).
 */
/** Whether a plan was given as a descriptor or stdin (keyed by one shared name, not a file's). */
export function fromDescriptor(planPath: string): boolean {
  return DESCRIPTOR.test(planPath);
}

export function planName(planPath: string): string {
  return DESCRIPTOR.test(planPath) ? PIPE_NAME : basename(planPath);
}

const PIPE_NAME = '<(…)';

/** The directory a row's out cell is relative to: the plan's; for a descriptor's plan, which has none, the current one. */
function planDir(planPath: string): string {
  return DESCRIPTOR.test(planPath) ? process.cwd() : dirname(planPath);
}

/**
 * A row's idempotency key: `plan-` and 24 hex digits, the plan's family then what the row is (its product,
 * quantity, out cell as written, and which occurrence of an identical row it is). Editing one row, or adding
 * one, leaves every other row's key alone: a fixed typo never orders the delivered rows again.
 */
export function rowKey(
  family: string,
  row: { productId: string; quantity: number; outCell: string; occurrence: number },
): string {
  return `plan-${family}${sha256(JSON.stringify([family, row.productId, row.quantity, row.outCell, row.occurrence])).slice(0, 12)}`;
}

/** The key versions before 0.2 gave a row: the plan's bytes and the line number. */
export function legacyRowKey(planSha: string, row: number): string {
  return `plan-${planSha.slice(0, 24)}-r${row}`;
}

/** What an `out` cell writes `{batch}` for: the run's `--batch`, so each night's codes go to a file of their own. */
export const BATCH_FIELD = '{batch}';
/** A batch that can go into a file name as it is: no directory separator, no leading dot or dash. */
const FILE_SAFE_BATCH = /^[A-Za-z0-9][A-Za-z0-9._+=@-]*$/;

/**
 * Parses the plan (keyed in `family`, when known; `{batch}` in an out cell written as `batch`); every bad row is
 * reported with its line number, and nothing is ordered if there is one. `known`: the product ids the last
 * `catalog list` saved, when at hand: a plan refused for its other rows names the rows they lack too, so the
 * person fixing it meets the typo in the same run rather than the next (the run checks them again, online).
 */
export function parsePlan(
  bytes: Buffer,
  planPath: string,
  family?: string,
  batch?: string,
  known: readonly string[] = [],
): PlanRow[] {
  return checkedPlanRows(parsePlanRows(bytes, planPath, family, batch), planPath, known);
}

/**
 * parsePlan's verdict on rows parsePlanRows read already: the rows, or the refusal of the plan for its bad rows (and,
 * with `known`, the products the catalog lacks) or for having none. Parsing a 1,000-row plan took ~8 ms, and a run
 * parsed it five times over before its first row (issue 33).
 */
export function checkedPlanRows(
  { rows, problems, named }: ReturnType<typeof parsePlanRows>,
  planPath: string,
  known: readonly string[] = [],
): PlanRow[] {
  if (problems.length > 0 && known.length > 0) {
    for (const row of named)
      if (!known.includes(row.productId))
        problems.push({
          line: row.line,
          text: `line ${row.line}: ${noSuchProduct(row.productId, known, 'as catalog list last saw it')}`,
          cached: true,
        });
  }
  if (problems.length > 0) throw badRows(planPath, problems, planHint(problems));
  if (rows.length === 0)
    throw new UsageError(`the plan ${planPath} has no rows`, {
      code: 'bad_plan',
      hint: 'each row is product,quantity[,out]',
    });
  return rows;
}

/** A bad row's line and words, and the hint for its cause where it has its own (else the plan's format). */
export interface PlanProblem {
  line: number;
  text: string;
  hint?: string;
  /** A product the catalog lacks: its hint (the catalog to read) is said beside the rows' own. */
  cached?: true;
}

/**
 * A plan's rows and the problems of its bad rows, by line (parsePlan refuses the plan for them). `named`: every row's
 * product id, its other cells good or bad, for a check against the catalog. Only a problem of the whole file (its
 * columns separated by semicolons) is thrown here.
 */
export function parsePlanRows(
  bytes: Buffer,
  planPath: string,
  family?: string,
  batch?: string,
): { rows: PlanRow[]; problems: PlanProblem[]; named: { line: number; productId: string }[] } {
  const notText = notCsvText(bytes);
  if (notText !== undefined)
    throw new UsageError(`the plan ${planPath} is ${notText}, not CSV text: nothing was ordered`, {
      code: 'bad_plan',
      hint: 'save it from the spreadsheet as "CSV UTF-8 (comma delimited)", one row product,quantity[,out] a line',
    });
  const planSha = sha256(bytes.toString('latin1'));
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const rows: PlanRow[] = [];
  const problems: PlanProblem[] = [];
  const bad = (line: number, text: string, hint?: string): void =>
    void problems.push({ line, text: `line ${line}: ${text}`, ...(hint ? { hint } : {}) });
  // Lines end in LF, CRLF, or a CR alone: Excel's "CSV (Macintosh)" saves so, and its plan read as one line of many
  // fields (an adversarial review).
  const lines = text.split(/\r\n|\r|\n/);
  const occurrences = new Map<string, number>();
  /** Every row's product id, its other cells good or bad. */
  const named: { line: number; productId: string }[] = [];
  let misordered = false;
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (misordered || trimmed === '' || trimmed.startsWith('#')) return;
    const cells = planCells(trimmed);
    // A spreadsheet's empty row (`,,`) is a blank line.
    if (cells.every((cell) => cell === '')) return;
    // Empty cells after the third are a spreadsheet's too (a column that another row used, or a cell once typed in
    // and cleared): `steam-us-20,2,a.csv,` was refused as "got 4 fields" (an adversarial review). They say nothing.
    while (cells.length > 3 && cells[cells.length - 1] === '') cells.pop();
    const names = cells.map((cell) => cell.toLowerCase());
    if (rows.length === 0 && problems.length === 0 && names.includes('product') && names.includes('quantity')) {
      if (names[0] === 'product' && names[1] === 'quantity') return; // the header
      // A header in another order would read every row wrongly: said once, and the rows are not read.
      misordered = true;
      return bad(
        line,
        `a header row names the columns product,quantity[,out] in that order, not ${cells.join(',')}`,
        'put the columns in that order, or leave the header row out',
      );
    }
    const [productId, quantity, out, ...extra] = cells;
    if (cells.length === 1 && /[;\t]/.test(trimmed)) {
      const separators = trimmed.includes(';') ? 'semicolons' : 'tabs';
      const hint =
        'save it from the spreadsheet as CSV with commas between the columns (in some locales: "CSV UTF-8 (comma delimited)")';
      // The first row so: the whole file is (said once, its other rows not read as nonsense).
      if (rows.length === 0 && problems.length === 0)
        throw new UsageError(
          `the plan ${planPath} has its columns separated by ${separators} (line ${line}), nothing was ordered: a plan is comma-separated (product,quantity[,out])`,
          { code: 'bad_plan', hint },
        );
      return bad(
        line,
        `its columns are separated by ${separators}; a plan is comma-separated (product,quantity[,out])`,
        hint,
      );
    }
    const cut = cutQuantity(cells);
    if (extra.length > 0 || cells.length < 2)
      return bad(
        line,
        `expected product,quantity[,out], got ${cells.length} fields${cut ? ` (a quantity with a thousands separator? ${cut})` : ''}`,
      );
    // A first row of column names other than product and quantity (`sku,qty`): a header, said as one. It read as a
    // row, "quantity must be a whole number, got "qty"" beside "no product "sku"" (a person's day).
    // Only a row of column names (a quantity column called qty, amount, count…; a product one called sku, item, id…):
    // a first order row with a word for its quantity (`apple-gift-card,TBD`) is a bad row, never "leave it out" (a
    // review).
    if (
      rows.length === 0 &&
      problems.length === 0 &&
      (QUANTITY_NAMES.test(quantity ?? '') || PRODUCT_NAMES.test(productId ?? '')) &&
      /^[A-Za-z][A-Za-z _.-]*$/.test(quantity ?? '')
    )
      return bad(
        line,
        `${cells.join(',')} reads as a header row, but a plan's header names its columns product,quantity[,out]`,
        "name the header's columns product,quantity[,out], or leave the header row out",
      );
    if (!productId || !/^[\x21-\x7e]{1,200}$/.test(productId))
      return bad(line, `"${productId ?? ''}" is not a product id`, 'see the product ids: giftcodes catalog list');
    named.push({ line, productId });
    // A spreadsheet writes 1500 as "1,500" (quoted, so it stays one cell): its thousands separators go.
    const digits = /^\d{1,3}(,\d{3})+$/.test(quantity ?? '') ? quantity!.replaceAll(',', '') : quantity;
    const n = /^\d+$/.test(digits ?? '') ? Number(digits) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || n > MAX_QUANTITY)
      return bad(line, `quantity must be a whole number from 1 to ${grouped(MAX_QUANTITY)}, got "${quantity ?? ''}"`);
    // `steam-us-20,1,500` is 1,500 codes cut at its separator far more often than 1 code for a file named 500.
    if (cut)
      return bad(line, `its out file "${out}" looks like the rest of a quantity with a thousands separator: ${cut}`);
    const outCell = out ?? '';
    let outName = outCell;
    if (outCell.includes(BATCH_FIELD)) {
      if (batch === undefined)
        return bad(
          line,
          `its out file names ${BATCH_FIELD}, which --batch gives (e.g. --batch "$(date +%F)")`,
          // Not a whole command to paste: one without the flags typed (--dry-run, --env live) would be another run,
          // a real order where a dry run was asked for.
          'give the run a batch name: add --batch "$(date +%F)" to the same command',
        );
      if (!FILE_SAFE_BATCH.test(batch))
        return bad(
          line,
          `--batch "${batch}" cannot go into a file name for ${BATCH_FIELD} (letters, digits and . _ + = @ -; a date: 2026-11-29)`,
          'a batch name for a file is a date or a word: --batch "$(date +%F)"',
        );
      outName = outCell.replaceAll(BATCH_FIELD, batch);
    }
    // `-` is stdout for --out; in a row it was a file named `-` beside the plan, written without a word. Refused as
    // /dev/stdout is (checkOutTarget), with the same hint.
    if (outName === '-')
      return bad(
        line,
        `its out file "-" is standard output, which a plan's rows cannot write to`,
        "give the path of a file in the row's out cell (a plan's rows cannot write to standard output)",
      );
    const outPath = outName === '' ? undefined : resolve(planDir(planPath), outName);
    const what = JSON.stringify([productId, n, outCell]);
    const occurrence = (occurrences.get(what) ?? 0) + 1;
    occurrences.set(what, occurrence);
    const key = family === undefined ? '' : rowKey(family, { productId, quantity: n, outCell, occurrence });
    rows.push({
      row: line,
      productId,
      quantity: n,
      key,
      legacyKey: legacyRowKey(planSha, line),
      ...(outPath ? { out: outPath } : {}),
      ...(outName !== outCell ? { batched: true } : {}),
    });
  });
  const outs = new Map<string, number>();
  for (const row of rows) {
    if (!row.out) continue;
    // Two spellings of one file (a directory reached through a symbolic link) are one file: one writer.
    const same = realFile(row.out);
    const earlier = outs.get(same);
    if (earlier !== undefined)
      bad(
        row.row,
        `out file ${row.out} is also the out file of line ${earlier}`,
        'each row writes a file of its own: give the rows different out files',
      );
    else outs.set(same, row.row);
  }
  return { rows, problems, named };
}

/** The refusal of a plan with bad rows: every problem by line (at most 20 said), its rows counted, nothing ordered. */
function badRows(
  planPath: string,
  problems: readonly PlanProblem[],
  hint: string,
  exitCode?: CliError['exitCode'],
): CliError {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const message = `the plan ${planPath} has ${counted(new Set(sorted.map((problem) => problem.line)).size, 'bad row')}, nothing was ordered: ${firstOf(
    sameByLines(sorted.map((problem) => ({ line: problem.line, text: problem.text }))),
    20,
  )}`;
  return exitCode === undefined || exitCode === ExitCode.usage
    ? new UsageError(message, { code: 'bad_plan', hint })
    : new CliError(exitCode, message, { code: 'bad_plan', hint });
}

/**
 * The refusal of a plan some of whose rows do not parse, with what the checks of the rows that do parse found (each
 * existing or unwritable out file, `outProblems`; each product the catalog lacks, `unknown`), in one error by line,
 * so that the person fixing the plan meets every problem in one run. The rows' hint (planHint), then each other
 * kind's once. A directory that cannot be written keeps its exit, as refusePlan keeps it.
 */
export function badRowsRefusal(
  planPath: string,
  problems: readonly PlanProblem[],
  outProblems: readonly RowProblem[],
  unknown?: { rows: readonly { row: number; productId: string }[]; ids: readonly string[]; aside?: string },
): CliError {
  const typos = (unknown?.rows ?? []).map((r): PlanProblem => ({
    line: r.row,
    text: `line ${r.row}: ${noSuchProduct(r.productId, unknown!.ids, unknown!.aside)}`,
    cached: true,
  }));
  const hints = [planHint([...problems, ...typos])];
  for (const { error } of outProblems) if (error.hint && !hints.includes(error.hint)) hints.push(error.hint);
  const local = outProblems.find((p) => p.error.exitCode !== ExitCode.usage)?.error;
  return badRows(
    planPath,
    [...problems, ...typos, ...outProblems.map((p) => ({ line: p.row, text: p.error.message }))],
    hints.join('; '),
    local?.exitCode,
  );
}

/**
 * A refused plan's hint: one cause, its own hint; causes of several kinds, the plan's format. The typos the cached
 * catalog shows add its hint beside that one, never in its place (the --batch to add stays said).
 */
function planHint(problems: readonly { hint?: string; cached?: true }[]): string {
  const rows = problems.filter((problem) => !problem.cached);
  const hint =
    new Set(rows.map((problem) => problem.hint)).size === 1 && rows[0]!.hint
      ? rows[0]!.hint
      : 'each row is product,quantity[,out] (a header row product,quantity,out is optional)';
  return rows.length < problems.length ? `${hint}; ${UNKNOWN_PRODUCT_HINT}` : hint;
}

/**
 * A plan line's cells, as CSV quotes them: a cell that starts with `"` runs to its closing quote (`""` is a
 * quote inside it), commas included, when only spaces come between that quote and the next comma; any other
 * cell runs to the next comma as written (`x"y"` stays `x"y"`). Cells are trimmed.
 */
function planCells(line: string): string[] {
  const cells: string[] = [];
  for (let at = 0; ;) {
    let start = at;
    while (line[start] === ' ') start++;
    if (line[start] === '"') {
      let value = '';
      let k = start + 1;
      for (; k < line.length; k++) {
        if (line[k] !== '"') value += line[k];
        else if (line[k + 1] === '"') value += line[++k];
        else break;
      }
      let next = k + 1;
      while (line[next] === ' ') next++;
      if (k < line.length && (next >= line.length || line[next] === ',')) {
        cells.push(value.trim());
        if (next >= line.length) return cells;
        at = next + 1;
        continue;
      }
    }
    const comma = line.indexOf(',', at);
    cells.push((comma === -1 ? line.slice(at) : line.slice(at, comma)).trim());
    if (comma === -1) return cells;
    at = comma + 1;
  }
}

/**
 * What to write when a row's quantity looks cut at its thousands separators (`steam-us-20,1,500[,x.csv]`: a
 * quantity of one to three digits, then cells of three): `write 1500, or "1,500" in quotes`; else undefined.
 */
function cutQuantity(cells: readonly string[]): string | undefined {
  let groups = 2;
  while (/^\d{3}$/.test(cells[groups] ?? '')) groups++;
  if (groups === 2 || !/^\d{1,3}$/.test(cells[1] ?? '')) return undefined;
  const parts = cells.slice(1, groups);
  return `write ${parts.join('')}, or "${parts.join(',')}" in quotes`;
}

/**
 * The plan's bytes, read once a run: every reading of the plan (its first check, its keys, its rows) parses these,
 * so that a plan given as a pipe (`--plan <(…)`, a FIFO), which can be read once, is the same plan each time.
 */
export function readPlanBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    // Exit 8, as every local file that cannot be read (docs/exit-codes.md): a plan that is missing or a directory
    // gave 2 where the docs said 8, and a --ca-file or identity file given so gives 8 (a review).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR')
      throw new LocalError(
        `cannot read the plan ${path}: ${code === 'ENOENT' ? 'no such file' : 'it is a directory'}`,
        { code: 'plan_unreadable', hint: 'check the --plan path' },
      );
    throw new LocalError(`cannot read the plan ${path} (${code ?? 'error'})`, { code: 'plan_unreadable' });
  }
}

export function readPlan(path: string, family?: string, batch?: string, known?: readonly string[]): PlanRow[] {
  return parsePlan(readPlanBytes(path), path, family, batch, known);
}

/** What a row worker needs: the run's connection, and its Io, client, journal and interruption. */
export interface RowDeps {
  io: Io;
  api: ApiClient;
  journal: Journal;
  signal: AbortSignal;
  connection: Connection;
  /**
   * Rows not asked about because they resume orders confirmed when an earlier run placed them (a live plan run
   * again): each takes over its interrupted intent or sends nothing (journal.begin's resumeOnly), never a new order.
   */
  resumeOnly?: ReadonlySet<string>;
}

/**
 * A record of a row delivered by an earlier run in this scope (server, environment and API key): the same
 * plan run under test, on another server or by another reseller (another profile's key) is other orders,
 * and its records there say nothing of these rows.
 */
export function deliveredHere(record: OrderRecord | undefined, scope: Scope): OrderRecord | undefined {
  return record !== undefined && (record.outcome === 'delivered' || abandonedPlaced(record)) && inScope(record, scope)
    ? record
    : undefined;
}

/**
 * An order the API placed under a row's key that a person abandoned here: charged, so the row is done as a delivered
 * one is, for every rule that asks (read, not ordered again; a copied or edited plan, another address spelling),
 * unless its order is known to have failed (then the row is ordered anew: sentAgainKey). Sent again, its key was
 * that order within the day and a second one after it; seen only as delivered rows, a copy, an edit or another
 * address of the plan ordered it again without a word (adversarial reviews).
 */
export function abandonedPlaced(record: OrderRecord): boolean {
  return record.outcome === 'abandoned' && record.orderId !== undefined && !readFailed(record);
}

/** Whether the record's order was last read as failed (its status, noted by any command that read it). */
function readFailed(record: OrderRecord): boolean {
  return record.status !== undefined && orderOutcome(record.status) === 'failed';
}

/**
 * A plan row's key (rowKey: `plan-`, its family's 12 hex digits, the row's 12), or a later key of the row (`-g2`…:
 * sentAgainKey); the family captured.
 */
const PLAN_ROW_KEY = /^plan-([0-9a-f]{12})[0-9a-f]{12}(?:-g[1-9]\d*)?$/;

/** A row key of a version before 0.2 (legacyRowKey: the plan's bytes, then the line, captured). */
const LEGACY_ROW_KEY = /^plan-[0-9a-f]{24}-r(\d+)$/;

/**
 * Whether a key is a row key of this plan family (rowKey: `plan-`, the family's 12 hex digits, the row's 12), or a
 * later key of such a row (`-g2`, `-g3`…: sentAgainKey).
 */
function ofFamily(key: string, family: string): boolean {
  const prefix = `plan-${family}`;
  const length = prefix.length + 12;
  return key.startsWith(prefix) && (key.length === length || GENERATION.test(key.slice(length)));
}

/** The suffix of a row's later key: its generation, from 2. */
const GENERATION = /^-g[1-9]\d*$/;
/** How many keys one row goes through at most (the last is sent again, with its refusal replayed). */
const MAX_GENERATION = 100;

/**
 * The key a row is sent with now: its own, or, while the API refused the order under it (a wallet short of funds,
 * a product out of supply: refusesTheOrder, the refusals that certainly placed nothing) or the order under it
 * ended failed, the next one (`-g2`, `-g3`…). A server that keeps a key's answer answered the same plan run again
 * with the same refusal or failed order for a day, funds added or not, so the plan's hint sent the person to order
 * the row by itself under a new key; the next run of the plan (a day later, the key forgotten) then ordered the row
 * a second time (an adversarial review). Under its next key the same plan orders the row once it is fixed, and
 * every run after reads its record as any other row's. Not past a key with an intent left (it is resumed), nor
 * past any other ending (delivered, abandoned, another refusal).
 */
export function sentAgainKey(key: string, journal: Journal, scope: Scope): string {
  // Every key of the row in one read (history.ts keeps a row's later keys in its key's file), and the highest of
  // them: a key whose record is gone (history-days pruned it, it ended first) is passed while a later one has one.
  // Walking from the row's key alone, a pruned refusal sent the row out again under its own key, a second order (a
  // review), and one step of look-ahead fell to two keys pruned (another).
  const records = journal.history.generations(key, scope);
  const keyOf = (generation: number): string => (generation === 1 ? key : `${key}-g${generation}`);
  let last = 1;
  for (const recorded of records.keys()) last = Math.max(last, Number(/-g(\d+)$/.exec(recorded)?.[1] ?? 1));
  // Its keys looked up from one listing of the journal (a fresh row looks up two).
  return journal.sameListing(() => {
    for (let generation = 1; generation < MAX_GENERATION; generation++) {
      const current = keyOf(generation);
      if (journal.find(current)) return current;
      const record = records.get(current);
      const placedNothing = record?.outcome === 'refused' && refusesTheOrder(record.error?.code ?? '');
      // Its order failed (ended so here, or read so after an abandon): the row is ordered anew.
      const failed = record?.outcome === 'failed' || (record?.outcome === 'abandoned' && readFailed(record));
      const pruned = record === undefined && (generation < last || journal.find(keyOf(generation + 1)) !== undefined);
      if (!(placedNothing || failed || pruned)) return current;
    }
    return keyOf(MAX_GENERATION);
  });
}

/** The rows an earlier run delivered in this scope, by key: read from the local record, never placed again. */
export function deliveredRows(
  journal: Journal,
  scope: Scope,
  records: readonly OrderRecord[] = journal.history.list(),
): Map<string, OrderRecord> {
  return new Map(records.filter((r) => deliveredHere(r, scope)).map((r) => [r.key, r]));
}

/**
 * Rows this plan (its file name and batch) delivered in the last 24 hours, in this environment, under a scope
 * that differs from this run's in one part only: another API key at the same server address in the same profile
 * (a key rotated), or the same key at another spelling of the address (`localhost` for `127.0.0.1`). Their keys
 * were made in that scope, so here the same rows have new keys, and ordering them charges them again (an
 * adversarial review: 6 orders for a 2-row plan under one `--batch`). Only those of a product and quantity this
 * run would order.
 */
export function deliveredUnderOtherScope(
  records: readonly OrderRecord[],
  scope: Scope,
  profile: string,
  todo: readonly PlanRow[],
  planPath: string,
  batch: string | undefined,
  now: number = Date.now(),
): OrderRecord[] {
  const recent = records.filter((r) => (r.outcome === 'delivered' || abandonedPlaced(r)) && endedWithinDay(r, now));
  return underOtherScope(recent, scope, profile, todo, planPath, batch);
}

/**
 * The rows another plan (another file name or directory, or another --batch of it within BATCH_TYPO_MS: another
 * family) delivered in this scope (in any profile holding this key) in the last 24 hours, when every one of them is a row of this plan (each product and quantity at most
 * as often as here) and they are all of this plan's rows or at least two of them; else undefined. A plan copied,
 * renamed or saved under another name (and a line added) is its own plan and orders every row again: a review ran
 * `restock (copy).csv` after `restock.csv` and each row was charged twice, without a word. One row in common with
 * another plan is not said (two plans may well order one product alike).
 */
export function sameRowsElsewhere(
  records: readonly OrderRecord[],
  scope: Scope,
  rows: readonly { productId: string; quantity: number }[],
  family: string,
  plan: { name: string; batch: string | undefined },
  now: number = Date.now(),
): OrderRecord[] | undefined {
  const groups = otherFamilies(
    // Any profile holding this key (deliveredHere: this scope): one reseller to the API (a review).
    records.filter((r) => deliveredHere(r, scope) && endedWithinDay(r, now)),
    family,
  );
  for (const group of groups) {
    if (group.length < Math.min(2, rows.length)) continue;
    // The same plan file under another --batch is ordered again on purpose (a nightly job's date): no copy, unless it
    // delivered them within the last hours (BATCH_TYPO_MS): a --batch mistyped and run again a minute later charged
    // every row again without a word (a review). A record from before plans were named in records says nothing of it,
    // so with a --batch such a group is not said.
    if (group.some((r) => r.plan === undefined && plan.batch !== undefined)) continue;
    if (group.some((r) => r.plan === plan.name) && !group.every(lately)) continue;
    if (rowsOf(group, rows)) return group;
  }
  // A plan named as a copy of the other (`restock (1).csv`: a browser's second download, "Save as", a copy then
  // edited): the rows that plan delivered lately which this one has, however few, and whatever else it changed. The
  // rule above needed every row of the other plan, and an edited copy charged the rest again without a word (a
  // review). A plan of another name sharing a row is not said: two shops' plans may well.
  for (const group of groups) {
    const copied = fitting(
      group.filter((r) => r.plan !== undefined && namedAsCopies(r.plan, plan.name) && lately(r)),
      rows,
    );
    if (copied.length > 0) return copied;
  }
  return undefined;

  function lately(r: OrderRecord): boolean {
    return now - Date.parse(r.endedAt ?? r.updatedAt) < BATCH_TYPO_MS;
  }
}

/**
 * The marks a copy's file name gets (a browser's ` (1)`, Windows' ` - Copy` and `Copy of `, macOS' ` copy 2`, `_copy`),
 * each on the name without its extension.
 */
const COPY_MARKS = [
  /^copy (?:\(\d+\) )?of /i,
  / \(\d+\)$/,
  / - copy(?: \(\d+\))?$/i,
  / \(copy\)$/i,
  /[ _]copy(?:[ _]?\d+)?$/i,
];

/** A plan's file name without its copy marks (COPY_MARKS), each taken off as often as it was added: `restock.csv`. */
export function originalName(name: string): string {
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? name.slice(dot) : '';
  let stem = dot > 0 ? name.slice(0, dot) : name;
  // One mark at a time, the first that matches, then again from the first: `restock - Copy - Copy` lost ` - Copy`, and
  // then `[ _]copy` took the next one's ` Copy`, leaving `restock -` (a unit test).
  for (let changed = true; changed;) {
    changed = false;
    for (const mark of COPY_MARKS) {
      const without = stem.replace(mark, '');
      if (without === stem || without === '') continue;
      stem = without;
      changed = true;
      break;
    }
  }
  return `${stem}${extension}`;
}

/** Two plans' file names of which one is a copy of the other, or both of a third (`restock (1).csv`, `restock.csv`). */
function namedAsCopies(a: string, b: string): boolean {
  return a !== b && originalName(a) === originalName(b);
}

/**
 * How lately the same plan file's rows delivered under another --batch are said before a run orders them again: a
 * mistyped --batch corrected and run again is minutes later; the nightly job's next batch is a day later.
 */
export const BATCH_TYPO_MS = 6 * 3_600_000;

/**
 * The items (records or intents) of plan families other than `family`, grouped by family. A row sent again under its
 * next key (-g2…: sentAgainKey) is as much a row of its plan (a review copied a plan whose row had gone under -g2, and
 * it was ordered again without a word).
 */
function otherFamilies<T extends { key: string }>(items: readonly T[], family: string): T[][] {
  const familyOf = (item: T): string | undefined => PLAN_ROW_KEY.exec(item.key)?.[1];
  const others = items.filter((item) => familyOf(item) !== undefined && familyOf(item) !== family);
  return [...groupBy(others, familyOf).values()];
}

/** Whether every row of `group` is a row of `rows`: each product and quantity at most as often as there. */
function rowsOf(
  group: readonly { productId: string; quantity: number }[],
  rows: readonly { productId: string; quantity: number }[],
): boolean {
  return fitting(group, rows).length === group.length;
}

/** The items of `group` that are rows of `rows`, in order, each product and quantity at most as often as there. */
function fitting<T extends { productId: string; quantity: number }>(
  group: readonly T[],
  rows: readonly { productId: string; quantity: number }[],
): T[] {
  const rowOf = (r: { productId: string; quantity: number }): string => `${r.productId}\n${r.quantity}`;
  const left = new Map<string, number>();
  for (const r of rows) left.set(rowOf(r), (left.get(rowOf(r)) ?? 0) + 1);
  return group.filter((r) => {
    const n = left.get(rowOf(r)) ?? 0;
    left.set(rowOf(r), n - 1);
    return n > 0;
  });
}

/**
 * The rows a plan has twice or more without an out file (the same product and quantity), by their lines: each is an
 * order of its own (occurrence in rowKey), as a nightly plan may mean; a row copied down by accident was charged twice
 * without a word (a review). Said by the dry run, the run's summary and the live question, never refused; undefined
 * when there are none. Rows with out files write files of their own, each a row meant.
 */
export function sameRowTwice(
  rows: readonly Pick<PlanRow, 'row' | 'productId' | 'quantity' | 'out'>[],
): string | undefined {
  const same = [
    ...groupBy(
      rows.filter((r) => r.out === undefined),
      (r) => `${r.productId}\n${r.quantity}`,
    ).values(),
  ].filter((group) => group.length > 1);
  return same.length === 0
    ? undefined
    : same
        .map(
          (group) =>
            `${linesOf(group.map((r) => r.row))} are the same row (${unitsOf(group[0]!.quantity, group[0]!.productId)}, no out file), an order each`,
        )
        .join('; ');
}

/**
 * A record of a request abandoned while it was out (sentUnanswered) in this scope, not declined, and within the day
 * the server keeps its key: the API may have placed it, and its key, sent again, is that order.
 */
function abandonedWhileOut(r: OrderRecord, now: number): boolean {
  return sentUnanswered(r) && r.declined !== true && staleness(r, now) === undefined;
}

/**
 * The rows other plans (another file name or directory, or another --batch) or single orders (`order place --product`)
 * sent in this scope (any profile holding this key: one reseller to the API) and never finished, that are rows this
 * run orders (each product and quantity at most as often as here): their runs killed or stopped (intents left here to
 * resume), or abandoned while their requests were out (sentUnanswered records, within the day and not declined). They
 * may have been charged, and this plan orders them again. A plan killed mid-run, then run as a copy or without its
 * --batch, ordered every charged row again, asked nothing; so did one whose rows were abandoned, or a copy also
 * edited, or run from a second profile holding the key, or a single order stopped while its request was out
 * (adversarial reviews).
 */
export function sameRowsLeft(
  left: { intents: readonly Intent[]; records: readonly OrderRecord[] },
  scope: Scope,
  todo: readonly { productId: string; quantity: number }[],
  family: string,
  resumable: (intent: Intent) => boolean,
  now: number = Date.now(),
): (Intent | OrderRecord)[] {
  // Another key of the same reseller's too (a second review: the plan with another --batch in a second profile holding
  // the reseller's other key was told only "orders interrupted in earlier runs", and asked nothing at a terminal).
  const unfinished: (Intent | OrderRecord)[] = [
    ...left.intents.filter(
      (i) => (sameScope(i, scope) || otherKeyOfReseller(i, scope)) && !neverSent(i) && resumable(i),
    ),
    ...left.records.filter((r) => (inScope(r, scope) || otherKeyOfReseller(r, scope)) && abandonedWhileOut(r, now)),
  ];
  return fitting([...otherFamilies(unfinished, family).flat(), ...unfinished.filter(singleOrder)], todo);
}

/**
 * A key of a single order (`order place --product`, a key the journal made or one given with --idempotency-key): no
 * plan row's key of this version (PLAN_ROW_KEY) nor of a version before 0.2 (LEGACY_ROW_KEY: keyRows resumes this
 * plan's own under it).
 */
function singleOrder(item: { key: string }): boolean {
  return !PLAN_ROW_KEY.test(item.key) && !LEGACY_ROW_KEY.test(item.key);
}

/**
 * The rows of `todo` another plan (or --batch) is placing right now: its running process's intents on this machine,
 * in this scope (any profile holding this key). A copy of the nightly plan run while the nightly job ran was
 * charged for every row again without a word; the same copy run a minute later was asked (sameRowsElsewhere).
 */
export function sameRowsRunning(
  intents: readonly Intent[],
  scope: Scope,
  todo: readonly { productId: string; quantity: number }[],
  family: string,
): Intent[] {
  // isAlive is false for another machine's process: its pid says nothing here.
  const running = intents.filter((i) => sameScope(i, scope) && anotherLiveRun(i.owner));
  return fitting(otherFamilies(running, family).flat(), todo);
}

/**
 * Of another run than this plan's (another plan, --batch or a single order), at this environment with this API key
 * (any address spelling, any profile: one reseller to the API): a review's nightly job at `localhost` and a single
 * order were not counted, and each was a second charge.
 */
function otherRun(
  item: { key: string; environment: string; keyId?: string | undefined },
  scope: Scope,
  family: string,
): boolean {
  return (
    PLAN_ROW_KEY.exec(item.key)?.[1] !== family &&
    item.environment === scope.environment &&
    (item.keyId === undefined || item.keyId === scope.keyId)
  );
}

/** Other runs' orders under way as a live plan's first question is asked (recover.ts footprintOf). */
export function otherRunsNotes(intents: readonly Intent[], scope: Scope, family: string): Footprint {
  return footprintOf(intents, (i) => otherRun(i, scope, family));
}

/**
 * The orders of rows this run orders (fitting: no more of one than it orders) that other runs placed, sent or began
 * since `before` (recover.ts placedSince). An adversarial review's two plans sharing two rows were both charged within
 * a minute, without a word.
 */
export function rowsPlacedSince(
  now: { intents: readonly Intent[]; records: () => readonly OrderRecord[] },
  before: Footprint,
  scope: Scope,
  family: string,
  todo: readonly { productId: string; quantity: number }[],
): { since: (Intent | OrderRecord)[]; now: Footprint } {
  const placed = placedSince(now, before, (item) => otherRun(item, scope, family));
  return { since: fitting(placed.since, todo), now: placed.now };
}

/** What a row of a plan was in a scope: a record's or an intent's key, product, quantity and scope. */
export interface ScopedRow {
  key: string;
  productId: string;
  quantity: number;
  baseUrl: string;
  environment: string;
  keyId?: string | undefined;
  resellerId?: string | undefined;
  profile: string;
}

/**
 * The rows of `items` that this plan (its file name and batch) made in a scope that differs from this run's in one
 * part only (another key in the same profile at this address, or this key at another spelling of it), or with another
 * API key of the same reseller (sameReseller: login learned both keys' reseller, at this API) in any profile, of a
 * product and quantity this run would order. deliveredUnderOtherScope's, and the intents such a run sent and never
 * finished (a cron job killed, then the key rotated: its charged rows were ordered again, another review found; and
 * the same plan run in a second profile holding a second key of the reseller, every row charged twice).
 */
export function underOtherScope<T extends ScopedRow>(
  items: readonly T[],
  scope: Scope,
  profile: string,
  todo: readonly PlanRow[],
  planPath: string,
  batch: string | undefined,
): T[] {
  const wanted = new Set(todo.map((r) => `${r.productId}\n${r.quantity}`));
  const families = new Map<string, string>();
  return items.filter((r) => {
    if (r.environment !== scope.environment || r.keyId === undefined) return false;
    const sameKey = r.keyId === scope.keyId;
    const sameAddress = r.baseUrl === scope.baseUrl;
    // Both the same: this scope's (read as delivered rows).
    if (sameKey && sameAddress) return false;
    // Another key: one rotated in this profile at this address, or another key of the same reseller at this API in any
    // profile. Otherwise another profile's key, or another key at another server, is another reseller's, whose orders
    // are its own.
    if (!sameKey && !(sameAddress && r.profile === profile) && !sameReseller(r, scope)) return false;
    if (!PLAN_ROW_KEY.test(r.key) || !wanted.has(`${r.productId}\n${r.quantity}`)) return false;
    const where = `${r.baseUrl}\n${r.keyId}`;
    let family = families.get(where);
    if (family === undefined) {
      family = planFamily(
        { baseUrl: r.baseUrl, environment: r.environment as Scope['environment'], keyId: r.keyId },
        planPath,
        batch,
      );
      families.set(where, family);
    }
    return r.key.startsWith(`plan-${family}`);
  });
}

/**
 * This plan's rows (its file name and batch) as another API key of the same reseller made them (otherKeyOfReseller:
 * login learned both keys' reseller, at this API), each matched to the row here it is: by key, not by product and
 * quantity, since each row's key under that key's family is made from the same plan (`keyedUnder`: the plan parsed
 * with that family; a row's later keys, -g2…, are its own). Row key here → the item (intent or record). A key rotated in
 * a profile after a killed night, the same cron line then run again with --yes, ordered the charged row a second time,
 * and every row that night delivered too (an adversarial review), where a single order is refused. Another reseller's
 * key, or one whose reseller is not known, is not matched (underOtherScope's rules say those). An intent of a plan of
 * this file name in another directory (Intent.planDir) is that plan's.
 */
export function resellerKeyRows<T extends ScopedRow & { planDir?: string | undefined }>(
  items: readonly T[],
  scope: Scope,
  rows: readonly PlanRow[],
  keyedUnder: (family: string) => readonly { key: string }[],
  plan: { path: string; batch: string | undefined; dir?: string | undefined },
): Map<string, T> {
  const matched = new Map<string, T>();
  const families = new Map<string, readonly { key: string }[]>();
  for (const item of items) {
    if (item.keyId === undefined || !otherKeyOfReseller(item, scope) || !PLAN_ROW_KEY.test(item.key)) continue;
    if (!samePlanDir(item.planDir, plan.dir)) continue;
    const family = planFamily(
      { baseUrl: item.baseUrl, environment: item.environment as Scope['environment'], keyId: item.keyId },
      plan.path,
      plan.batch,
    );
    if (!ofFamily(item.key, family)) continue;
    let theirs = families.get(family);
    if (theirs === undefined) families.set(family, (theirs = keyedUnder(family)));
    const base = item.key.replace(GENERATION_SUFFIX, '');
    const at = theirs.findIndex((r) => r.key === base);
    const row = rows[at];
    if (row !== undefined && !matched.has(row.key)) matched.set(row.key, item);
  }
  return matched;
}

/** A row's later key's suffix (`-g2`…: sentAgainKey), to take off for the row's own key. */
const GENERATION_SUFFIX = /-g[1-9]\d*$/;

/** Whether an intent was made in this scope (server, environment, API key). */
export function sameScope(intent: Scope, scope: Scope): boolean {
  return intent.baseUrl === scope.baseUrl && intent.environment === scope.environment && intent.keyId === scope.keyId;
}

/**
 * The rows with the keys they go by: a row that an older version ordered (its record in this scope, or its
 * interrupted intent) and this one has not goes on under that version's key, never ordered a second time. Older
 * versions had no --batch: a run with one is another run of the plan on purpose, and keeps its own keys (an
 * adversarial review: after an upgrade, a nightly `--batch "$(date +%F)"` was told every night that its rows were
 * ordered by an earlier run, and restocked nothing).
 */
export function keyRows(
  rows: readonly PlanRow[],
  delivered: ReadonlyMap<string, OrderRecord>,
  journal: Journal,
  scope: Scope,
  batch: string | undefined,
  /** For outMovedRows: the plan file's directory, and how to tell a codes file written by an intent's run. */
  moved: { planDir?: string | undefined; writtenAt?: (intent: Intent, path: string) => boolean } = {},
): PlanRow[] {
  const again = (row: PlanRow): PlanRow => {
    const key = sentAgainKey(row.key, journal, scope);
    return key === row.key ? row : { ...row, key };
  };
  // Every row's keys looked up from one listing of the journal (Journal.sameListing), not one a row: 1,000 listings
  // at a 1,000-row plan's start (issue 33).
  return journal.sameListing(() => {
    // This scope's intents, read once for the plan, and only when a row needs them.
    let scoped: Intent[] | undefined;
    const intents = (): Intent[] => (scoped ??= journal.read().intents.filter((i) => sameScope(i, scope)));
    const undelivered = (intent: Intent): boolean => journal.reached(intent) === undefined;
    const moves = { undelivered, writtenAt: () => false, ...moved };
    if (batch !== undefined) return outMovedRows(rows.map(again), delivered, intents, moves);
    let pending: Set<string> | undefined;
    const interrupted = (key: string): boolean => (pending ??= new Set(intents().map((i) => i.key))).has(key);
    const keyed = rows.map((row) => {
      if (
        delivered.has(row.key) ||
        !(delivered.has(row.legacyKey) || interrupted(row.legacyKey)) ||
        interrupted(row.key)
      )
        return again(row);
      return again({ ...row, key: row.legacyKey });
    });
    return outMovedRows(keyed, delivered, intents, moves);
  });
}

/**
 * The directory of a plan file (Intent.planDir): two plans of one file name in two directories are two plans. Its real
 * path (symlinks resolved), so that one folder reached by two paths (a cron line's /srv/current/night.csv through a
 * symlink, a person's `cd` into the release and `night.csv`) is one plan: compared as written, the run by the second
 * path was not refused for the row the first one's killed run had sent under a rotated key, and --yes ordered it again
 * (an adversarial review, two charges). Where the path cannot be resolved (gone, unreadable), as written; a plan read
 * from a descriptor (`<(…)`) keeps /dev/fd, whose real path is the reading process's own.
 */
export function planDirOf(plan: string): string {
  const dir = dirname(resolve(plan));
  return DESCRIPTOR.test(plan) ? dir : realPath(dir);
}

/**
 * Whether a note's plan directory (Intent.planDir) is this plan's (`here`: planDirOf): either unknown (written before
 * it was kept) is taken as the same, and one written as a path before real paths were kept is resolved first.
 */
export function samePlanDir(noted: string | undefined, here: string | undefined): boolean {
  return noted === undefined || here === undefined || noted === here || realPath(noted) === here;
}

/**
 * samePlanDir against one plan's directory, for many notes: each directory noted resolved once. A history holds the
 * same few directories in every record, and 90,000 records of another shop's folder were 90,000 realpath walks
 * (1.3 s of a plan's start; BENCHMARKS.md, thirty-sixth round).
 */
export function samePlanDirAs(here: string | undefined): (noted: string | undefined) => boolean {
  const seen = new Map<string | undefined, boolean>();
  return (noted) => {
    let same = seen.get(noted);
    if (same === undefined) seen.set(noted, (same = samePlanDir(noted, here)));
    return same;
  };
}

/**
 * The rows whose out cell is all that changed since an earlier run of this plan (its scope, file name and --batch)
 * placed them and could not deliver their codes (a full disk, an unwritable file: exit 8, "order … was placed"), each
 * keyed as that run's order, to finish it and write its codes to the row's out file now; every other row as it was.
 * An out cell is part of a row's key, so the row pointed at another disk had a new key, and the same plan run again
 * (with --yes) placed it a second time beside the order it already held (an adversarial review, confirmed by the
 * server's ledger), where `order place --out` to another file finishes the same order.
 *
 * Such an earlier order is an intent of this plan's family (`intents`: this scope's) that no row of the plan goes by,
 * of the same product and quantity as a row with no order of its own (no intent, no delivered record under its key),
 * whose request went out (its order id known, or its answer lost: neverSent charged nothing and is left as it is),
 * whose codes reached nobody (`undelivered`: journal.reached), left here by a run that is gone and not stale
 * (resumableHere: one a live run holds is that run's, one past the day is never sent again silently). Matched by
 * product and quantity, not by line: a row's key has no line either, and a line added above it changes nothing of
 * it; two identical rows take such orders one each, the oldest first. An order delivered to its old file, or one
 * whose row changed its product or quantity, is not matched: the changed plan's rules say those (changedSince,
 * interruptedGone). Nor is one whose row the plan still has (under its own key): a row added beside it is a new order.
 * Once finished so, the order's record (its codes in the row's new file) is the row's: the same command again reads
 * the row as delivered there, never as a file holding another order's codes.
 */
export function outMovedRows(
  rows: readonly PlanRow[],
  delivered: ReadonlyMap<string, OrderRecord>,
  scoped: () => readonly Intent[],
  o: {
    undelivered: (intent: Intent) => boolean;
    /** Whether the intent's codes file is at `path` as its run wrote it (journal/codes-file.ts deliveredFile). */
    writtenAt: (intent: Intent, path: string) => boolean;
    /** This plan file's directory (Intent.planDir). */
    planDir?: string | undefined;
  },
): PlanRow[] {
  const family = rows.map((r) => PLAN_ROW_KEY.exec(r.key)?.[1]).find((f) => f !== undefined);
  // Every row delivered under its own key (the same plan run again): nothing to match, and the journal is not read.
  if (family === undefined || rows.every((r) => delivered.has(r.key))) return [...rows];
  const intents = scoped();
  const keys = new Set(rows.flatMap((r) => [r.key, r.legacyKey]));
  const ownIntent = new Set(intents.map((i) => i.key));
  // Another plan of this file name in another directory (two shops' restock.csv, one --batch) shares the family: its
  // orders are its own (a second review: one shop's row finished the other's order, and that shop restocked nothing).
  const ours = (i: Intent): boolean => ofFamily(i.key, family) && !keys.has(i.key) && samePlanDir(i.planDir, o.planDir);
  const left = intents
    .filter((i) => ours(i) && !neverSent(i) && resumableHere(i) && o.undelivered(i))
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
  // Such an order whose finishing run wrote the row's new file and was cut before it said so (a closed pipe, a kill):
  // the row goes by its key, and the same command ends it, charging nothing (a second review: it was refused as "the
  // file exists", and --force placed a second order over the first one's codes).
  const written = intents.filter((i) => ours(i) && !o.undelivered(i));
  // The orders of this plan that such a run delivered to the row's new file: the same command run once more reads the
  // row as delivered there (under that order's key), never as a file that holds another order's codes, nor a new order.
  const done = [...delivered.values()].filter(
    // (A record to standard output never matches: a row's out is a file's path, and a row without one matches none.)
    (r) => ofFamily(r.key, family) && !keys.has(r.key),
  );
  if (left.length === 0 && done.length === 0 && written.length === 0) return [...rows];
  return rows.map((row) => {
    if (delivered.has(row.key) || ownIntent.has(row.key)) return row;
    // Codes to standard output: an earlier order placed for a file is not finished onto the screen here (its file
    // is where its run writes it); the changed plan's rules say and ask (a second review: "to standard output" said,
    // the old file written).
    const out = row.out;
    if (out === undefined) return row;
    const same = (r: { productId: string; quantity: number }): boolean =>
      r.productId === row.productId && r.quantity === row.quantity;
    const cut = written.findIndex((i) => same(i) && o.writtenAt(i, out));
    if (cut >= 0) {
      const [intent] = written.splice(cut, 1);
      return { ...row, key: intent!.key };
    }
    const into = done.findIndex((r) => same(r) && r.out === out);
    if (into >= 0) {
      const [record] = done.splice(into, 1);
      return { ...row, key: record!.key };
    }
    const at = left.findIndex(same);
    if (at < 0) return row;
    const [earlier] = left.splice(at, 1);
    return {
      ...row,
      key: earlier!.key,
      moved: {
        ...(earlier!.out !== undefined ? { from: earlier!.out.path } : {}),
        ...(earlier!.orderId !== undefined ? { orderId: earlier!.orderId } : {}),
      },
    };
  });
}

/**
 * The records of this plan's family (its scope, file name and batch) delivered in the last 24 hours whose rows
 * the plan no longer has: the plan was edited since, and what it would order now is asked, not assumed.
 */
export function changedSince(
  rows: readonly PlanRow[],
  delivered: ReadonlyMap<string, OrderRecord>,
  family: string,
  now: number = Date.now(),
): OrderRecord[] {
  const keys = new Set(rows.map((r) => r.key));
  return [...delivered.values()].filter((r) => ofFamily(r.key, family) && !keys.has(r.key) && endedWithinDay(r, now));
}

/**
 * Rows an earlier version delivered here in the last 24 hours (keys `plan-<24 hex>-r<line>`, made from the plan's
 * whole file and a line number, so any edit hides them) that no row of this plan matches, of the product a row
 * this run would order has on the same line. An upgrade between a refused run and its fixed re-run ordered the
 * delivered rows again with no word (an adversarial review): said, and asked, as an edited plan is. Matched by
 * line as well as product, so that another plan of the same products is not held up; a run with --batch is
 * another run on purpose (older versions had none), and is not asked about.
 */
export function olderVersionRows(
  rows: readonly PlanRow[],
  todo: readonly PlanRow[],
  delivered: ReadonlyMap<string, OrderRecord>,
  batch: string | undefined,
  now: number = Date.now(),
): OrderRecord[] {
  if (batch !== undefined) return [];
  const legacy = new Set(rows.map((r) => r.legacyKey));
  const byLine = new Map(todo.map((r) => [r.row, r.productId]));
  return [...delivered.values()].filter((r) => {
    const line = LEGACY_ROW_KEY.exec(r.key)?.[1];
    return (
      line !== undefined && !legacy.has(r.key) && byLine.get(Number(line)) === r.productId && endedWithinDay(r, now)
    );
  });
}

/**
 * The intents of this plan's family (its scope, file name and batch: `intents` are the scope's) that an earlier
 * run sent and never finished, or that a live run holds, whose rows the plan no longer has: the plan was edited
 * since (a quantity fixed after Ctrl-C, a row's file renamed while it ran), and they may have been charged. A row the plan still has is resumed with its key instead.
 */
export function interruptedGone(rows: readonly PlanRow[], intents: readonly Intent[], family: string): Intent[] {
  const keys = new Set(rows.flatMap((r) => [r.key, r.legacyKey]));
  // One never sent charged nothing (order pending names it as any other), unless a live run of another process holds
  // it: about to send (a review edited a row's out file while the plan ran, and the row was ordered twice unasked).
  return intents.filter((i) => ofFamily(i.key, family) && !keys.has(i.key) && underWay(i));
}

/**
 * The notes of this plan's family (its scope, file name and batch: `intents` are the scope's) that an earlier run
 * readied and never sent (neverSent: nothing was charged), whose rows the plan no longer has: a plan stopped by Ctrl-C
 * leaves the row behind the one out `prepared`, and the person then edits that row (3 → 4) or removes it. The run of
 * the plan as it is now drops each (Journal.settleWhere, ended `abandoned` with its reason), so that `order pending`
 * and `order resume --all` no longer place it beside the edited row (an adversarial review: the warning said "place it
 * with order resume", the support routine did, and one row was ordered twice). Not one a live run holds (about to
 * send: interruptedGone says it), one written on another machine (it may be running there), nor one of a plan of
 * this file name in another directory (its own order: Intent.planDir). A row the plan still has sends it under its key.
 */
export function replacedUnsent(
  rows: readonly PlanRow[],
  intents: readonly Intent[],
  family: string,
  planDir: string | undefined,
): Intent[] {
  const keys = new Set(rows.flatMap((r) => [r.key, r.legacyKey]));
  return intents.filter(
    (i) =>
      ofFamily(i.key, family) &&
      !keys.has(i.key) &&
      neverSent(i) &&
      !anotherLiveRun(i.owner) &&
      otherMachine(i.owner) === undefined &&
      samePlanDir(i.planDir, planDir),
  );
}

/**
 * The rows of this plan's family (its scope, file name and batch) abandoned after their requests went out without an
 * answer (sentUnanswered: the API may have placed and charged them), within the day the server keeps a key and not
 * declined, whose rows the plan no longer has: an edit (a row's codes file renamed, its quantity fixed) gave the row
 * a new key, and the edited plan ordered it again without a word (an adversarial review: two orders). A row the plan
 * still has sends its key again instead (sentAgainKey).
 */
export function abandonedSentGone(
  rows: readonly PlanRow[],
  records: readonly OrderRecord[],
  scope: Scope,
  family: string,
  now: number = Date.now(),
): OrderRecord[] {
  const keys = new Set(rows.flatMap((r) => [r.key, r.legacyKey]));
  return records.filter(
    (r) => ofFamily(r.key, family) && !keys.has(r.key) && inScope(r, scope) && abandonedWhileOut(r, now),
  );
}

/** The scope a run's rows are keyed and looked up in: its connection's server, environment and API key. */
export function connectionScope(
  connection: Pick<Connection, 'baseUrl' | 'environment' | 'apiKey' | 'resellerId'>,
): Scope {
  return {
    baseUrl: connection.baseUrl,
    environment: connection.environment,
    keyId: keyIdOf(connection.apiKey),
    // Not part of the keys' scope (planFamily, scopeOf): what its rows' intents and records keep of whose key it is.
    ...(connection.resellerId !== undefined ? { resellerId: connection.resellerId } : {}),
  };
}

/**
 * Runs every row, at most `concurrency` at once, each to its outcome (nothing is delivered or settled here:
 * the caller prints the summary through lifecycle's deliver, then settles). Each row's out file is locked
 * before its charge, in `outLocks`, which the caller releases at the end of the run.
 */
export async function runRows(
  rows: readonly PlanRow[],
  delivered: ReadonlyMap<string, OrderRecord>,
  o: RowOptions,
  deps: RowDeps,
  outLocks: Map<string, OutLock>,
): Promise<{ results: PlanResult[]; outcomes: Driven[]; unreachable?: CliError; keyRefused?: CliError }> {
  const { io, api, journal, signal, connection } = deps;
  const scope = connectionScope(connection);
  const [{ driveIntent }, { OrderMachine }, { deliveredFile }, files] = await Promise.all([
    import('./drive.js'),
    import('./machine.js'),
    import('../journal/codes-file.js'),
    rows.some((row) => row.out !== undefined) ? import('../export/out-target.js') : undefined,
  ]);
  const results: PlanResult[] = new Array<PlanResult>(rows.length);
  const outcomes: Driven[] = [];
  const { startProgress } = await import('../output/progress.js');
  // A row that waits on the API (its answer, its order to complete) says so, with how long, on the line: at a terminal
  // `plan: 0 of 200 rows (0%)` stood unchanged for 40 s while 16 orders were pending, and looked frozen (a person's day).
  const progress = startProgress(io, {
    label: 'plan',
    unit: 'rows',
    total: rows.length,
    // Rows also wait on another run's hold of the journal (a cron job's plan): "on the API" sent a person to the server.
    waiting: () => (waitingForOtherRun() ? 'another giftcodes run holds the journal' : 'rows waiting on the API'),
  });
  progress.update(0);
  let next = 0;
  let done = 0;
  const machineDeps = { io, api, journal, signal };
  const waits = o.wait === true;
  /**
   * Set once a row could not reach the server at all (refused, no such host: nothing was sent, after every
   * retry): the rows not yet begun are not begun, since each would wait through the same retries for the same
   * server (a plan of 1,000 rows against a stopped server took 4 minutes to say so 1,000 times). The same plan
   * run again sends them.
   */
  let unreachable: CliError | undefined;
  /**
   * Set once the API refused the run's key (401): every row after would be refused the same way, so the rows
   * not yet begun are not begun either (a cron job with an expired key sent all 12 rows, and its hint said "fix what
   * failed"). The same plan, run again with a valid key, sends them.
   */
  let keyRefused: CliError | undefined;
  const noteUnreachable = (error: unknown): void => {
    if (!isCliError(error)) return;
    if (unreachable === undefined && error.exitCode === ExitCode.network && error.notSent) unreachable = error;
    // A 401 only: a 403 may be the key's right to one product, not the key (a review), and the other rows go on.
    if (keyRefused === undefined && error.exitCode === ExitCode.auth && error.status === 401) keyRefused = error;
  };
  /**
   * The plan each row's intent names: its name, its folder's real path and its batch, read once for the run as the
   * plan's checks read them (place.ts), not once a row: the real path was a realpath and three lstats a row.
   */
  type PlanNote = { plan: string; planDir: string; batch: string | null };
  let noted: PlanNote | undefined;
  const planNote = (): PlanNote | Record<string, never> =>
    o.plan === undefined
      ? {}
      : (noted ??= { plan: planName(o.plan), planDir: planDirOf(o.plan), batch: o.batch ?? null });
  /** A row made ready to send: its intent durably `sending` (or its earlier delivery found); no request yet. */
  type Ready = { index: number; base: PlanResult } & (
    { earlier: OrderRecord & { orderId: string } } | { machine: Machine; resumed: boolean } | { error: unknown }
  );
  const prepare = async (index: number): Promise<Ready> => {
    const row = rows[index]!;
    const base: PlanResult = {
      row: row.row,
      productId: row.productId,
      quantity: row.quantity,
      key: row.key,
      ...(row.out ? { out: row.out } : {}),
    };
    try {
      // Read again now, not only at the start: an overlapping run of the same plan may have delivered
      // this row meanwhile, and placing it again (the same key: the same order) would find its out file
      // taken and leave an order pending that was delivered.
      // Delivered, or abandoned here after the API placed it (deliveredHere, abandonedPlaced): read, never sent.
      const earlier = delivered.get(row.key) ?? deliveredHere(journal.history.get(row.key, scope), scope);
      // Delivered by an earlier run of this plan: read, never placed again; its intent, if that run was killed
      // before it settled, ends now.
      if (earlier?.orderId !== undefined) {
        if (journal.find(row.key))
          await journal.settleWhere((intent) => (intent.key === row.key ? journal.reached(intent) : undefined));
        const { out: _unwritten, ...rest } = base;
        return {
          index,
          // An abandoned order's file was never written: its row names none.
          base: {
            ...rest,
            ...(earlier.out !== undefined && earlier.outcome !== 'abandoned' ? { out: earlier.out } : {}),
          },
          earlier: { ...earlier, orderId: earlier.orderId },
        };
      }
      const out: OutSpec | undefined = row.out
        ? { path: row.out, force: o.force === true, csvRaw: false, ...(o.encryptTo ? { encryptTo: o.encryptTo } : {}) }
        : undefined;
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
      const spec = { profile: connection.profile, ...scope, productId: row.productId, quantity: row.quantity };
      const { intent, resumed, armed } = await journal.begin({
        ...spec,
        key: row.key,
        wait: waits || out !== undefined,
        out,
        // A row finishing an earlier run's order into its new file (outMovedRows) is that order or nothing: gone
        // meanwhile (another run finished or abandoned it), its key is not sent again as a new order.
        resumeOnly: deps.resumeOnly?.has(row.key) || row.moved !== undefined,
        ...planNote(),
        // Sent as soon as it is ready: a new row is written `sending` at once, one durable line where it was two.
        armed: true,
      });
      // Said in every mode (--json and --quiet too): the codes go to another file than the order was placed for.
      if (resumed && row.moved) io.say(`row ${row.row}: ${movedWords(row, row.moved)}`);
      // Readied by a run stopped before it sent the row: this is its first request, a new charge, never "resuming"
      // (a review's summary then said the row was an earlier run's order, and that this run placed none of its own).
      const firstRequest = resumed && !row.moved && neverSent(intent);
      if (firstRequest)
        io.notice(
          `row ${row.row}: placing it now, its first request (an earlier run readied it and was stopped before sending it; key ${row.key})`,
        );
      else if (resumed && !row.moved) io.notice(`row ${row.row}: resuming its interrupted order (key ${row.key})`);
      const machine = new OrderMachine(
        { ...machineDeps, label: `row ${row.row}: ${unitsOf(row.quantity, row.productId)}` },
        intent,
        armed === true,
      );
      // An intent taken over `prepared` (a readied row of a run that was stopped) is armed now; a new one already is.
      await machine.arm();
      return { index, base, machine, resumed: resumed && !firstRequest };
    } catch (error) {
      return { index, base, error };
    }
  };
  // A row an earlier run delivered is said as it is read, the first EARLIER_SAID of them; the rest are counted once
  // the rows end: a plan run again whole said 1,000 lines of it, 3,000 at 80 columns, and as many in a cron log (a
  // person's day). The summary lists every row.
  let earlierSaid = 0;
  const sayOnce = (line: string | undefined): void => {
    if (line !== undefined) io.notice(line);
  };
  const run = async (ready: Ready, answered: () => void): Promise<PlanResult> => {
    const { base } = ready;
    try {
      if ('error' in ready) throw ready.error;
      if ('earlier' in ready) {
        const { order, read } = await readAgain(ready.earlier, base.row);
        const earlier = ready.earlier;
        // Said as it happened: the order of an earlier run, its codes where that run wrote them (a copy of the plan
        // in another folder names other files, which this run never writes). A row whose codes went nowhere was
        // ordered, not delivered to anyone: said so, with its status, read just now (the same the table shows; a
        // review found "pending when last read" here above a table saying completed), else as last recorded.
        // Its file as that run left it, or not: a live run of the plan may have written its own codes there since (F3).
        const now = codesFileNow(earlier);
        // Another order's codes written over it since (an order watch --out --force): said whose (a fourth review read
        // "its codes in r1.csv" of a file holding another row's codes).
        const over = earlier.out !== undefined && now !== 'gone' ? journal?.history.overwrittenBy(earlier) : undefined;
        const codes =
          earlier.out !== undefined && earlier.out !== '-'
            ? over !== undefined
              ? `, its codes written to ${earlier.out}, written over since with the codes of order ${over.orderId ?? over.key}`
              : now === 'same'
                ? `, its codes in ${earlier.out}`
                : `, its codes written to ${earlier.out}, ${now === 'gone' ? 'no longer there' : 'a file written again since'}`
            : '';
        const status = read ? `, ${order.status} now` : earlier.status ? `, ${earlier.status} when last read` : '';
        // When that run ended comes first: after "completed now" it read as the time of the status (a review).
        const abandoned = earlier.outcome === 'abandoned';
        // An abandoned order read as failed now: the row has no codes, and the plan's next run orders it anew (its
        // status, noted below, moves it to its next key: sentAgainKey). Said as a failed row, never as done (a
        // review's nightly run read "1 delivered by an earlier run" every night for an order that had failed).
        if (abandoned && read && orderOutcome(order.status) === 'failed')
          return {
            ...base,
            order,
            error: {
              code: 'order_failed',
              message: `order ${earlier.orderId}, abandoned here after the API placed it, ended ${order.status}`,
              exitCode: ExitCode.orderFailed,
            },
          };
        sayOnce(
          abandoned
            ? // Never "run the plan with a --batch of its own": that orders every row again (a review).
              // Nor "order that row anew by itself": should that order fail, the plan's next run orders the row anew,
              // and a row ordered by itself too was a second order (a review).
              `row ${base.row}: its order ${earlier.orderId} was abandoned here at ${earlier.endedAt ?? earlier.updatedAt} after the API had placed it${status}; not ordered again (${
                // Pinned to this run's config directory, as every command said is (a cron log's reader runs it
                // elsewhere; a second review found this one bare).
                pinnedHint(
                  read && orderOutcome(order.status) === 'completed'
                    ? `its codes: giftcodes codes get ${earlier.orderId} --out CODES_FILE`
                    : `its codes, once it completes: giftcodes codes get ${earlier.orderId} --out CODES_FILE; should it fail, the plan's next run orders the row anew`,
                  { configDir: io.env.GIFTCODES_CONFIG_DIR },
                )
              })`
            : earlierSaid++ < EARLIER_SAID
              ? `row ${base.row}: ${codes ? 'delivered' : 'ordered'} by an earlier run at ${earlier.endedAt ?? earlier.updatedAt} (order ${earlier.orderId}${codes}${codes ? '' : status}); not ordered again`
              : undefined,
        );
        // An order placed with another API key of the same reseller (a key rotated since: the plan's rule for it) is
        // shown under the key it was placed with: this key's row key names no order (`order show` of it: a 404).
        const placedKey = earlier.keyId !== undefined && earlier.keyId !== scope.keyId ? { key: earlier.key } : {};
        return { ...base, ...placedKey, order, already: true, ...(abandoned ? { abandoned: true } : {}) };
      }
      const outcome = await driveIntent(machineDeps, ready.machine, {
        wait: waits || ready.machine.intent.out !== undefined,
        out: ready.machine.intent.out,
        intervalS: o.interval ?? 2,
        timeoutS: o.timeout,
        // The row's out file, locked before its charge (outFileProblems): the lock the export then holds.
        ...(outLocks.get(base.key)?.target === ready.machine.intent.out?.path
          ? { outLock: outLocks.get(base.key) }
          : {}),
        // A row that waits for nothing is done with the network once its POST is answered: writing its
        // `accepted` state (durable before the summary, which awaits every row) need not hold up the next row.
        ...(waits || ready.machine.intent.out !== undefined ? {} : { answered }),
      });
      outcomes.push(outcome);
      noteUnreachable(outcome.failure);
      // A row that waited has said each status it saw (wait.ts); one that waits for nothing says the one the API
      // answered, so that a cron log names every order of the night by its row (a person's-day review's log named rows
      // 2 and 3, not row 4, whose order only the summary table showed). A terminal has the table; --quiet, --json none.
      if (!waits && ready.machine.intent.out === undefined && outcome.order && !outcome.failure && !io.stderrIsTTY)
        io.notice(
          `order ${outcome.order.id} (row ${base.row}: ${unitsOf(base.quantity, base.productId)}): ${outcome.order.status}`,
        );
      return {
        ...base,
        order: outcome.order,
        ...(ready.resumed ? { resumed: true } : {}),
        ...(ready.resumed && rows[ready.index]!.moved ? { movedFrom: rows[ready.index]!.moved!.from ?? '-' } : {}),
        ...(outcome.written ? { count: outcome.written.count } : {}),
        ...(outcome.failure ? { error: errorOf(outcome.failure) } : {}),
      };
    } catch (error) {
      noteUnreachable(error);
      return { ...base, error: errorOf(error) };
    }
  };
  /**
   * A row an earlier run delivered, its order read again for the summary. The row is done whatever the API says
   * now: a read that fails (a 503, a timeout, no server) shows the order as that run recorded it, with one
   * warning, and never fails the row (a same-night re-run during an outage exited 5 with a delivered row shown as
   * an error). After one such failure the other delivered rows are not read again: each would wait through the
   * same retries; rows read at the same time as the first say it once.
   */
  let rereadFailed = false;
  /** Statuses read again that differ from their records: noted in the records once the rows are done, in one turn. */
  const reread: OrderRecord[] = [];
  const readAgain = async (
    earlier: OrderRecord & { orderId: string },
    row: number,
  ): Promise<{ order: Order; read: boolean }> => {
    const recorded = {
      id: earlier.orderId,
      status: earlier.status ?? 'completed',
      product_id: earlier.productId,
      quantity: earlier.quantity,
      environment: earlier.environment,
      ...(earlier.amount !== undefined ? { amount: earlier.amount } : {}),
    } as Order;
    if (rereadFailed) return { order: recorded, read: false };
    try {
      const order = await api.getOrder(earlier.orderId);
      if (typeof order.status === 'string' && order.status !== earlier.status && earlier.outcome !== 'pending')
        reread.push(withStatus(earlier, order.status, Date.now()));
      return { order, read: true };
    } catch (error) {
      if (signal.aborted) throw error;
      // Rows read at once fail at once: said once.
      if (!rereadFailed)
        io.warn(
          `row ${row}: its order ${earlier.orderId} could not be read again (${error instanceof Error ? error.message : String(error)}); the rows earlier runs delivered are shown as those runs recorded them`,
        );
      rereadFailed = true;
      return { order: recorded, read: false };
    }
  };
  const take = (): Promise<Ready> | undefined =>
    next < rows.length && !signal.aborted && unreachable === undefined && keyRefused === undefined
      ? prepare(next++)
      : undefined;
  // `concurrency` rows talk to the server at once. Each worker readies its next row (the intent written and
  // fsynced, `sending`) while its current row's request is out: the disk waits overlap the network instead
  // of adding to every row. Interrupted, at most one readied row per worker is left pending, never sent, and
  // written back as prepared (disarm): the same plan again sends it with its key, and what is left says "never sent".
  const finishing: Promise<void>[] = [];
  // A row that writes its codes to a file runs the export's loops over every code, which need TurboFan.
  const exports = rows.some((row) => row.out !== undefined);
  const worker = async (): Promise<void> => {
    let ahead = take();
    while (ahead !== undefined) {
      const ready = await ahead;
      if (signal.aborted) {
        if ('machine' in ready) await ready.machine.disarm().catch(() => undefined);
        break;
      }
      ahead = take();
      await new Promise<void>((free) => {
        const row = run(ready, free).then((result) => {
          results[ready.index] = result;
          progress.update(++done);
          if (done === 1 && !exports) turbofanOff();
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
    progress.stop();
  }
  if (earlierSaid > EARLIER_SAID)
    io.notice(
      `${counted(earlierSaid - EARLIER_SAID, 'more row')} ${earlierSaid - EARLIER_SAID === 1 ? 'was' : 'were'} done by an earlier run, not ordered again (the summary lists each)`,
    );
  // The statuses just read become the records', as order show notes the one it reads: order list then says what
  // the plan's table said (a review found it still pending there). A convenience: never fails the plan.
  await journal.recordStatuses(reread).catch(() => undefined);
  if (signal.aborted) throw signal.reason;
  for (let index = next; index < rows.length; index++) {
    const row = rows[index]!;
    results[index] = {
      row: row.row,
      productId: row.productId,
      quantity: row.quantity,
      key: row.key,
      ...(row.out ? { out: row.out } : {}),
      error: {
        code: 'not_attempted',
        message:
          keyRefused !== undefined && unreachable === undefined
            ? `not sent: the API key was refused for an earlier row (${keyRefused.message})`
            : `not sent: the server could not be reached for an earlier row (${unreachable?.message ?? 'no answer'})`,
        exitCode: keyRefused !== undefined && unreachable === undefined ? ExitCode.auth : ExitCode.network,
      },
    };
  }
  return { results, outcomes, ...(unreachable ? { unreachable } : {}), ...(keyRefused ? { keyRefused } : {}) };
}

/**
 * V8's optimising compiler (TurboFan) off for the rest of a plan, once its first row is done (every module a row
 * needs is loaded by then). A row's work is spread over some thousand calls of hundreds of functions, each called
 * a few times a row, and the run is paced by the server and the disk, not by its JavaScript: on Node 22 TurboFan
 * compiled ~114 of them in a 1,000-row plan at 16 at once, ~240 ms of CPU on V8's threads, for code that saved
 * less than that (the plan's CPU 6 % lower without it, lower in 8 of 8 alternated pairs; BENCHMARKS.md, issue
 * 33). Maglev, the mid tier of Node 24 and 26, is left on: there its compiles and its savings came out even. The
 * flag is read when V8 decides to optimise a function, so it takes effect at once, and it is not part of what a
 * code cache is checked against (a module loaded later still takes its own). Not in a plan whose rows write their
 * codes to files (`--out`): an export's loops over its codes are the one hot code a plan can run.
 */
function turbofanOff(): void {
  setFlagsFromString('--no-turbofan');
}

/**
 * What a row that finishes an earlier run's order into its new out file does (outMovedRows), in words: that order, as
 * placed and charged when its id is known, and no second one.
 */
export function movedWords(row: Pick<PlanRow, 'quantity' | 'productId' | 'key' | 'out'>, moved: MovedRow): string {
  const order = moved.orderId !== undefined ? `the order ${moved.orderId}` : 'the order';
  const placed =
    moved.orderId !== undefined ? 'placed (and charged)' : 'sent (its answer lost, so it may have been placed)';
  const from = moved.from !== undefined && moved.from !== '-' ? `for ${moved.from}` : 'for standard output';
  const to = row.out !== undefined && row.out !== '-' ? `to ${row.out}` : 'to standard output';
  return `finishing ${order} of ${unitsOf(row.quantity, row.productId)} an earlier run of this plan ${placed} ${from}, whose codes never reached you (key ${row.key}): only the row's out file changed since, so its codes go ${to} now, and no second order is placed`;
}

/** The codes of refusals that fixing the row's product or quantity in the plan clears (the fixed row has a new key). */
const PLAN_FIXES = /product|quantity|validation|invalid|not_found|unknown/;

/**
 * The plan's failure, when a row failed: the exit status of the worst row, naming the first. `unreachable`: the
 * error of the row that found the server out of reach, whose hint names what fixes that cause (nothing listens on
 * a loopback port: the reference server's command; a proxy: the proxy), as `order place` alone would say it.
 */
export function planFailure(
  results: readonly PlanResult[],
  unreachable?: CliError,
  keyRefused?: CliError,
  environment?: Scope['environment'],
  batch?: string,
): CliError | undefined {
  const failed = results.filter((r) => r.error);
  if (failed.length === 0) return undefined;
  // The run's --batch, said: a plan run again without it is another batch, whose rows are new orders, and the rows
  // this batch delivered were charged again (an adversarial review fixed a refused row and ran the plan without it).
  const withBatch = batch === undefined ? '' : ` with ${batchFlag(batch)}`;
  const again = `run the same plan again${withBatch}`;
  const worst = Math.max(...failed.map((r) => r.error!.exitCode)) as CliError['exitCode'];
  const skipped = failed.filter((r) => r.error!.code === 'not_attempted').length;
  const tried = failed.filter((r) => r.error!.code !== 'not_attempted');
  const first = tried[0] ?? failed[0]!;
  const endedFailed = tried.find((r) => r.error!.exitCode === ExitCode.orderFailed);
  const failedRows = tried.filter((r) => r.error!.exitCode === ExitCode.orderFailed).length;
  // Refused by the API for a cause an edit of the plan does not change (not the product or the quantity it names).
  // The row's key was answered with an order another config directory or machine placed: nothing to fix, nothing
  // to order again (its hint was "once it is fixed, order it by itself", a second purchase: a review).
  const elsewhere = tried.find((r) => r.error!.code === 'order_placed_elsewhere');
  // A row whose key was abandoned without an answer over a day ago: never sent again (Journal.begin), so "run the same
  // plan again" would fail the same way every night; what it needs is the provider's word.
  const staleRow = tried.find((r) => r.error!.code === 'stale_intent');
  // Only those sentAgainKey sends under a new key (a wallet short of funds, a product out of supply): another
  // refusal keeps the row's key, and the general hint.
  const outside = tried.filter(
    (r) => r.error!.exitCode === ExitCode.api && refusesTheOrder(r.error!.code) && !PLAN_FIXES.test(r.error!.code),
  );
  const refusedOutside = outside[0];
  // Every failed row the service kept failing or limiting (5xx, 429, timeouts, after the retries): nothing in the
  // plan to fix; "fix what failed" sent a review looking for a typo.
  const serviceFailed = tried.length > 0 && tried.every((r) => r.error!.exitCode === ExitCode.network);
  // Every failed row certainly unsent: the server was out of reach, and those rows cannot have been charged. Only
  // a run that placed no row says "nothing" (an adversarial review: it was said under "1 of 2 rows ordered").
  // Every failed row held by another live giftcodes run of its key right now (journal.ts assertNotHeld: two terminals
  // running one plan): nothing to fix, only that run to wait for.
  const busy = tried.length > 0 && tried.every((r) => r.error!.code === 'intent_busy');
  const unsent = tried.every((r) => r.error!.notSent);
  // A row that failed after the API placed its order (a 401 on its status read, a wait given up) placed one: never
  // "nothing was charged" beside it (a review).
  const placedNone = results.every((r) => (r.error && r.error.orderId === undefined) || r.already);
  const notSentWords = !unsent
    ? ''
    : placedNone
      ? ', and nothing was sent or charged'
      : `, and ${tried.length === 1 ? 'that row was' : 'those rows were'} not sent`;
  // The API refused the run's key (every failed row for that, or the rows after it not begun): the key to fix, with
  // the hint that names where it came from, as a single order says it. Nothing in the plan to fix.
  if (
    keyRefused !== undefined &&
    unreachable === undefined &&
    tried.length > 0 &&
    tried.every((r) => r.error!.exitCode === ExitCode.auth)
  ) {
    const notAttempted = skipped > 0 ? ` and ${skipped} ${skipped === 1 ? 'was' : 'were'} not attempted` : '';
    return new CliError(
      worst,
      `${tried.length} of ${results.length} plan rows failed${notAttempted}: the API key was refused${placedNone ? ', so nothing was charged' : ''} (first: line ${first.row}: ${placedNone ? first.error!.message.replace(NOTHING_CHARGED, '') : first.error!.message})`,
      {
        code: 'plan_rows_failed',
        hint: `${keyRefused.hint ?? 'log in with a valid key: giftcodes login'}; then ${again}: it sends the rows not ordered, never the delivered ones twice`,
      },
    );
  }
  return new CliError(
    worst,
    skipped > 0
      ? `${tried.length} of ${results.length} plan rows failed and ${skipped} ${skipped === 1 ? 'was' : 'were'} not attempted: the server could not be reached${notSentWords} (first: line ${first.row}: ${first.error!.message})`
      : unsent
        ? `${failed.length} of ${results.length} plan rows failed: the server could not be reached${notSentWords} (first: line ${first.row}: ${first.error!.message})`
        : `${failed.length} of ${results.length} plan rows failed (first: line ${first.row}: ${first.error!.message})`,
    {
      code: 'plan_rows_failed',
      hint:
        skipped > 0 || unsent
          ? `${unreachable?.hint ?? 'check the network and the server (giftcodes doctor)'}; then ${again}: it sends the rows not ordered, never the delivered ones twice`
          : busy
            ? `another giftcodes run is sending ${tried.length === 1 ? 'that row' : 'those rows'} (${firstOf(
                tried.map((r) => `line ${r.row}`),
                5,
              )}) right now: nothing needs fixing; once it ends, ${again}: it orders nothing twice (the rows that run delivered are read, not ordered again)`
            : endedFailed
              ? // The same plan again orders a failed row anew, under its next key (sentAgainKey): under its own the
                // server answered with the same failed order for a day, and then, the key forgotten, placed it again,
                // beside the order the person had placed by itself as this hint said (an adversarial review).
                `line ${endedFailed.row}'s order ended failed (the provider's end: giftcodes order show ${endedFailed.order?.id ?? endedFailed.key} says why): the same plan run again${withBatch} orders ${failedRows === 1 ? 'that row' : 'each such row'} anew, under a new key of its own; do not order it by itself as well, or the plan's next run orders it a second time`
              : staleRow
                ? `line ${staleRow.row}'s key (${staleRow.key}) was abandoned without an answer ${staleRow.error?.message.includes(AHEAD_OF_CLOCK) ? "at a time ahead of this machine's clock (its age cannot be told) and is not sent again" : 'over a day ago and is never sent again'}: look in the provider's dashboard for its order (giftcodes order show ${staleRow.key} says what to look for); if there is none, order the row by itself: ${placeCommand({ environment, productId: staleRow.productId, quantity: staleRow.quantity })} (the plan does not send that key again)`
                : elsewhere && elsewhere.error!.orderId && mayBeOwn(elsewhere.error!.message)
                  ? // Files here that cannot be read may hold the row's own order: its own way on, never a second order.
                    `line ${elsewhere.row}: ${unreadableOwnHint(elsewhere.error!.orderId)}`
                  : elsewhere
                    ? `line ${elsewhere.row}'s order was placed by another run of this plan (another config directory or machine): see it there, where its codes were written; nothing needs fixing here (the same plan again is refused the same way for that row, and charges nothing); to order that row here too, as a second order: ${placeCommand({ environment, productId: elsewhere.productId, quantity: elsewhere.quantity })} (never a --batch of its own, which orders every row again; the plan never sends that row's key again)`
                    : serviceFailed
                      ? `the service kept failing or limiting the requests of ${tried.length === 1 ? 'that row' : 'those rows'} (nothing in the plan to fix): ${again} later, or with a lower --concurrency: rows already delivered are not ordered twice, and a row whose request may have gone out is sent again under its own key`
                      : refusedOutside
                        ? // A refusal the plan cannot fix (a wallet short of funds) leaves the row as it is; the same plan run
                          // again sends it under its next key (sentAgainKey), since a server that keeps a refusal with its key
                          // answers the same for a day. Ordered by itself instead, as this hint once said, the next run of the
                          // plan ordered it a second time (an adversarial review). Each such row is named.
                          // Short: at 80 columns it took six lines (a walkthrough).
                          `fix what ${outside.length === 1 ? 'line' : 'lines'} ${outside
                            .slice(0, 5)
                            .map((r) => `${r.row} (${r.error!.code})`)
                            .join(
                              ', ',
                            )}${outside.length > 5 ? ', …' : ''} ${outside.length === 1 ? 'was' : 'were'} refused for, then ${again}: it sends ${outside.length === 1 ? 'that row' : 'those rows'} under a new key and orders no delivered row twice; do not also order ${outside.length === 1 ? 'it' : 'them'} by itself, or the next run orders ${outside.length === 1 ? 'it' : 'them'} a second time`
                        : `fix what failed and ${again}: rows already delivered are not ordered twice (giftcodes order list --since 1d)`,
    },
  );
}

/**
 * Every row's out file is refused before anything is sent (a symbolic link, an existing file without
 * --force, a directory that cannot be written), as `order place --out` does: after the charge it would be
 * an order left pending. A row already delivered, or whose interrupted intent's own file is there, passes. The
 * dry run checks the same way; without a key (no scope, so no journal) it passes `force`: it cannot tell a row
 * already delivered. Each refused row is returned (`line N: …`), for refusePlan to say with the plan's other problems.
 */
export async function outFileProblems(
  rows: readonly PlanRow[],
  delivered: ReadonlyMap<string, unknown>,
  journal: Journal | undefined,
  force: boolean,
  environment?: Scope['environment'],
  planPath?: string,
): Promise<RowProblem[]> {
  const problems: RowProblem[] = [];
  const todo = rows.filter((row) => row.out !== undefined && !delivered.has(row.key));
  if (todo.length === 0) return problems;
  const [{ checkOutTarget }, { deliveredFile }, { formatFor, tooManyCodes, NAME_THE_FILE }] = await Promise.all([
    import('../export/out-target.js'),
    import('../journal/codes-file.js'),
    import('../export/format.js'),
  ]);
  const intents = journal?.read().intents ?? [];
  for (const row of todo) {
    const intent = intents.find((i) => i.key === row.key);
    if (intent && deliveredFile(intent, row.out!) !== undefined) continue;
    try {
      // A row's codes file is written in the format its extension names: one that names none is refused.
      const tooMany = tooManyCodes(
        formatFor(row.out!, undefined),
        row.quantity,
        `quantity ${row.quantity} with ${row.out!}`,
      );
      if (tooMany) throw tooMany;
      checkOutTarget(row.out!, force, { placing: true });
    } catch (error) {
      if (!isCliError(error)) throw error;
      // The codes of an order already paid for (another night's batch writing to the same name): say whose they
      // are, and how each night gets a file of its own, rather than only that --force would overwrite them.
      const holder = error.code === 'out_exists' ? journal?.history.codesHolder(row.out!) : undefined;
      const held = holder
        ? ` and holds the codes of order ${holder.orderId ?? holder.key} (written ${writtenAt(holder)})`
        : '';
      // The row's own order, sent by an earlier run and never finished (it may have been charged), whose file is taken
      // meanwhile (another plan's row wrote there): finished by this same command once the file is moved away; the
      // batch hint gave it a new key, a second order (an adversarial review: six orders for a two-row plan).
      const ownUnfinished =
        error.code === 'out_exists' && intent !== undefined && !neverSent(intent)
          ? `line ${row.row} is an order an earlier run of this plan sent and never finished (key ${intent.key}: ${chargeWords([intent])}): move the file away, then run the same command to finish it into its own file, or point the row's out cell at another file, which finishes it there; another --batch would order it again`
          : undefined;
      // A row's file is its out cell, and its format the file's extension: a plan has no --out or --format to offer.
      const hint =
        ownUnfinished ??
        (!holder
          ? error.code === 'out_format_unknown'
            ? `${NAME_THE_FILE} in the out column`
            : error.code === 'out_exists'
              ? 'pass --force to overwrite it, or name another file in the out column'
              : error.code === 'out_is_directory'
                ? 'give a file name in the out column, e.g. codes.csv'
                : error.code === 'out_not_writable' && error instanceof UsageError
                  ? "create that directory first, or name another path in the row's out cell"
                  : error.code === 'out_not_a_file'
                    ? "give the path of a file in the row's out cell (a plan's rows cannot write to standard output)"
                    : error.hint
          : environment !== undefined && holder.environment !== environment
            ? // A plan rehearsed under a test key, then run live: not another spelling of the server, nor a key
              // rotated (the hint said to run it "as it ran there", under test again).
              `that file holds the codes of the ${holder.environment} rehearsal (order ${holder.orderId ?? holder.key}), not of a ${environment} order: move it away before the ${environment} run, or give the ${environment} run other file names (${BATCH_FIELD} or the environment in the out column: ${fileWith(row.out!, environment)}); --force would overwrite those codes`
            : holder.plan !== undefined && planPath !== undefined && holder.plan !== planName(planPath)
              ? // Another plan file's row (a one-off plan beside the nightly one, the same batch and file names): "this
                // batch's row changed", or "this same row at <the same address>", described a plan that never wrote it.
                `that file holds the codes of a row of another plan, ${holder.plan}${holder.batch ? ` (--batch ${holder.batch})` : ''}, not of ${planName(planPath)}: give this plan's out cells names of their own, or move the file away (--force would overwrite those codes)`
              : !delivered.has(holder.key) && holder.productId === row.productId && holder.quantity === row.quantity
                ? // The same row, delivered in another scope: the plan run at another spelling of the address (localhost
                  // for 127.0.0.1) or with a rotated key, not a changed row (a walkthrough read "this batch's row changed").
                  `that order was placed for this same row at ${holder.baseUrl}: this plan run at another spelling of the server's address, or with another API key, makes new orders; run it as it ran there (--base-url ${holder.baseUrl}, the same key), or move the file away (--force would overwrite those codes)`
                : !holder.key.startsWith('plan-')
                  ? // An order placed by itself (order place --out, the cron recipe's), not a row of any plan: "this
                    // batch's row changed" described a row that never ran (a newcomer's walkthrough).
                    `that order was placed by itself (order place), not by a plan: name another file in the out column (${BATCH_FIELD} there gives each --batch its own), or move the file away (--force would overwrite those codes)`
                  : row.batched
                    ? `this batch's row changed since that order wrote its codes (a row is its product, quantity and out cell): keep the file and write the changed row to another name, or move the file away (--force would overwrite those codes)`
                    : `give each batch a file of its own: ${BATCH_FIELD} in the out column (${batchExample(row.out!)}) is the --batch name; or move the file away (--force would overwrite those codes)`);
      problems.push({
        row: row.row,
        error: new CliError(error.exitCode, `line ${row.row}: ${error.message}${held}`, {
          code: error.code,
          ...(hint ? { hint } : {}),
        }),
      });
    }
  }
  return problems;
}

/** A row the run refuses before anything is sent: its line, and why (`line N: …`). */
export interface RowProblem {
  readonly row: number;
  readonly error: CliError;
}

/**
 * The refusal of a plan that cannot run (nothing was sent): its rows' problems, by line, in one error, so the
 * person fixing the plan meets them all in one run. One problem keeps its own code and hint; several of one code
 * keep that code, else `bad_plan`; their hints are said once each. Unknown products alone: `unknown` as it is.
 */
export function refusePlan(
  planPath: string,
  problems: readonly RowProblem[],
  unknown?: { rows: readonly { row: number; productId: string }[]; ids: readonly string[] },
): void {
  const bad = unknown?.rows ?? [];
  if (problems.length === 0 && bad.length > 0) throw unknownRows(bad, unknown!.ids);
  if (problems.length === 1 && bad.length === 0) {
    const only = problems[0]!.error;
    throw new CliError(only.exitCode, `${only.message}; nothing was ordered`, {
      code: only.code,
      ...(only.hint ? { hint: only.hint } : {}),
    });
  }
  if (problems.length === 0) return;
  const all = [
    ...problems,
    ...bad.map((r) => ({
      row: r.row,
      error: new UsageError(`line ${r.row}: ${noSuchProduct(r.productId, unknown!.ids)}`, {
        code: 'unknown_product',
        hint: UNKNOWN_PRODUCT_HINT,
      }),
    })),
  ].sort((a, b) => a.row - b.row);
  const codes = new Set(all.map((p) => p.error.code));
  // One hint for each kind of problem, its first row's (a hint may name its row's file: a 1,000-row plan's
  // refusal once carried a hint per row).
  const hints = new Map<string, string>();
  for (const { error } of all) if (error.hint && !hints.has(error.code)) hints.set(error.code, error.hint);
  // A usage problem is exit 2; a directory the system will not let us write is the local failure's own exit
  // and code, as that row alone would have been refused.
  const local = all.find((p) => p.error.exitCode !== ExitCode.usage)?.error;
  const code = local?.code ?? (codes.size === 1 ? [...codes][0]! : 'bad_plan');
  throw new CliError(
    local?.exitCode ?? ExitCode.usage,
    `the plan ${planPath} cannot be run, nothing was ordered: ${firstOf(
      sameByLines(all.map((p) => ({ line: p.row, text: p.error.message }))),
      20,
    )}`,
    { code, ...(hints.size > 0 ? { hint: [...hints.values()].join('; ') } : {}) },
  );
}

/**
 * Problems by line (`line N: …`, ascending) said once for each text, with the lines that have it as runs: a 1,000-row
 * plan with the same mistake on every row said it twenty times on one line, 1,500 characters at 80 columns (a
 * person's day). `lines 2–1001: quantity must be …`.
 */
function sameByLines(problems: readonly { line: number; text: string }[]): string[] {
  const said = ({ line, text }: { line: number; text: string }): string => {
    const prefix = `line ${line}: `;
    return text.startsWith(prefix) ? text.slice(prefix.length) : text;
  };
  return [...groupBy(problems, said)].map(
    ([text, same]) => `${linesOf([...new Set(same.map((problem) => problem.line))])}: ${text}`,
  );
}

/**
 * What a plan file is when it is no CSV text a plan can be read from: a workbook (a zip: `PK\x03\x04`), or UTF-16
 * text (its byte-order mark, or the NUL bytes of its ASCII). Read as UTF-8 they were a 30,403-row refusal of binary
 * garbage, 4,234 characters on one line, and a refusal of every `\u0000a\u0000m…` product (a person's day).
 */
function notCsvText(bytes: Buffer): string | undefined {
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x504b0304) return 'a workbook (.xlsx or another zip file)';
  if (bytes.length >= 2 && (bytes.readUInt16BE(0) === 0xfffe || bytes.readUInt16BE(0) === 0xfeff)) return 'UTF-16 text';
  const head = bytes.subarray(0, 512);
  return head.length >= 4 && head.filter((b) => b === 0).length * 4 >= head.length ? 'UTF-16 text' : undefined;
}

/** What a spreadsheet calls a plan's quantity column, and its product column, in a header row of its own. */
const QUANTITY_NAMES = /^(qty|quantity|quantities|amount|count|units?|number|menge|anzahl|cantidad|quantit[eé])$/i;
const PRODUCT_NAMES = /^(sku|skus|products?|product[ _-]?ids?|items?|item[ _-]?ids?|ids?|names?|cards?|codes?|brand)$/i;

/** How many rows an earlier run delivered are said one by one; the rest are counted (runPlan). */
const EARLIER_SAID = 5;

/** `amazon-25.csv` → `amazon-25-{batch}.csv`: the file name of a row's out with the batch before its extension. */
function batchExample(out: string): string {
  return fileWith(out, BATCH_FIELD);
}

/** `amazon-25.csv`, `live` → `amazon-25-live.csv`: the file name of a row's out with a word before its extension. */
function fileWith(out: string, word: string): string {
  const name = basename(out);
  const dot = name.indexOf('.', 1);
  return dot === -1 ? `${name}-${word}` : `${name.slice(0, dot)}-${word}${name.slice(dot)}`;
}

function errorOf(error: unknown): NonNullable<PlanResult['error']> {
  const e = isCliError(error) ? error : undefined;
  return {
    code: e?.code ?? 'internal_error',
    message: error instanceof Error ? error.message : String(error),
    exitCode: e?.exitCode ?? ExitCode.internal,
    ...(e?.notSent ? { notSent: true as const } : {}),
    // The order the API placed before the row failed (a wait, a status read): it may be charged, and a script
    // reads which order from here (a review; the error prose named it only).
    ...(e?.orderId !== undefined ? { orderId: e.orderId } : {}),
  };
}
