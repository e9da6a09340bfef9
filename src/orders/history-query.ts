// What `order list` and `order show <ref>` read: the local order record (ended orders, history/) and the
// journal's unresolved intents (shown as outcome `pending`), newest first; filters, --since, CSV and refs.
import { ORDER_STATUSES, orderOutcome } from '../api/outcome.js';
import { UsageError } from '../errors.js';
import { inScope, newestFirst, outcomeOf, recordOf, type History, type OrderRecord } from '../journal/history.js';
import { OUTCOMES, STATUS_WORDS } from '../journal/outcomes.js';
import type { Intent } from '../journal/intent.js';
import { byCodePoint } from '../compare.js';
import { majorUnits } from '../money.js';
import { groupBy } from '../group.js';
import { nearestIds } from '../near.js';
import { unitsOf } from '../output/words.js';

/**
 * Every order this machine placed or tried: unresolved intents first merged in, newest first. A record's outcome is
 * read with its last status (history.ts outcomeOf): an order placed without a codes file that the API failed since reads failed.
 */
export function allRecords(history: History, intents: readonly Intent[]): OrderRecord[] {
  const ended = history.list().map((r) => {
    const outcome = outcomeOf(r);
    return outcome === r.outcome ? r : { ...r, outcome };
  });
  // A key is one order per scope (server, environment, API key): an intent is hidden only by its own scope's record,
  // and only by one that ended once the intent was begun (a crash between its record and its end). An abandoned
  // key sent again begins a new intent after its record: that run is what to show (a review saw the abandoned record).
  // Only the keys of intents are looked up: grouping every record was a tenth of `order list` with 90,000 of them.
  const intentKeys = new Set(intents.map((intent) => intent.key));
  const byKey = groupBy(
    ended.filter((r) => intentKeys.has(r.key)),
    (r) => r.key,
  );
  const before = (r: OrderRecord, intent: Intent): boolean =>
    Date.parse(r.endedAt ?? r.updatedAt) < Date.parse(intent.createdAt);
  const pending: OrderRecord[] = intents
    .filter((intent) => !byKey.get(intent.key)?.some((r) => inScope(r, intent) && !before(r, intent)))
    .map((intent) => recordOf(intent, 'pending'));
  // The abandoned record a later run of its key for the same order (begun after it ended: the key sent again) stands
  // in front of. Any other record stays beside that run: a key given again for another order must not hide the order
  // it delivered, or the abandoned one under it (third and fourth reviews).
  const superseded = new Set(
    intents.flatMap((intent) =>
      (byKey.get(intent.key) ?? []).filter(
        (r) =>
          r.outcome === 'abandoned' &&
          r.productId === intent.productId &&
          r.quantity === intent.quantity &&
          inScope(r, intent) &&
          before(r, intent),
      ),
    ),
  );
  // list() gave the records newest first: the few pending ones merged in, as a stable sort of them all, pending
  // first among equals (a second sort of 90,000 records was another tenth).
  return mergeNewestFirst(
    pending.sort(newestFirst),
    superseded.size === 0 ? ended : ended.filter((r) => !superseded.has(r)),
  );
}

/** Two lists each newest first, as one: on a tie, `first`'s item before `second`'s. */
function mergeNewestFirst(first: readonly OrderRecord[], second: readonly OrderRecord[]): OrderRecord[] {
  if (first.length === 0) return [...second];
  const merged: OrderRecord[] = [];
  let i = 0;
  let j = 0;
  while (i < first.length && j < second.length)
    merged.push(newestFirst(second[j]!, first[i]!) < 0 ? second[j++]! : first[i++]!);
  while (i < first.length) merged.push(first[i++]!);
  while (j < second.length) merged.push(second[j++]!);
  return merged;
}

export interface ListFilters {
  status?: string | undefined;
  product?: string | undefined;
  /** Epoch ms: records created at or after. */
  since?: number | undefined;
  env?: string | undefined;
  profile?: string | undefined;
  limit?: number | undefined;
  /**
   * The words a text view shows for a record's outcome (order list's OUTCOME, whole and shortened): --status takes
   * them too, as a person filters by what the table says (a review's `--status "no funds"` matched nothing).
   */
  words?: ((r: OrderRecord) => readonly string[]) | undefined;
}

/**
 * --product matches a part of the product id, any case (`--product amazon`); --status matches the outcome
 * (delivered, failed, refused, abandoned, pending) or the server's status, any case. The OUTCOME column's own
 * words (`unfinished` for pending, `not placed` for refused) match the outcome only: `--status unfinished` is the
 * runs to resume, not also the delivered orders the server still says are pending (a review found them mixed).
 */
