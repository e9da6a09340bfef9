import { Option, type Command } from 'commander';
import { pinnedHint } from '../../output/pinned-hint.js';
import { ORDER_STATUSES } from '../../api/outcome.js';
import { completionHints } from '../../completion/hints.js';
import type { ApiClient } from '../../api/client.js';
import { isCliError, UsageError } from '../../errors.js';
import type { OrderRecord } from '../../journal/history.js';
import { OUTCOMES, STATUS_WORDS } from '../../journal/outcomes.js';
import { exportResult } from '../../output/exporter.js';
import { renderTable, type Column } from '../../output/table.js';
import { grouped, REASON_WORDS, reasonWord } from '../../output/words.js';
import { examples, type App } from '../app.js';
import type { Deps } from '../deps.js';
import { integer, nonEmpty } from '../parse.js';
import { orderScope, profileColumn } from './scope.js';

export interface ListOptions {
  status?: string;
  product?: string;
  since?: string;
  env?: string;
  profile?: string;
  limit?: number;
  refresh?: boolean;
  format?: 'table' | 'csv';
}

type ListDeps = Pick<
  Deps,
  'io' | 'journal' | 'connection' | 'connectionTo' | 'clientFor' | 'currentTarget' | 'now' | 'configDir' | 'journalDir'
>;

/** How many orders --refresh reads from the API at once. */
export const REFRESH_CONCURRENCY = 4;

export function register(parent: Command, app: App): void {
  const command = parent
    .command('list')
    .description(
      'list every order placed or tried from here (the local order record), newest first (unresolved ones as pending)',
    )
    .addOption(
      new Option(
        '--status <status>',
        'outcome (delivered, failed, refused, abandoned, pending), server status (processing, completed…) or a word of the OUTCOME column (placed, saved, "no funds"…); unfinished: the runs to resume only',
      ).argParser(nonEmpty('--status')),
    )
    .addOption(
      new Option('--product <text>', 'only products whose id contains this (any case)').argParser(
        nonEmpty('--product'),
      ),
    )
    .addOption(
      new Option(
        '--since <date|duration>',
        'created since a date (2026-11-01), a duration ago (12h, 7d), today or yesterday (local midnight)',
      ).argParser(nonEmpty('--since')),
    )
    .addOption(new Option('--limit <n>', 'at most n orders').argParser(integer(1, 1_000_000)))
    .option(
      '--refresh',
      'read the current status of orders in progress from the API: recorded for ended orders, shown for those to resume',
    )
    .addOption(
      new Option('--format <format>', 'table, or csv for reconciliation').choices(['table', 'csv']).default('table'),
    )
    .action(async (flags: Omit<ListOptions, 'env' | 'profile'>, cmd: Command) => {
      // --env and --profile are global options: here they filter.
      const { globals, deps, json } = app.context(cmd);
      checkFormat(flags.format, json ? (globals.query !== undefined ? '--query' : '--json') : undefined);
      await run({ ...flags, env: globals.env, profile: globals.profile }, deps);
    });
  completionHints(command, { flagWords: { '--status': STATUS_VALUES } });
  examples(command, [
    'giftcodes order list',
    'giftcodes order list --since 7d --status failed',
    'giftcodes order list --refresh --status pending',
    'giftcodes order list --since 2026-11-01 --env live --format csv > nov.csv',
    `giftcodes order list --query "[?outcome=='delivered'].orderId"`,
  ]);
}

/**
 * --format csv beside --json or --query, which print one JSON document on the same stdout: refused (exit 2), as
 * codes get refuses it (commands/wait-flags.ts). The CSV was dropped without a word (a review's
 * `--query '[0].orderId' --raw --format csv`). `jsonFlag`: the flag that asked for JSON, as typed.
 */
export function checkFormat(format: ListOptions['format'], jsonFlag: '--json' | '--query' | undefined): void {
  if (format !== 'csv' || jsonFlag === undefined) return;
  throw new UsageError(`${jsonFlag} prints one JSON document; --format csv cannot go to stdout with it`, {
    hint: `drop ${jsonFlag} for the CSV, or --format csv for ${jsonFlag === '--query' ? 'the query' : 'the JSON'}`,
  });
}

