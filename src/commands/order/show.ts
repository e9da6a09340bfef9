import type { Command } from 'commander';
import { orderOutcome } from '../../api/outcome.js';
import type { Order } from '../../api/schemas.js';
import { ApiError, ExitCode, isCliError } from '../../errors.js';
import type { OrderRecord } from '../../journal/history.js';
import type { Journal } from '../../journal/journal.js';
import { writtenAt } from '../../journal/outcomes.js';
import { exportResult } from '../../output/exporter.js';
import type { Io } from '../../output/io.js';
import { pinnedHint } from '../../output/pinned-hint.js';
import { spokenMoney } from '../../money.js';
import { labelled, printOrder } from '../../orders/present.js';
import { stripControl } from '../../secrets.js';
import { addVerb, type App } from '../app.js';
import { outcomeWords } from './list.js';
import type { Deps } from '../deps.js';
import { orderRefArg } from '../parse.js';

export function register(parent: Command, app: App): void {
  const help = {
    description: 'read an order: its status and every field the API sends, and what this machine did with it',
    examples: [
      'giftcodes order show ord_8f2k1',
      'giftcodes order show ord_8f',
      'giftcodes order show 3f9a2c1e --json | jq -r .status',
    ],
  };
  addVerb(parent, app, 'show', help, ({ deps }, ref) => run({ ref }, deps)).argument(
    '<ref>',
    'order id, idempotency key, or a unique prefix of either (from the local record)',
    orderRefArg,
  );
}

/**
 * The ref is resolved against the local record (orders/ref.ts) and read where the order was placed; a ref
 * unknown here is asked of the current connection as an order id. The status read becomes the record's.
 */
export async function run(
  options: { ref: string },
  deps: Pick<Deps, 'io' | 'journal' | 'api' | 'connection' | 'clientFor' | 'connectionTo' | 'currentTarget' | 'now'> &
    Partial<Pick<Deps, 'config' | 'configDir'>>,
): Promise<void> {
  const { refOf, noteStatus, localRecord, fromOtherKey, oneRef } = await import('../../orders/ref.js');
  // Where the config directory is not there, an empty journal that is never made, said once the order is read: the
  // order shown is the API's alone (a support agent read one so as all there was; said before a 404, it read as if
  // an order were shown).
  const { recordless } = await import('./journal-missing.js');
  const here = await recordless(deps);
  const journal = await deps.journal({ read: true });
  // A ref pasted with the words of its sentence: the one word of it that names the order.
  const typed = await oneRef(deps, journal, options.ref);
  const record = localRecord(journal, typed);
  // Never given an id by the API (interrupted before it answered, or refused): this machine's record is all there
  // is to show, and it is shown (exit 0), with the way to finish a pending one. It was an error (exit 4, "the API
  // refused") though nothing was asked of the API.
  if (record !== undefined && record.orderId === undefined) return printUnnumbered(deps.io, journal, record);
  let ref = await refOf(deps, typed, record);
  let order: Order;
  // A slow or silent API is retried for minutes by default: on a terminal a spinner says what is awaited (a support
  // agent with a customer on the phone saw a blank screen).
  const spinner = await deps.io.spinner(`asking ${ref.api.baseUrl} for order ${ref.orderId}`, { elapsed: true });
  try {
    order = await ref.api.getOrder(ref.orderId).finally(() => spinner.stop());
  } catch (error) {
    // The API out of reach: what this machine recorded is shown first (its codes written here, or how to finish
    // it), which support needs most, then the error (exit 5). --json keeps stdout for the API's order.
    if (ref.record && isCliError(error) && error.exitCode === ExitCode.network)
      await printRecorded(deps.io, journal, ref.record);
    // An order recorded here that the API does not know: the record is shown too, and the error says whose order it
    // is. It read only "check the id … order list shows the orders placed from here", of an order order list showed
    // (a support review: a server reset, or a key of another reseller given for the run).
    if (ref.record && error instanceof ApiError && error.code === 'order_not_found') {
      await printRecorded(deps.io, journal, ref.record);
      const { recordedNotFound } = await import('../../orders/ref.js');
      throw await recordedNotFound(
        deps,
        ref.record,
        ref.api.baseUrl,
        // With --json nothing of the record is printed: the hint names where it is (a review).
        deps.io.json
          ? `this machine's record of it: giftcodes order list --json`
          : "this machine's record of it is above",
      );
    }
    // A ref unknown here, not found with the key of one environment: asked with the profile's other key, else thrown.
    ({ ref, order } = await fromOtherKey(deps, ref, error));
  }
  here.say("this is the API's order alone");
  await noteStatus(journal, ref, order.status, deps.now());
  // The next step, where this machine's record does not say it already (codes written here, or a run to resume): a
  // completed order whose codes were never fetched read `here  placed`, and no word of codes get (a person's day).
  const recorded = ref.record;
  // An abandoned order's HERE line names its codes get already, once it completed: a second one under it, with
  // another file name, was one hint too many (a support review).
  const said =
    recorded?.outcome === 'pending' ||
    (recorded?.outcome === 'delivered' && recorded.out !== undefined && recorded.out !== '-') ||
    (recorded?.outcome === 'abandoned' && orderOutcome(order.status) === 'completed');
  await printOrder(
    deps.io,
    order,
    recorded ? await localRows(journal, recorded, deps.io.env.GIFTCODES_CONFIG_DIR, order.status) : [],
    said ? undefined : recorded ? null : await unrecordedCodesNext(deps, order),
  );
}