export function filterRecords(records: readonly OrderRecord[], f: ListFilters): OrderRecord[] {
  const typed = f.status?.toLowerCase();
  const outcomeWord = typed === undefined ? undefined : STATUS_WORDS[typed];
  const status = outcomeWord ?? typed;
  const product = f.product?.toLowerCase();
  const out = records.filter(
    (r) =>
      (status === undefined ||
        r.outcome === status ||
        (outcomeWord === undefined && r.status?.toLowerCase() === status) ||
        (outcomeWord === undefined && f.words?.(r).some((w) => w.toLowerCase() === typed) === true)) &&
      (product === undefined || r.productId.toLowerCase().includes(product)) &&
      (f.since === undefined || Date.parse(r.createdAt) >= f.since) &&
      (f.env === undefined || r.environment === f.env) &&
      (f.profile === undefined || r.profile === f.profile),
  );
  return f.limit === undefined ? out : out.slice(0, f.limit);
}

/**
 * A --status order list cannot show: not an outcome, not a status openapi.yaml or docs/dialects.md names nor one
 * the record holds, and not a word the OUTCOME column shows (`shown`: of every kind of order, short and whole;
 * `words`: of the record's orders, an API code of their own too). Refused before anything is read from the API
 * (exit 2), with the nearest word and every one it takes: an empty list read a typo (`complete`) as "no such orders".
 */
export function unknownStatus(
  records: readonly OrderRecord[],
  status: string,
  words: (r: OrderRecord) => readonly string[],
  shown: { short: readonly string[]; whole: readonly string[] },
): UsageError | undefined {
  const wanted = status.toLowerCase();
  const lower = (list: readonly string[]): string[] => [...new Set(list.map((word) => word.toLowerCase()))];
  const recorded = records.flatMap((r) => (r.status ? [r.status.toLowerCase()] : [])).sort(byCodePoint);
  const statuses = lower([...ORDER_STATUSES, ...recorded]);
  const outcomeWords = lower([...Object.keys(STATUS_WORDS), ...shown.short]);
  const taken = lower([...OUTCOMES, ...statuses, ...outcomeWords, ...shown.whole, ...records.flatMap(words)]);
  if (taken.includes(wanted)) return undefined;
  const near = nearestIds(wanted, taken, 1)[0];
  // The short words, once each: the outcomes are named already, and `not placed: no funds` is `not placed` and a word.
  const short = outcomeWords.filter((w) => !(OUTCOMES as readonly string[]).includes(w) && !w.includes(': '));
  return new UsageError(
    `--status "${status}" is not an outcome, a server status or a word of the OUTCOME column${near ? `: did you mean ${near}?` : ''}`,
    {
      hint: `--status takes an outcome (${OUTCOMES.join(', ')}), a server status (${statuses.join(', ')}) or a word of the OUTCOME column, short (${short.join(', ')}) or whole as a wide table shows it`,
    },
  );
}