/**
 * order list's table. An order that never got an id is named by its key, which order show takes as well: at 80
 * columns KEY gives way first, and a `-` left a support agent nothing to paste (a walkthrough). ENV never gives
 * way while the rows mix live and test orders (a live one was charged real money); where every row is of one
 * environment it may, and is then said once under the table. It gave way before AMOUNT, and a review at 80
 * columns found six live and test orders listed without it. OUTCOME takes its shorter words (outcomeShort) before
 * AMOUNT gives way, and says why an order was not placed in a word rather than a code cut mid-word (a review at 80
 * columns read `not placed: insuffic…` beside a refused order's key).
 */
export function listColumns(
  amount: (record: OrderRecord) => string,
  rows: readonly OrderRecord[] = [],
): Column<OrderRecord>[] {
  return [
    { header: 'order', value: (r) => r.orderId ?? r.key, whole: true },
    { header: 'product', value: (r) => r.productId, whole: true },
    { header: 'qty', value: (r) => grouped(r.quantity), whole: true },
    { header: 'amount', value: (r) => amount(r), dropRank: 6 },
    // The server's last status (completed, failed), which support reads first: it gave way before ENV and OUTCOME's
    // shorter words, and at 80 columns an order completed since read only "order placed" (a person's day). It gives way
    // after them, before AMOUNT.
    { header: 'status', value: (r) => r.status ?? '', dropRank: 5 },
    // Its shorter words before STATUS and AMOUNT give way: a grouped amount (1,234,500.00 USD) beside `placed`.
    { header: 'outcome', value: (r) => outcomeWords(r), narrow: { rank: 4, forms: outcomeShort } },
    { header: 'env', value: (r) => r.environment, sameRank: 3 },
    ...profileColumn(rows),
    { header: 'created', value: (r) => r.createdAt.replace(/\.\d+Z$/, 'Z'), dropRank: 2 },
    { header: 'key', value: (r) => r.key, whole: true, dropRank: 1 },
  ];
}