/**
 * The codes hint of an order no record here knows: it is found again only where it was found, so the hint names the
 * profile, the server when one was given for the run and, when another key than the run's found it, the environment. Without them it asked the default profile's
 * key, which another reseller's order is not visible to (a support review: exit 4).
 */
async function unrecordedCodesNext(
  deps: Pick<Deps, 'currentTarget' | 'connection'>,
  order: Order,
): Promise<string | null> {
  const [target, connection] = await Promise.all([
    deps.currentTarget().catch(() => undefined),
    deps.connection().catch(() => undefined),
  ]);
  if (target === undefined || orderOutcome(order.status) !== 'completed') return null;
  const { codesFileFor } = await import('../../orders/present.js');
  // Also where --env chose it for this run: pasted without it, the profile's default key asked (a person's day).
  const env =
    typeof order.environment === 'string' && (order.environment !== target.environment || target.environmentGiven)
      ? ` --env ${order.environment}`
      : '';
  // A --base-url of this run's command line (GIFTCODES_BASE_URL is still set where the hint is pasted).
  const server = target.baseUrlGiven === '--base-url' ? ` --base-url ${target.baseUrl}` : '';
  // A key given for the run found it, and only that key sees it: said, never printed (a review's paste met 404s).
  const key =
    connection?.keySource === 'flag'
      ? ' (with the same --api-key)'
      : connection?.keySource === 'environment'
        ? ' (with GIFTCODES_API_KEY set as here)'
        : '';
  return `its codes: giftcodes codes get ${order.id} --out ${codesFileFor(order.id)}${target.profile !== 'default' ? ` --profile ${target.profile}` : ''}${env}${server}${key}`;
}

/**
 * This machine's record of an order, as `label  value` lines: `head` first (the order and what became of it),
 * then its request, `tail`, and what it did with the order here (localRows).
 */
async function printLocal(
  io: Io,
  journal: Journal,
  record: OrderRecord,
  head: [string, string][],
  tail: [string, string][],
  options: { document: boolean },
): Promise<void> {
  const rows: [string, string][] = [
    ...head,
    ['product', record.productId],
    ['quantity', String(record.quantity)],
    // What the API stated it costs, as order list shows it: an order show that cannot reach the API left it out.
    ...(record.amount
      ? [['amount', spokenMoney(record.amount.amount, record.amount.currency)] as [string, string]]
      : []),
    ['environment', record.environment],
    ['created', record.createdAt],
    ...tail,
    ...(await localRows(journal, record, io.env.GIFTCODES_CONFIG_DIR)),
  ];
  await exportResult(io, record, {
    text: () =>
      labelled(
        rows.map(([label, value]) => [label, stripControl(value)]),
        io.terminalWidth,
      ),
    pager: false,
    ...(options.document ? {} : { json: false as const }),
  });
}

/** A local record of an order the API could not be asked about now: its id and its last status read here (no --json document). */
function printRecorded(io: Io, journal: Journal, record: OrderRecord): Promise<void> {
  const status: [string, string][] = record.status
    ? [['status', `${record.status} (as this machine last read it)`]]
    : [];
  return printLocal(io, journal, record, [['order', record.orderId ?? '-'], ...status], [], { document: false });
}