/** An empty `order list --profile shp`: a profile no record names is said as such, with the nearest one. */
export function unknownProfile(records: readonly OrderRecord[], profile: string): string | undefined {
  const profiles = [...new Set(records.map((r) => r.profile))].sort(byCodePoint);
  if (profiles.includes(profile) || profiles.length === 0) return undefined;
  const near = nearestIds(profile, profiles, 1)[0];
  return `no order in the local record was placed with the profile "${profile}"${near ? `: did you mean ${near}?` : ''} (profiles in the record: ${profiles.join(', ')})`;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--since`: a date (2026-11-01), a date and time (ISO 8601), or a duration back from now (90m, 12h, 7d, 2w). */
export function parseSince(value: string, now: number = Date.now()): number {
  const text = value.trim();
  const day = /^(today|yesterday)$/i.exec(text)?.[1]?.toLowerCase();
  if (day) {
    // Local midnight: what a person at the terminal means by a day (a date written out is UTC, as before).
    const midnight = new Date(now);
    midnight.setHours(0, 0, 0, 0);
    if (day === 'yesterday') midnight.setDate(midnight.getDate() - 1);
    return midnight.getTime();
  }
  const duration = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text);
  if (duration) return now - Number(duration[1]) * (UNITS[duration[2] ?? 'd'] ?? 0);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    const ms = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
    if (Number.isFinite(ms)) return ms;
  }
  throw new UsageError(
    `--since expects a date (2026-11-01), a time (2026-11-01T08:00:00Z), a duration (12h, 7d), today or yesterday, not "${value}"`,
    { hint: 'for example: --since yesterday, or --since 7d' },
  );
}

/** Whether the server may still change this record's status (worth a --refresh). */
export function unfinished(r: OrderRecord): boolean {
  return r.orderId !== undefined && (r.status === undefined || orderOutcome(r.status) === 'in_progress');
}

export const CSV_COLUMNS = [
  'key',
  'order_id',
  'product_id',
  'quantity',
  'status',
  'outcome',
  'environment',
  'profile',
  'base_url',
  'created_at',
  'updated_at',
  'ended_at',
  'out',
  'error_code',
  'error_message',
  'amount',
  'currency',
] as const;

/** RFC 4180, a header row; cells a spreadsheet would run as a formula are escaped (csvCell). */
export function recordsCsv(records: readonly OrderRecord[], cell: (value: unknown) => string): string {
  const rows = records.map((r) =>
    [
      r.key,
      r.orderId,
      r.productId,
      r.quantity,
      r.status,
      r.outcome,
      r.environment,
      r.profile,
      r.baseUrl,
      r.createdAt,
      r.updatedAt,
      r.endedAt,
      r.out,
      r.error?.code,
      r.error?.message,
      // The API's amount in the major unit (75.00 for 7500 USD), as a spreadsheet sums it; blank where none was stated.
      r.amount ? majorUnits(r.amount.amount, r.amount.currency) : undefined,
      r.amount?.currency,
    ]
      .map(cell)
      .join(','),
  );
  return [CSV_COLUMNS.join(','), ...rows].join('\r\n');
}

/** The fewest characters of an order id's part after `ord_` taken as a ref (fewer match too much by chance). */
export const MIN_FRAGMENT = 4;

/** The first list that holds anything (the last, empty, when none does). */
function firstFound<T>(...lists: T[][]): T[] {
  return lists.find((list) => list.length > 0) ?? lists.at(-1) ?? [];
}

/** How many of the orders an ambiguous ref matches its error names; the others are counted. */
export const AMBIGUOUS_SHOWN = 5;

/**
 * `order show <ref>`: an order id or a key, whole or a unique prefix of either. Exact matches win over
 * prefixes, and what is typed in its own case over another case; undefined when nothing local matches (the
 * caller then asks the API for it as an id).
 */
export function resolveRef(
  records: readonly OrderRecord[],
  ref: string,
  o: { anyCase?: boolean } = {},
): OrderRecord | undefined {
  const exact = records.filter((r) => r.orderId === ref || r.key === ref);
  const prefixed = records.filter((r) => r.orderId?.startsWith(ref) === true || r.key.startsWith(ref));
  // As with a short commit hash, a person copies the characters that differ: `ab002e` for `ord_ab002e…`. The
  // part after the id's type prefix is tried only when nothing starts with the ref, and from four characters.
  const afterType = (id: string | undefined): string | undefined => /^[a-z]+_(.+)$/i.exec(id ?? '')?.[1];
  // Typed in the wrong case (read out over the phone, caps lock): tried when nothing matches as typed, and only
  // where the ref is read (`anyCase`: order show, watch, codes get), never to pick an order to resume or abandon,
  // where `Invoice-1001` and `invoice-1001` are two keys and two orders.
  const lower = ref.toLowerCase();
  const anyCase = (id: string | undefined): boolean => id?.toLowerCase().startsWith(lower) === true;
  const pick =
    exact.length > 0
      ? exact
      : prefixed.length > 0 || ref.length < MIN_FRAGMENT
        ? prefixed
        : firstFound(
            records.filter((r) => afterType(r.orderId)?.startsWith(ref) === true),
            o.anyCase
              ? records.filter((r) => anyCase(r.orderId) || anyCase(r.key) || anyCase(afterType(r.orderId)))
              : [],
          );
  // One order may appear as both a key and an id match: the same record. One key in two scopes (test and
  // live, two servers) is two orders.
  const unique = [
    ...new Map(pick.map((r) => [JSON.stringify([r.key, r.baseUrl, r.environment, r.keyId]), r])).values(),
  ];
  if (unique.length <= 1) return unique[0];
  // One error line (src/cli.ts escapes line breaks): the first few candidates separated by "; ", the rest
  // counted (a review's `ord_` named all of 20 orders, 2,000 characters on one line, 10 of them shown).
  const shown = unique
    .slice(0, AMBIGUOUS_SHOWN)
    .map(
      (r) =>
        `${r.orderId ?? '(no order id)'} (key ${r.key}, ${unitsOf(r.quantity, r.productId)}, ${r.environment}, ${r.createdAt})`,
    );
  const more = unique.length - shown.length;
  throw new UsageError(
    `"${ref}" matches ${unique.length} orders: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`,
    {
      code: 'ambiguous_ref',
      hint:
        more > 0
          ? 'give more characters of the order id or key (giftcodes order list shows the orders recorded here)'
          : 'give more characters of the order id or key',
    },
  );
}