export async function run(options: ListOptions, deps: ListDeps): Promise<void> {
  const { allRecords, filterRecords, parseSince, recordsCsv, unfinished, unknownProfile, unknownStatus } =
    await import('../../orders/history-query.js');
  const { environment: env, profile } = orderScope(options, 'order list');
  const since = options.since === undefined ? undefined : parseSince(options.since);
  const [{ existsSync, statSync }, { csvCell }, { historyDir }] = await Promise.all([
    import('node:fs'),
    import('../../export/csv.js'),
    import('../../journal/history.js'),
  ]);
  const csv = (data: readonly OrderRecord[]): string => recordsCsv(data, (value) => csvCell(value, false));
  // Opened only where there is an order record: opening the journal makes the directory, and a mistyped
  // GIFTCODES_CONFIG_DIR was made, journal/ and all.
  // A config directory that is a file is opened too, for its error (exit 8), as order pending says it: it read "no
  // order record in <file> yet", exit 0 (a desk review).
  const notDirectory = statSync(deps.configDir, { throwIfNoEntry: false })?.isDirectory() === false;
  // So is one this user may not enter (chmod 000): existsSync read its journal as missing, "no order record", exit 0.
  const blocked = (): boolean => {
    try {
      statSync(deps.journalDir, { throwIfNoEntry: false });
      return false;
    } catch {
      return true;
    }
  };
  const journal =
    notDirectory || blocked() || existsSync(deps.journalDir) || existsSync(historyDir(deps.configDir))
      ? await deps.journal()
      : undefined;
  const words = (r: OrderRecord): readonly string[] => [outcomeWords(r), ...outcomeShort(r)];
  const recorded = journal ? allRecords(journal.history, journal.read().intents) : [];
  const unknown = options.status === undefined ? undefined : unknownStatus(recorded, options.status, words, SHOWN);
  if (unknown) throw unknown;
  if (!journal) return printNoRecord(deps, existsSync(deps.configDir), csv, options.format);
  const filters = {
    status: options.status,
    product: options.product,
    since,
    env,
    profile,
    limit: options.limit,
    words,
  };
  const read = options.refresh
    ? await refresh(deps, filterRecords(recorded, filters).filter(unfinished))
    : new Map<string, string>();
  // Read again after a refresh, which records what it read of ended orders; what it read of an order its run left
  // unfinished is shown, not written (the intent is the journal's to finish: order resume).
  const { intents } = journal.read();
  const records = allRecords(journal.history, intents).map((r) => {
    const status = r.outcome === 'pending' ? read.get(r.key) : undefined;
    return status === undefined ? r : { ...r, status };
  });
  const rows = filterRecords(records, filters);
  // Intents of this machine whose run is gone (not one still running), as `order resume` takes them up; a stale or
  // future-dated one is not resumed without --force-stale, so `order pending` is the place to see it.
  const [{ isAlive, otherMachine }, { staleness }] = await Promise.all([
    import('../../journal/owner.js'),
    import('../../journal/intent.js'),
  ]);
  const resumable = new Map(
    intents
      .filter((i) => !isAlive(i.owner) && otherMachine(i.owner) === undefined)
      .map((i) => [i.key, staleness(i) === undefined] as const),
  );
  const amount = await amounts(deps, rows);
  // An empty record (the journal made by an order show or codes get of another machine's order) matches nothing
  // because it holds nothing: "no orders … match" read to a support agent as the order never having happened here.
  const none =
    (rows.length === 0 && profile !== undefined ? unknownProfile(records, profile) : undefined) ??
    (records.length === 0 ? noRecordYet(deps.configDir) : 'no orders in the local record match');
  /** The columns the table left out on a narrow terminal (renderTable), said after it. */
  let leftOut: readonly string[] = [];
  await exportResult(
    deps.io,
    rows,
    {
      empty: { when: (data) => data.length === 0, line: none, notice: true },
      csv,
      text: (data) => {
        return renderTable(deps.io, data, listColumns(amount, data), { leftOut: (headers) => (leftOut = headers) });
      },
      // A status is the API's word when this machine last asked: an order listed as pending may have completed
      // since. A person reading the table is told, and how to ask again (a refreshed list asked just now).
      // A row whose run ended before the order did ("unfinished: resume it") is finished by resuming it, which
      // a refreshed status would not do: it is counted apart, with the command that does. Both lines are short
      // enough for 80 columns with a thousand orders (test/e2e/tables.test.ts), but for one order's whole key or a
      // config directory named by GIFTCODES_CONFIG_DIR, which their commands carry.
      notes: (data) => {
        const orders = (n: number) => (n === 1 ? '1 order was' : `${n} orders were`);
        const left = data.filter((r) => r.outcome === 'pending' && resumable.has(r.key));
        const stale = options.refresh ? 0 : data.filter((r) => r.outcome !== 'pending' && unfinished(r)).length;
        // One row: the command for it alone. More, or a stale one: `order pending` lists each with its way out, and
        // nothing outside the rows listed (another profile's, a live order never sent) is resumed by following this.
        const only = left.length === 1 && resumable.get(left[0]!.key) === true ? left[0]!.key : undefined;
        const next = only ? `giftcodes order resume ${only}` : 'see giftcodes order pending';
        // Their commands reach this run's config directory, as every hint's does (a cron job's GIFTCODES_CONFIG_DIR).
        const place = { configDir: deps.io.env.GIFTCODES_CONFIG_DIR };
        return [
          // At 80 columns STATUS and CREATED went without a word (a review): said, with where they are.
          ...(leftOut.length > 0
            ? [`left out at ${deps.io.columns} columns: ${leftOut.join(', ')} (--format csv or --json has them)`]
            : []),
          ...(left.length > 0
            ? [
                pinnedHint(
                  `${orders(left.length)} left unfinished by ${left.length === 1 ? 'its' : 'their'} run: ${next}`,
                  place,
                ),
              ]
            : []),
          ...(stale > 0
            ? [pinnedHint(`${orders(stale)} in progress when last checked: giftcodes order list --refresh`, place)]
            : []),
        ];
      },
    },
    options.format,
  );
}

/**
 * Where this run looks there is no order record. It listed "no orders in the local record match", which a support
 * agent read as the order never having happened, where GIFTCODES_CONFIG_DIR was mistyped: where it looked is said,
 * as a warning where the config directory does not exist (--json and CSV too, their empty document on stdout).
 */
async function printNoRecord(
  deps: Pick<ListDeps, 'io' | 'configDir'>,
  dirExists: boolean,
  csv: (data: readonly OrderRecord[]) => string,
  format: ListOptions['format'],
): Promise<void> {
  const line = dirExists
    ? noRecordYet(deps.configDir)
    : `no order record: the config directory ${deps.configDir} does not exist`;
  if (!dirExists) deps.io.warn(line);
  const none: OrderRecord[] = [];
  await exportResult(
    deps.io,
    none,
    { empty: { when: () => dirExists, line, notice: true }, csv, text: () => '' },
    format,
  );
}

function noRecordYet(configDir: string): string {
  return `no order record in ${configDir} yet: no order was placed or tried with this config directory`;
}