/** A local record without an order id: its request, its outcome here, and (pending) the way to finish it. */
function printUnnumbered(io: Io, journal: Journal, record: OrderRecord): Promise<void> {
  const reason: [string, string][] = record.error ? [['reason', `${record.error.code}: ${record.error.message}`]] : [];
  return printLocal(
    io,
    journal,
    record,
    [
      // Interrupted while its request was out, the API may well have given it one, which no answer brought here. One
      // never sent, or whose request never reached the API, got none from it: "the API gave it no id" said the API
      // had seen it (a review).
      [
        'order',
        record.sent
          ? '- (not known here: its request may have gone out, no answer came)'
          : record.outcome === 'pending' || record.outcome === 'abandoned'
            ? '- (its request was never sent)'
            : record.outcome === 'refused' && record.error?.code === 'network_error'
              ? '- (its request never reached the API)'
              : '- (the API gave it no id)',
      ],
      // In order list's words: one that ended without an order is `not placed: <code>`, whether the API refused
      // it or never heard of it. `refused` beside `network_error: cannot reach …` read as the API refusing it.
      ['outcome', record.outcome === 'refused' ? outcomeWords(record) : record.outcome],
    ],
    reason,
    { document: true },
  );
}

/**
 * What this machine did with the order, which the API cannot say: its key, and whether its codes reached the user
 * here. A completed order whose run was killed before writing its --out file reads "completed" at the API; a
 * support agent must see that the codes never arrived, and how to finish. `status`: the order's status as the API
 * gave it now, else as this machine last read it.
 */
async function localRows(
  journal: Journal,
  record: OrderRecord,
  configDir: string | undefined,
  status: string | undefined = record.status,
): Promise<[string, string][]> {
  const rows: [string, string][] = [['key', record.key]];
  // A pending record is its intent's (recordOf), --out included.
  const file = record.out === '-' ? 'standard output' : record.out;
  const when = record.endedAt ?? record.updatedAt;
  switch (record.outcome) {
    case 'pending': {
      const [{ isAlive }, { pendingWayOut }] = await Promise.all([
        import('../../journal/owner.js'),
        import('../../orders/ref.js'),
      ]);
      const intent = journal.read().intents.find((i) => i.key === record.key);
      const running = intent !== undefined && isAlive(intent.owner);
      rows.push([
        'here',
        running
          ? `being placed by a giftcodes run now (pid ${intent.owner.pid})`
          : // The command runs where this one did: with its config directory when one was given (a cron job's).
            unfinishedHere(file, status, pinnedHint(pendingWayOut(record)!, { configDir })),
      ]);
      break;
    }
    case 'delivered': {
      // A file moved or deleted since is said so: a list of copies read as all still there (a review).
      const { existsSync } = await import('node:fs');
      // Another order's codes written over it since (its `--force`, a `codes get --out` into it) are said too: a
      // person reading this to find the order's codes handed out that file (a fourth review).
      const gone = (path: string, at: string | undefined): string => {
        if (!existsSync(path)) return ', no longer there';
        const over = journal.history.writtenOver(path, at, record.key);
        return over !== undefined ? `, written over since with the codes of order ${over.orderId ?? over.key}` : '';
      };
      rows.push([
        'here',
        file
          ? `codes written to ${file} (${when}${record.out === '-' ? '' : gone(file, writtenAt(record))})`
          : `placed (${when})`,
      ]);
      // The other files of the same codes written here since: each one may be handed out once only.
      for (const copy of record.copies ?? [])
        rows.push(['', `the same codes written to ${copy} too${gone(copy, record.copiedAt?.[copy])}`]);
      break;
    }
    case 'abandoned': {
      // Without an order id, `codes get` of its key says it has none: the way to it is the same order again.
      const { abandonedWayOut } = await import('../../orders/ref.js');
      const wayOut =
        record.orderId === undefined
          ? (abandonedWayOut(record) ?? 'it was never sent, so nothing was placed')
          : `its codes were not written here; to have them: giftcodes codes get ${record.orderId} --out CODES_FILE`;
      rows.push(['here', `abandoned (${when}): ${pinnedHint(wayOut, { configDir })}`]);
      break;
    }
    default:
      break;
  }
  return rows;
}

/**
 * The `here` of an order whose run ended before it was finished here. While the order is in progress its run ended
 * before the order did. Once the order has ended on the server, what is unfinished is this machine's part: an
 * `order place --out` interrupted while it wrote the codes read "its run ended before the order did" beside
 * `status completed`, which support read as the order not having ended. `file`: where its codes go.
 */
export function unfinishedHere(file: string | undefined, status: string | undefined, wayOut: string): string {
  const ended = status === undefined ? 'in_progress' : orderOutcome(status);
  if (ended === 'completed')
    return file
      ? `completed on the server; its codes were not written here yet (${file}); ${wayOut}`
      : `completed on the server; its run here ended before recording it; ${wayOut}`;
  if (ended === 'failed') return `failed on the server; its run here ended before recording it; ${wayOut}`;
  return `unfinished: its run ended before the order did${file ? ` (its codes go to ${file})` : ''}; ${wayOut}`;
}