/**
 * What happened, in a support agent's words; --json and --format csv keep the record's one-word outcome
 * (delivered, failed, refused, abandoned, pending).
 */
export function outcomeWords(r: OrderRecord): string {
  switch (r.outcome) {
    case 'delivered':
      // Codes that went to standard output were printed, not saved to a file.
      return r.out === '-' ? 'codes printed' : r.out ? 'codes saved to file' : 'order placed';
    case 'failed':
      return 'order failed';
    case 'refused':
      // Ended without an order, nothing charged: refused by the API, or never sent (the server unreachable).
      return r.error ? `not placed: ${r.error.code}` : 'not placed';
    case 'abandoned':
      return 'abandoned, not resumed';
    case 'pending':
      return 'unfinished: resume it';
  }
}

/**
 * outcomeWords shortened, longest first, for an OUTCOME column at a narrow width: `not placed: no funds`, then
 * `no funds` (a code without a word of its own is given alone, whole); `placed`, `saved`; `failed`, `abandoned` and
 * `unfinished`, as --status takes them.
 */
export function outcomeShort(r: OrderRecord): readonly string[] {
  switch (r.outcome) {
    case 'delivered':
      return r.out === '-' ? ['printed'] : r.out ? ['codes saved', 'saved'] : ['placed'];
    case 'failed':
      return ['failed'];
    case 'refused': {
      if (!r.error) return [];
      const word = reasonWord(r.error.code);
      return word === undefined ? [r.error.code] : [`not placed: ${word}`, word];
    }
    case 'abandoned':
      return ['abandoned'];
    case 'pending':
      return ['unfinished'];
  }
}

/** An order of each kind the OUTCOME column words apart: its words are --status words whatever the record holds. */
const KINDS = [
  { outcome: 'delivered' },
  { outcome: 'delivered', out: 'codes.csv' },
  { outcome: 'delivered', out: '-' },
  { outcome: 'failed' },
  { outcome: 'refused' },
  ...Object.keys(REASON_WORDS).map((code) => ({ outcome: 'refused', error: { code, message: '' } })),
  { outcome: 'abandoned' },
  { outcome: 'pending' },
] as OrderRecord[];

/**
 * Every word the OUTCOME column shows of some kind of order, short (at 80 columns) and whole: --status takes each
 * (docs/support-desk.md). An API code without a word of its own is taken where the record has it.
 */
const SHOWN = { short: [...new Set(KINDS.flatMap(outcomeShort))], whole: [...new Set(KINDS.map(outcomeWords))] };

/**
 * What TAB offers after --status: the outcomes, the server statuses openapi.yaml and docs/dialects.md name, and the
 * OUTCOME column's words, those of one word only (a shell splits the others; they are typed in quotes).
 */
export const STATUS_VALUES: readonly string[] = [
  ...new Set([...OUTCOMES, ...Object.keys(STATUS_WORDS), ...ORDER_STATUSES, ...SHOWN.short, ...SHOWN.whole]),
].filter((word) => /^[a-z_]+$/.test(word));

/**
 * What the order costs: the amount the API stated for it (kept in its record), else the unit price × quantity from
 * the catalog the record's profile and base URL last listed; blank where neither is known.
 */
async function amounts(
  deps: Pick<Deps, 'configDir'>,
  records: readonly OrderRecord[],
): Promise<(r: OrderRecord) => string> {
  const [{ readCatalogPrices }, { spokenMoney }] = await Promise.all([
    import('../../output/catalog-cache.js'),
    import('../../money.js'),
  ]);
  const byTarget = new Map<string, ReturnType<typeof readCatalogPrices>>();
  const pricesOf = (r: OrderRecord): ReturnType<typeof readCatalogPrices> => {
    const id = `${r.profile}\n${r.baseUrl}`;
    let prices = byTarget.get(id);
    if (!prices)
      byTarget.set(id, (prices = readCatalogPrices(deps.configDir, { profile: r.profile, baseUrl: r.baseUrl })));
    return prices;
  };
  for (const r of records) if (!r.amount) pricesOf(r);
  return (r) => {
    if (r.amount) return spokenMoney(r.amount.amount, r.amount.currency);
    const unit = pricesOf(r).get(r.productId);
    return unit ? spokenMoney(unit.amount * r.quantity, unit.currency) : '';
  };
}

/**
 * Reads each unfinished order once (REFRESH_CONCURRENCY at a time) where it was placed: with the key of its own
 * profile and environment, at its base URL, as order show does. An order whose key is not at hand, the run's
 * own target's included, is left as it is, and said with the login that brings the key back; another target's
 * that cannot be read otherwise (its keyring out of reach) is too, where the run's own fails the list as any
 * command would. A key given to this run (--api-key, GIFTCODES_API_KEY) is sent to
 * the run's own base URL only: the orders of other targets are then left as they are.
 */
/** Reads the unfinished orders listed; records what it read of the ended ones, and returns what it read of each order still to resume, by key. */
async function refresh(deps: ListDeps, targets: readonly OrderRecord[]): Promise<Map<string, string>> {
  const pending = new Map<string, string>();
  if (targets.length === 0) return pending;
  const [{ clientAt, describeTarget, placedWith, sameTarget }, { withStatus }, journal, current] = await Promise.all([
    import('../../orders/ref.js'),
    import('../../journal/history.js'),
    deps.journal(),
    deps.currentTarget().catch(() => undefined),
  ]);
  const groups = new Map<string, OrderRecord[]>();
  for (const record of targets) {
    const id = JSON.stringify(placedWith(record));
    const group = groups.get(id);
    if (group) group.push(record);
    else groups.set(id, [record]);
  }
  const mine: { record: OrderRecord; api: ApiClient }[] = [];
  let keyGiven: boolean | undefined;
  for (const records of groups.values()) {
    const where = placedWith(records[0]!);
    const own = sameTarget(current, where);
    // "In progress", the API's word for them: "unfinished" is the word of a run to resume (--status unfinished),
    // and a notice of orders merely pending at the API read as that (a review).
    const orders = records.length === 1 ? '1 order in progress' : `${records.length} orders in progress`;
    if (!own) {
      keyGiven ??= await deps.connection().then(
        (connection) => connection.keySource === 'flag' || connection.keySource === 'environment',
        () => deps.io.env.GIFTCODES_API_KEY !== undefined && deps.io.env.GIFTCODES_API_KEY !== '',
      );
      if (keyGiven) {
        deps.io.warn(
          `${orders} of ${describeTarget(where)} not refreshed: this run's key is for its own profile and server only`,
        );
        continue;
      }
    }
    let api: ApiClient;
    try {
      api = await clientAt(deps, records[0]!);
    } catch (error) {
      // A key no longer at hand (logged out, or a profile holding only its other environment's key) leaves its
      // orders as they are, the run's own included, and the table is shown (docs/support-desk.md): the whole list
      // used to fail, exit 3, over one order listed.
      if (!isCliError(error) || (own && error.code !== 'order_key_missing')) throw error;
      deps.io.warn(`${orders} of ${describeTarget(where)} not refreshed: ${error.message}`);
      if (error.hint) {
        deps.io.notice(`  hint: ${pinnedHint(error.hint, { configDir: deps.io.env.GIFTCODES_CONFIG_DIR })}`);
      }
      continue;
    }
    if (!own) deps.io.notice(`${orders} of ${describeTarget(where)}: reading there`);
    for (const record of records) mine.push({ record, api });
  }
  const pendingKeys = new Set(journal.read().intents.map((intent) => intent.key));
  const spinner = await deps.io.spinner(`refreshing 0/${mine.length}`);
  let done = 0;
  let next = 0;
  const failures: string[] = [];
  /** The records whose status changed: written together once every order is read (one turn of the journal's lock). */
  const refreshed: OrderRecord[] = [];
  const worker = async (): Promise<void> => {
    while (next < mine.length) {
      const { record, api } = mine[next++]!;
      try {
        const order = await api.getOrder(record.orderId!);
        const status = typeof order.status === 'string' ? order.status : undefined;
        // An unresolved intent belongs to the journal (order resume finishes it): only ended records are rewritten.
        if (status !== undefined && pendingKeys.has(record.key)) pending.set(record.key, status);
        else if (status !== undefined && status !== record.status)
          refreshed.push(withStatus(record, status, deps.now()));
      } catch (error) {
        failures.push(`${record.orderId}: ${error instanceof Error ? error.message : String(error)}`);
      }
      spinner.update(`refreshing ${++done}/${mine.length}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(REFRESH_CONCURRENCY, mine.length) }, worker));
  } finally {
    spinner.stop();
  }
  for (const failure of failures) deps.io.warn(`could not refresh ${failure}`);
  try {
    await journal.recordStatuses(refreshed);
  } catch (error) {
    deps.io.warn(
      `the statuses read were not written to the local record: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return pending;
}
