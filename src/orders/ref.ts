// One way for every verb that names an order (order show, order watch, codes get, order resume, order abandon)
// to read what the user typed: an order id or an idempotency key, whole or a unique prefix, looked up in the
// local record first. A recorded order is read with the profile, environment and base URL it was placed with,
// whatever the current profile is: an order placed live is not "not found" because the default key is test.
import type { ApiClient } from '../api/client.js';
import type { Order } from '../api/schemas.js';
import type { ConfigStore } from '../config/store.js';
import type { Deps, Target } from '../commands/deps.js';
import type { Connection } from '../config/resolve.js';
import { ApiError, AuthError, isCliError, UsageError } from '../errors.js';
import { otherEnvironment, redactKeys } from '../secrets.js';
import { EnvironmentConflict } from '../config/resolve.js';
import { clientOf } from '../config/refused-key.js';
import { withStatus, type OrderRecord } from '../journal/history.js';
import { staleness } from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { allRecords, MIN_FRAGMENT, resolveRef } from './history-query.js';
import { firstOf, grouped, unitsOf } from '../output/words.js';
import { batchFlag, shellWord } from '../output/pinned-hint.js';

export interface OrderRef {
  /** The order id to ask the API for. */
  readonly orderId: string;
  /** The local record it was found in, if any. */
  readonly record: OrderRecord | undefined;
  readonly api: ApiClient;
}

type RefDeps = Pick<Deps, 'io' | 'journal' | 'api' | 'clientFor' | 'connectionTo' | 'currentTarget'>;

/**
 * An order ref (id, key, or a unique prefix of either) to the order id and a client for where it lives. An
 * ambiguous prefix is a usage error listing the candidates (exit 2); a ref unknown locally is asked of the
 * current connection as an order id; a recorded intent that never got an id is said as such (exit 4).
 */
export async function orderRef(deps: RefDeps, typed: string): Promise<OrderRef> {
  const journal = await deps.journal();
  const ref = await oneRef(deps, journal, typed);
  return refOf(deps, ref, localRecord(journal, ref));
}

/**
 * A ref pasted with the words of its sentence (`Order #ord_68e9… was not delivered`): what cleanRef leaves holds
 * whitespace, so it cannot be one id, and it is never sent as one (it went to the API as `Order%20%23ord_…`, 404).
 * The one word of it, cleaned as cleanRef cleans a ref, that is the whole id or key of an order the local record
 * knows is read instead (never a prefix: `Order` read as the key `order-1001`, and codes get wrote another order's
 * codes, a review); failing that, the one word that begins as the order ids of this profile's records (or of those placed at
 * this base URL) do, up to their `_` (`ord_` for the reference server; another service's ids may have another
 * prefix, or none). Said on stderr. No such word, or more than one: a usage error (exit 2), nothing sent. A ref
 * the local record knows as typed (a key may hold a space) and a ref of one word are passed on as they are.
 */
export async function oneRef(
  deps: Pick<RefDeps, 'io' | 'currentTarget'>,
  journal: Journal,
  typed: string,
): Promise<string> {
  const cleaned = cleanRef(typed);
  // A link alone (`https://dash…/orders/ord_X?tab=codes`) is read as a sentence is, by its parts: sent as it was, the
  // whole link went into the request's path (404, and an access log kept it; a support review).
  const link = LINK.test(cleaned);
  if ((!/\s/.test(cleaned) && !link) || localRecord(journal, typed) !== undefined) return typed;
  const count = cleaned.split(/\s+/).length;
  const words = [...new Set(cleaned.split(/\s+/).map(cleanRef))];
  const records = allRecords(journal.history, journal.read().intents);
  const known = words.filter((word) => word.length >= MIN_FRAGMENT && recordedWhole(records, word));
  const target = await deps.currentTarget().catch(() => undefined);
  const prefixes = idPrefixes(
    records.filter((r) => target === undefined || r.profile === target.profile || r.baseUrl === target.baseUrl),
  );
  // Words shaped as this profile's order ids, not recorded here: each may be the order meant, as a recorded one may.
  // A recorded key beside such an id ("restock: the codes of ord_X") is two candidates, not the key (a review wrote
  // the key's order's codes there).
  // Inside a word too: a dashboard link (`https://…/orders/ord_X`, `[ord_X](…)`, `order=ord_X`) holds one (a fourth
  // review: the key beside such a link was read alone).
  const tokens = [...new Set(words.flatMap((word) => [word, ...word.split(/[^\p{L}\p{N}_-]+/u)]))];
  const alike = tokens.filter(
    (word) =>
      !known.includes(word) &&
      prefixes.some((prefix) => word.length > prefix.length && word.toLowerCase().startsWith(prefix.toLowerCase())),
  );
  const candidates = [...known, ...alike];
  if (candidates.length === 1) {
    const why =
      known.length === 1
        ? `the one ${link && count === 1 ? 'part of it' : 'of them'} that names an order recorded here`
        : `the one ${link && count === 1 ? 'part of it' : 'of them'} that begins as the order ids recorded here do (${prefixes.join(', ')})`;
    deps.io.notice(`the ref is ${refShape(count, link)}, so not one id: reading ${candidates[0]}, ${why}`);
    return candidates[0]!;
  }
  throw notOneWord(count, candidates, link, candidates.length === 0 && link ? linkIdPart(words) : undefined);
}

/**
 * The part of a pasted link that may be its order id, for the hint of a link none of whose parts this machine can read
 * (no records yet: a new support desk, a person's-day review): an `order`, `order_id`, `orderId` or `id` query value,
 * else the last part of the path with a digit in it, six characters or more (`/orders/<id>/codes`, `/o/<id>`). Named
 * in the hint only, never sent: another service's ids and dashboards are not this one's.
 */
function linkIdPart(words: readonly string[]): string | undefined {
  const parts = new Set<string>();
  for (const word of words) {
    let url: URL;
    try {
      url = new URL(word);
    } catch {
      continue;
    }
    const queried = [...url.searchParams].find(([name]) => /^(order([_-]?id)?|id)$/i.test(name))?.[1];
    const segment = url.pathname
      .split('/')
      .map((piece) => {
        try {
          return decodeURIComponent(piece);
        } catch {
          return piece; // a stray % (URIError): the part as pasted
        }
      })
      .reverse()
      .find((piece) => piece.length >= 6 && /\d/.test(piece));
    const part = queried || segment;
    if (part !== undefined && !/\s/.test(part)) parts.add(part);
  }
  return parts.size === 1 ? [...parts][0] : undefined;
}

/** A ref that is, or holds, a link: `scheme://`. */
const LINK = /[a-z][a-z0-9+.-]*:\/\//i;

/** `3 words`, `a link`, `2 words with a link`: what a ref that is not one id is. */
function refShape(count: number, link: boolean): string {
  if (count === 1) return link ? 'a link' : '1 word';
  return `${count} words${link ? ' with a link' : ''}`;
}

/** A ref of several words none of which, or more than one of which, can be taken for the order (exit 2). */
function notOneWord(count: number, candidates: readonly string[] = [], link = false, linkPart?: string): UsageError {
  return new UsageError(
    candidates.length > 1
      ? `the ref is ${refShape(count, link)}, so not one id, and more than one of ${link ? 'its parts' : 'them'} could name the order (${candidates.join(', ')}): it was not sent`
      : `the ref is ${refShape(count, link)}, so not one id, and none of ${link ? 'its parts' : 'them'} names an order recorded here: it was not sent`,
    {
      code: 'ref_not_one_word',
      hint:
        candidates.length > 1
          ? 'paste the order id or key you mean alone'
          : linkPart !== undefined
            ? `paste the order id or key alone: in this link that may be ${linkPart}`
            : 'paste the order id or key alone, without the words around it',
    },
  );
}

/** Whether a word is the whole key or order id (any case) of an order the local record knows. */
function recordedWhole(records: readonly OrderRecord[], word: string): boolean {
  const id = word.toLowerCase();
  return records.some((r) => r.key === word || r.orderId?.toLowerCase() === id);
}

/** The prefixes up to and with the first `_` of the order ids of these records (`ord_`), those that have one. */
function idPrefixes(records: readonly OrderRecord[]): string[] {
  const prefixes = records.flatMap((r) => {
    const prefix = /^[^_\s]+_/.exec(r.orderId ?? '')?.[0];
    return prefix === undefined ? [] : [prefix];
  });
  return [...new Set(prefixes)];
}

/** Quotes and brackets a pasted ref comes wrapped in, each opening character with the closing ones it takes. */
const WRAPPERS: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '`': '`',
  '“': '”“',
  '‘': '’‘',
  '„': '“”',
  '”': '”',
  '’': '’',
  '<': '>',
  '(': ')',
  '[': ']',
  '{': '}',
};
const CLOSERS = new Set(Object.values(WRAPPERS).join(''));

/** Emphasis a chat or Markdown puts around a ref (Slack's `*bold*`, `_italic_`, `~strike~`): dropped in pairs only. */
const EMPHASIS = new Set(['*', '_', '~']);

/**
 * Invisible format characters a chat or a web page adds to what is copied (zero-width space, non-joiner and joiner,
 * word joiner, byte order mark): never part of an order id or a key (printable ASCII), so dropped wherever they are.
 */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF]/g;

/** The whole order id of openapi.yaml (`ord_` and 24 hex digits), in any case. */
const ORDER_ID = /^ord_[0-9a-f]{24}$/i;

/**
 * A ref as pasted (from JSON output, a chat, a sentence, an e-mail, the docs): without the spaces, quotes,
 * backticks, angle brackets, brackets and emphasis (`*…*`, `_…_`, `~…~`, whole pairs) around it, layer after layer,
 * a `#` before it, the full stop, comma, semicolon, colon, `!` or `?` after it, or the ellipsis of an id printed
 * truncated (`ord_c47ab0c9…`, left as the prefix it is), and without invisible format characters anywhere; a whole
 * order id typed in capitals (read out over the phone) in the lower case openapi.yaml gives ids. Only what cannot
 * be part of an order id is dropped; an idempotency key may hold such characters (place.ts takes any printable
 * ASCII) and keeps its case, so the callers try the ref as typed first. Nothing left: the ref as typed. A URL or
 * two words (`order ord_…`) are left as they are.
 */
export function cleanRef(typed: string): string {
  return refLayers(typed).at(-1)!;
}

/**
 * The ref as typed, then each spelling cleanRef goes through to its last, that last in lower case when it is an
 * order id (`"(po-7)"`, `(po-7)`, `po-7`): a key that holds brackets itself is one of them.
 */
function refLayers(typed: string): string[] {
  const layers = [typed];
  let ref = typed.replace(INVISIBLE, '').trim();
  for (let before = ''; ref !== before;) {
    if (ref !== '' && ref !== layers.at(-1)) layers.push(ref);
    before = ref;
    // `...` is a run of full stops; `…` one character.
    ref = ref
      .replace(/[.,;:!?…]+$/, '')
      .replace(/^#/, '')
      .trim();
    const first = ref[0] ?? '';
    const last = ref.at(-1) ?? '';
    const closing = WRAPPERS[first];
    if (ref.length >= 2 && EMPHASIS.has(first) && last === first) ref = ref.slice(1, -1).trim();
    else if (ref.length >= 2 && closing?.includes(last)) ref = ref.slice(1, -1).trim();
    // One side of a pair alone (`ord_…)` from "(see ord_…)"): dropped when its partner is nowhere in the ref.
    else if (closing !== undefined && ![...closing].some((c) => ref.includes(c, 1))) ref = ref.slice(1).trim();
    else if (CLOSERS.has(last) && !openerOf(last).some((c) => ref.slice(0, -1).includes(c)))
      ref = ref.slice(0, -1).trim();
  }
  if (ref !== '' && ref !== layers.at(-1)) layers.push(ref);
  const last = layers.at(-1)!;
  if (ORDER_ID.test(last) && last.toLowerCase() !== last) layers.push(last.toLowerCase());
  return layers;
}

/** The opening characters a closing one ends. */
function openerOf(closer: string): string[] {
  return Object.keys(WRAPPERS).filter((opener) => WRAPPERS[opener]!.includes(closer));
}

/** What became of an order the API gave no id, in order list's words. */
const NO_ID_WORDS: Partial<Record<OrderRecord['outcome'], string>> = {
  refused: 'it was not placed',
  abandoned: 'it was abandoned',
};

/** orderRef for a ref already looked up in the local record (`order show` looks first). */
export async function refOf(deps: RefDeps, ref: string, record: OrderRecord | undefined): Promise<OrderRef> {
  if (!record) {
    // Asked of the API it would go in the request's path, which a server's and a proxy's access logs keep.
    if (redactKeys(ref) !== ref)
      throw new UsageError('that is an API key, not an order id or key: it was not sent', {
        code: 'ref_is_api_key',
        hint: 'name the order by its id (ord_…) or its idempotency key: giftcodes order list shows them; if the key was pasted somewhere it should not be, revoke it',
      });
    const asked = cleanRef(ref);
    // Words around an id, or a link (oneRef reads the one that names it): never sent as one id.
    if (/\s/.test(asked) || LINK.test(asked)) throw notOneWord(asked.split(/\s+/).length, [], LINK.test(asked));
    return { orderId: asked, record: undefined, api: await apiFor(deps, asked) };
  }
  if (record.orderId === undefined) {
    // Abandoned or interrupted after its request went out, it may exist on the server: "it has no codes" sent a
    // review in a circle, and read as "nothing was charged" of an order the server had placed (a person's day).
    const pending = record.outcome === 'pending';
    const ending = pending
      ? record.sent
        ? 'its request may have gone out before its run ended, and no answer came, so it may have been placed (and charged); its codes are not known until it is finished'
        : 'its run ended before its request was sent'
      : record.sent
        ? 'it was abandoned after its request went out without an answer, so its codes are not known here'
        : `${NO_ID_WORDS[record.outcome] ?? `it ended ${record.outcome}`}${record.error ? ` (${record.error.code}: ${record.error.message})` : ''}, so it has no codes`;
    // Exit 2, not the API's 4: nothing was asked of the API, and 4 says it answered and nothing was charged, of an
    // order that may have been (a support review). Decided here, before anything is sent, as a usage error is.
    throw new UsageError(
      `the order with key ${record.key} (${unitsOf(record.quantity, record.productId)}) ${pending ? 'has no order id here yet' : 'never got an order id'}: ${ending}`,
      {
        code: 'no_order_id',
        hint: pendingWayOut(record) ?? abandonedWayOut(record) ?? `see it with: giftcodes order show ${record.key}`,
      },
    );
  }
  return { orderId: record.orderId, record, api: await clientForRecord(deps, record) };
}

/**
 * The current connection's client, for a ref the local record does not know (asked of the API as an order id).
 * Without a key for it, the error says first that no order here matches: a fragment a person typed for an order
 * of another environment read as "no test key in profile", and pointed at logging in a key they did not need.
 */
async function apiFor(deps: RefDeps, ref: string): Promise<ApiClient> {
  try {
    return await deps.api();
  } catch (error) {
    if (!(error instanceof AuthError) || error.code !== 'no_api_key') throw error;
    // A profile with one key is asked with that one (docs/support-desk.md), when no environment was chosen for the
    // run: a live-only profile refused to look up an id with "no test key" (a support review).
    const target = await Promise.resolve()
      .then(() => deps.currentTarget())
      .catch(() => undefined);
    if (target !== undefined && !target.environmentGiven) {
      const other = otherEnvironment(target.environment);
      const to = await deps.connectionTo({ ...target, environment: other }).catch(() => undefined);
      if (to !== undefined) {
        deps.io.notice(`profile "${target.profile}" holds no ${target.environment} key: asking with its ${other} key`);
        return clientOf(deps, to);
      }
    }
    throw new AuthError(
      `no order in the local record matches "${ref}", and it cannot be asked of the API: ${error.message}`,
      {
        code: error.code,
        hint: `check the ref against giftcodes order list (an id, a key, or a unique prefix of either); to ask the API for an order placed elsewhere: ${error.hint ?? 'log in a key'}`,
      },
    );
  }
}

/**
 * What an order the API does not know (404 `order_not_found`) is told, when no local record matches the ref: the
 * hint of src/api/errors.ts offers `order list` and a prefix, which find only orders recorded on this machine.
 * Other errors, and a ref the local record knows, are passed on as they are. `asked`: how the ref was asked again
 * with the profile's key of the other environment (otherKey), when it was.
 */
export async function notFoundHere(
  deps: Pick<Deps, 'journal' | 'connection'> & Partial<Pick<Deps, 'config'>>,
  ref: string,
  error: unknown,
  asked?: Pick<UnrecordedFacts, 'bothAsked' | 'otherFailed'>,
): Promise<unknown> {
  if (!(error instanceof ApiError) || error.code !== 'order_not_found') return error;
  try {
    const journal = await deps.journal();
    if (localRecord(journal, ref) !== undefined) return error;
    const connection = await deps.connection();
    const store = await deps.config?.();
    const records = allRecords(journal.history, journal.read().intents);
    error.hint = unrecordedHint({
      ref: cleanRef(ref),
      recorded: records.length,
      near: nearRecorded(
        cleanRef(ref),
        records.filter((r) => r.profile === connection.profile),
      ),
      environment: connection.environment,
      baseUrl: connection.baseUrl,
      profile: connection.profile,
      otherKey: store?.keyLocation(connection.profile, otherEnvironment(connection.environment)) !== undefined,
      otherProfiles: store?.profileNames().filter((name) => name !== connection.profile),
      keyFrom: KEY_FROM[connection.keySource],
      ...asked,
    });
  } catch {
    // The hint is advice: failing to find better words keeps the error's own.
  }
  return error;
}

/**
 * A ref no local record knows, that the API answered 404 with the profile's key of one environment: asked again,
 * once, with the profile's key of the other (an order placed live is not visible to the test key, and the hint that
 * said to add --env live said to add --env test once it was added). Found there: the order and the ref to read it
 * with, said on stderr. Not found with either key: one error that says so. Anything else (another error, a recorded
 * ref, a key given for the run, a profile with one key): the error, with notFoundHere's hint. A key given for the run
 * (--api-key, GIFTCODES_API_KEY) is the only one asked: it may be another reseller's, and the profile's keys do not
 * stand in for it.
 */
export async function fromOtherKey(
  deps: Pick<Deps, 'io' | 'journal' | 'connection' | 'connectionTo' | 'clientFor'> & Partial<Pick<Deps, 'config'>>,
  ref: OrderRef,
  error: unknown,
): Promise<{ ref: OrderRef; order: Order }> {
  if (!(error instanceof ApiError) || error.code !== 'order_not_found' || ref.record !== undefined) throw error;
  let connection: Connection;
  let store: ConfigStore | undefined;
  try {
    [connection, store] = await Promise.all([deps.connection(), deps.config?.()]);
  } catch {
    throw await notFoundHere(deps, ref.orderId, error);
  }
  const other = otherEnvironment(connection.environment);
  if (KEY_FROM[connection.keySource] !== undefined || store?.keyLocation(connection.profile, other) === undefined)
    throw await notFoundHere(deps, ref.orderId, error);
  const where: Target = { profile: connection.profile, environment: other, baseUrl: connection.baseUrl };
  let api: ApiClient;
  let order: Order;
  try {
    const to = await deps.connectionTo(where);
    api = await clientOf(deps, to);
    order = await api.getOrder(ref.orderId);
  } catch (again) {
    if (again instanceof ApiError && again.code === 'order_not_found') {
      const both = new ApiError(
        `no order ${ref.orderId} at ${connection.baseUrl}: asked with the test key and with the live key of profile "${connection.profile}", both answered HTTP 404 order_not_found`,
        { code: 'order_not_found', status: 404 },
      );
      throw await notFoundHere(deps, ref.orderId, both, { bothAsked: true });
    }
    const reason = isCliError(again) ? again.message : String(again);
    throw await notFoundHere(deps, ref.orderId, error, { otherFailed: reason });
  }
  // A warning, not a notice: --json keeps it, so a support script learns the order (and its codes) are of the other
  // environment, a live order's real money (a desk review: --json dropped it).
  deps.io.warn(
    `order ${ref.orderId} is not known to the ${connection.environment} key: found with ${describeTarget(where)}`,
  );
  return { ref: { ...ref, api }, order };
}

/** Where a key given for the run came from, as the hint names it. */
const KEY_FROM: Partial<Record<Connection['keySource'], '--api-key' | 'GIFTCODES_API_KEY'>> = {
  flag: '--api-key',
  environment: 'GIFTCODES_API_KEY',
};

/** What the hint of a 404 for a ref no local record matches is made of. */
export interface UnrecordedFacts {
  ref: string;
  /** How many orders the local record holds. */
  recorded: number;
  environment: 'test' | 'live';
  baseUrl: string;
  profile?: string | undefined;
  /** The profile holds its key of the other environment. */
  otherKey: boolean;
  /** The ref was asked with that key too, and the API had no such order either (fromOtherKey). */
  bothAsked?: boolean | undefined;
  /** Asking with that key failed, for this reason (fromOtherKey). */
  otherFailed?: string | undefined;
  /** The other profiles of the config directory. */
  otherProfiles?: readonly string[] | undefined;
  /** Where a key given for the run came from. */
  keyFrom?: '--api-key' | 'GIFTCODES_API_KEY' | undefined;
  /** The one order id of the profile's records one edit away from the ref (nearRecorded). */
  near?: string | undefined;
}

/**
 * The one order id of these records one edit (a character changed, added or dropped, or two beside each other
 * swapped) away from a ref the API does not know, if exactly one is: a typo of an order recorded here. From the
 * records alone, nothing asked.
 */
export function nearRecorded(ref: string, records: readonly OrderRecord[]): string | undefined {
  const near = new Set(records.flatMap((r) => (r.orderId !== undefined && oneEdit(ref, r.orderId) ? [r.orderId] : [])));
  return near.size === 1 ? [...near][0] : undefined;
}

/** Whether two strings are one substitution, insertion, deletion or transposition of neighbours apart. */
export function oneEdit(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length)
    return (
      a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2))
    );
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.slice(i) === long.slice(i + 1);
}

/**
 * The hint of a 404 for a ref no local record matches: the order recorded here it is one typo away from, if one
 * is; a ref shaped like an idempotency key is said to be one; else what to check, by the keys it was asked with
 * (both of the profile's, one, or one given for the run), never a flag to add that would ask the same again; then
 * that a prefix finds only the orders recorded here (said of a ref that is not a whole order id), naming `order
 * list` only when it has something to show.
 */
export function unrecordedHint(o: UnrecordedFacts): string {
  const other = otherEnvironment(o.environment);
  // A typo of an order recorded here is the likeliest cause, whatever else may be.
  if (o.near !== undefined) return `did you mean ${o.near}? (an order recorded here, one typo away)`;
  // A key was asked of the API as an order id: the API is never asked by key, and only the record that placed it knows it.
  if (keyShaped(o.ref))
    // `order list` without `giftcodes` before it: the error printer pins a command to this run's config directory.
    return "it looks like an idempotency key, not an order id: only the machine and config directory that placed the order know its key (order list there shows it, with the order's id); the order id, from that machine or the provider's dashboard, works anywhere";
  const profiles = o.otherProfiles?.length
    ? ` (the other profiles here: ${o.otherProfiles.join(', ')}; add --profile <name> to ask with one)`
    : '';
  const first = o.bothAsked
    ? `check the id, and whether another profile or reseller account placed it${profiles}`
    : o.keyFrom
      ? `check the id, and that the order was placed at ${o.baseUrl} with the ${o.environment} key in ${o.keyFrom} or another ${o.environment} key of its reseller account: no other account's key, nor a ${other} key, sees it`
      : o.otherFailed !== undefined
        ? `check the id, and that the order was placed at ${o.baseUrl} with a ${o.environment} key; asking with the profile's ${other} key too failed: ${o.otherFailed}`
        : `check the id, and that the order was placed at ${o.baseUrl} with a ${o.environment} key: an order placed with the ${other} key is not visible to it, and ${o.profile ? `profile "${o.profile}"` : 'the profile'} holds no ${other} key`;
  if (ORDER_ID.test(o.ref)) return first;
  const here =
    o.recorded === 0
      ? 'none is recorded here'
      : `none of the ${grouped(o.recorded)} recorded here matches (giftcodes order list shows them)`;
  return `${first}; a prefix finds only the orders recorded on this machine, and ${here}`;
}

/**
 * The idempotency keys giftcodes makes (a UUID, journal.begin in src/journal/journal.ts; a plan row's `plan-` and hex
 * digits, rowKey and legacyRowKey in src/orders/plan.ts), and UUIDs of any version, which other tools give keys.
 */
const KEY_SHAPES = [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, /^plan-[0-9a-f]{24}(-r\d+)?$/];

/** Whether a ref has the shape of an idempotency key (KEY_SHAPES): said in the hint of its 404, never refused. */
export function keyShaped(ref: string): boolean {
  return KEY_SHAPES.some((shape) => shape.test(ref));
}

/**
 * The local record an order ref names (an id or key, whole or a unique prefix, any case), if any. A ref pasted
 * with its quotes or the full stop of its sentence (`"ord_31c0…"`, `ord_31c0….`) is read as cleanRef leaves it
 * when as typed it finds nothing (a key may hold those characters).
 */
export function localRecord(journal: Journal, ref: string): OrderRecord | undefined {
  const records = allRecords(journal.history, journal.read().intents);
  const cleaned = cleanRef(ref);
  return (
    resolveRef(records, ref, { anyCase: true }) ??
    (cleaned !== ref ? resolveRef(records, cleaned, { anyCase: true }) : undefined)
  );
}

/**
 * How to finish an order left pending here: `order resume <key>`; a stale one (over 24 hours old, or dated
 * ahead) is not resumed without --force-stale (the server may have forgotten its key), so the way out says so.
 * Undefined for a record that is not pending.
 */
export function pendingWayOut(record: OrderRecord, now: number = Date.now()): string | undefined {
  if (record.outcome !== 'pending') return undefined;
  if (staleness(record, now) !== undefined)
    return `it is not resumed silently (started more than 24 hours ago, or dated ahead of this clock): once you know whether the server placed it, giftcodes order resume ${record.key} --force-stale, or giftcodes order abandon ${record.key}`;
  return `finish it with: giftcodes order resume ${record.key}`;
}

/**
 * The way to an order abandoned after its request went out without an answer (OrderRecord.sent): the server may
 * have placed and charged it, and the API cannot be asked by key. Within the day the server keeps the key, the same
 * `order place` sends the request again under it (order/place.ts, recover.ts ofThisRequest); after it, only
 * the provider's records can say.
 */
export function abandonedWayOut(
  r: Pick<
    OrderRecord,
    'key' | 'sent' | 'createdAt' | 'keySince' | 'productId' | 'quantity' | 'environment' | 'profile' | 'plan' | 'batch'
  > & { baseUrl?: string | undefined },
  now: number = Date.now(),
): string | undefined {
  if (!r.sent) return undefined;
  const units = unitsOf(r.quantity, r.productId);
  // A key sent again: its day began at its first send (Intent.keySince), and its order may date from either send.
  const since = r.keySince ?? r.createdAt;
  if (staleness(r, now) !== undefined)
    return `it may have been placed before it was abandoned, and the API cannot be asked by key: look in the provider's dashboard for an order of ${units} placed about ${since}${r.keySince ? ` (or when it was sent again, about ${r.createdAt})` : ''}`;
  // The key is sent again only where it was sent: at that address, with that API key (recover.ts ofThisRequest). A
  // review rotated the key (or ran at another spelling of the address) and followed these words: two orders.
  const where =
    r.baseUrl === undefined
      ? ''
      : ` at ${r.baseUrl} with the API key it was sent with (not one rotated since: that places a new order beside it)`;
  // A plan's row: its plan, run again as it was (file name, batch), sends the row's key again; order place never does.
  if (r.key.startsWith('plan-'))
    return `it may have been placed before it was abandoned: its plan, run again within a day of ${since} ${planRunWords(r)}${where} and the row unchanged, sends this row's request under the same key (that order if it was placed, a new one if not, never both)`;
  return `it may have been placed before it was abandoned: the same order placed again within a day of ${since}${where} sends its request under the same key (that order if it was placed, a new one if not, never both): giftcodes order place --product ${r.productId} --quantity ${r.quantity}${placeFlags(r)}${r.baseUrl === undefined ? '' : ` --base-url ${r.baseUrl}`}`;
}

/**
 * How a plan row's plan must run again to send its key: its file name and --batch, named where the record keeps them
 * (a review followed "the same --batch" without knowing it, ran the plan without one, and was charged twice).
 */
export function planRunWords(r: Pick<OrderRecord, 'plan' | 'batch'>): string {
  const file = r.plan !== undefined ? `the same file name (${r.plan})` : 'the same file name';
  const batch = r.batch === undefined ? 'the same --batch' : batchFlag(r.batch);
  return `with ${file} and ${batch}`;
}

/**
 * Whether an order is a plan row's (its record's key, or an interrupted intent's of it): a failure of it is ordered
 * anew by its plan (wait.ts PLAN_ROW_ANEW), never by an order place of its own.
 */
export function ofPlanRow(journal: Journal, ref: OrderRef): boolean {
  return (
    ref.record?.key.startsWith('plan-') === true ||
    journal.read().intents.some((intent) => intent.orderId === ref.orderId && intent.key.startsWith('plan-'))
  );
}

/** The flags that place an order in its profile and environment again. */
/**
 * `to order it anew: giftcodes order place …` of an order recorded here that ended failed, as it was placed: its
 * profile and environment, its server when it is not this run's, its codes file. `order watch` and `codes get --wait`
 * said only product, quantity and environment, and pasted, the new order went to the profile's own server (a support
 * review); `order place`'s own ending knew them.
 */
export async function anewOfRecord(
  deps: Pick<RefDeps, 'currentTarget'>,
  r: Pick<OrderRecord, 'profile' | 'environment' | 'baseUrl' | 'productId' | 'quantity' | 'out' | 'key'>,
): Promise<string | undefined> {
  if (r.key.startsWith('plan-')) return undefined;
  const target = await Promise.resolve()
    .then(() => deps.currentTarget())
    .catch(() => undefined);
  // Left out only where the record's server is the profile's own: one this run took from --base-url or
  // GIFTCODES_BASE_URL (a cron job's environment, not the shell the hint is pasted in) is said (a review).
  const server =
    target?.baseUrl === r.baseUrl && target.baseUrlGiven === undefined && target.profile === r.profile
      ? ''
      : ` --base-url ${r.baseUrl}`;
  const out = r.out !== undefined && r.out !== '-' ? ` --out ${shellWord(r.out)}` : '';
  return `to order it anew: giftcodes order place --product ${r.productId} --quantity ${r.quantity}${placeFlags(r)}${server}${out}`;
}

/**
 * The 404 of an order this machine recorded: where it was asked, when and with which key it was placed, and the cause
 * that fits: a key given for this run that is not the one that placed it, else a server that no longer knows it (the
 * reference server forgets its orders when it stops). `recordWhere`: where the person reads this machine's record of it.
 * It said "check the id … order list shows the orders placed from here", of an order order list showed (reviews).
 */
export async function recordedNotFound(
  deps: Pick<Deps, 'connection'>,
  record: OrderRecord,
  baseUrl: string,
  recordWhere: string,
): Promise<ApiError> {
  const [{ keyIdOf }, connection] = await Promise.all([
    import('../journal/intent.js'),
    deps.connection().catch(() => undefined),
  ]);
  const given =
    connection !== undefined &&
    (connection.keySource === 'flag' || connection.keySource === 'environment') &&
    record.keyId !== undefined &&
    keyIdOf(connection.apiKey) !== record.keyId
      ? connection.keySource === 'flag'
        ? '--api-key'
        : 'GIFTCODES_API_KEY'
      : undefined;
  return new ApiError(
    `the API at ${baseUrl} does not know order ${record.orderId} (HTTP 404 order_not_found), which this machine placed at ${record.createdAt} with key ${record.key} (profile "${record.profile}", ${record.environment})`,
    {
      code: 'order_not_found',
      status: 404,
      hint: given
        ? `it was asked with the key in ${given}, not the one that placed it: run it without ${given} (the profile's key), or with that key`
        : `the server no longer knows it (reset or restarted, or another server at that address): ask the provider about it, with its id and key; ${recordWhere}${codesWrittenHere(record)}`,
    },
  );
}

/**
 * `; its codes were written here to …`, of an order whose codes this machine wrote to a file: `codes get` of an order a
 * restarted server forgot said only "ask the provider" while `order show` listed that file (a person's day).
 */
function codesWrittenHere(record: OrderRecord): string {
  return record.outcome === 'delivered' && record.out !== undefined && record.out !== '-'
    ? `; its codes were written here to ${record.out} at ${record.endedAt ?? record.updatedAt} (a copy of them, if that file is still there)`
    : '';
}

export function placeFlags(r: Pick<OrderRecord, 'profile' | 'environment'>): string {
  // --env always, test too: a profile whose default is live placed a live order from an abandoned test order's words
  // (a review).
  return `${r.profile !== 'default' ? ` --profile ${r.profile}` : ''} --env ${r.environment}`;
}

/**
 * An intent key from a ref (`order resume`, `order abandon`): a whole key, or a unique prefix of the key or
 * order id of an unresolved intent, as typed, else as cleanRef leaves it. An order that already ended here is said
 * as such, with where its codes are (exit 2); anything else is passed on as typed, for the journal to say it has
 * none.
 */
export async function intentKey(journal: Journal, ref: string): Promise<string> {
  // resume and abandon act on what they name: a key (or order id) named whole, in any spelling of the ref, comes
  // before any prefix, an ended one too (refused, never taken for a longer pending key); then a prefix, as typed and
  // cleaned. A review abandoned a charged order this way: `inv-1` (ended) picked the pending `inv-10`, and
  // `"(po-7)"`, cleaned to `po-7`, the pending `po-7b`.
  const intents = journal.read().intents;
  // Every record is read only when the ref is not a pending key as typed (the usual case: a key order pending showed).
  if (intents.some((intent) => intent.key === ref)) return ref;
  const ended = journal.history.list();
  const layers = refLayers(ref);
  for (const spelling of layers) {
    if (intents.some((intent) => intent.key === spelling)) return spelling;
    // A pending order by its id before an ended record of the same id: a key abandoned, then run again, ends as
    // `abandoned` with the order id the server replays to its new run (a review's resume by that id was refused).
    const byId = intents.find((intent) => intent.orderId === spelling);
    if (byId) return byId.key;
    const whole = ended.find((r) => r.key === spelling || r.orderId === spelling);
    if (whole) throw endedHere(whole);
  }
  const { recordOf } = await import('../journal/history.js');
  const pending = intents.map((intent) => recordOf(intent, 'pending'));
  for (const spelling of new Set([ref, layers.at(-1)!])) {
    const open = resolveRef(pending, spelling);
    if (open) return open.key;
    const endedByPrefix = resolveRef(ended, spelling);
    if (endedByPrefix) throw endedHere(endedByPrefix);
  }
  // Never picked in another case (`Invoice-1001` and `invoice-1001` are two orders), but named: `3965414E`, typed
  // from order pending's table in capitals, read "no unresolved order" of an order the table listed (a support review).
  const lower = cleanRef(ref).toLowerCase();
  const alike = pending.filter(
    (r) => r.key.toLowerCase().startsWith(lower) || r.orderId?.toLowerCase().startsWith(lower) === true,
  );
  if (lower.length >= MIN_FRAGMENT && alike.length > 0)
    throw new UsageError(
      `no unresolved order with the key ${ref} in that case: a key is matched as it is spelled; did you mean ${firstOf(
        alike.map((r) => r.key),
        3,
      )}?`,
      { code: 'intent_not_found', hint: 'list them with: giftcodes order pending' },
    );
  return ref;
}

/** `order resume`/`abandon` of an order that ended here: what became of it, and the command for its codes. */
function endedHere(record: OrderRecord): UsageError {
  const id = record.orderId ?? record.key;
  const codes = record.orderId ? `giftcodes codes get ${record.orderId} --out CODES_FILE` : undefined;
  const hint =
    record.outcome === 'abandoned' && codes
      ? `its codes stay on the server: ${codes}`
      : record.outcome === 'delivered' && record.out
        ? `its codes were written to ${record.out}${codes ? `; again: ${codes}` : ''}`
        : `see it with: giftcodes order show ${id}`;
  return new UsageError(
    `order ${id} (key ${record.key}, ${unitsOf(record.quantity, record.productId)}) is not unfinished: it ended ${record.outcome} here at ${record.endedAt ?? record.updatedAt}`,
    { code: 'intent_not_found', hint },
  );
}

/**
 * Where a recorded order is read, said on stderr in one line when that is not where this run would ask: its base
 * URL, its key when the profile or environment is not this run's, and a base URL given for this run (--base-url,
 * GIFTCODES_BASE_URL) said to be left aside (a review's --base-url was left aside without a word). One line of a
 * terminal's width or so: it was four at 80 columns, on every `order show` (a person's day). The id is cut as
 * cleanRef reads a pasted prefix (`ord_5d76ab12…`).
 */
async function clientForRecord(deps: RefDeps, record: OrderRecord): Promise<ApiClient> {
  const where = placedWith(record);
  const current = await deps.currentTarget().catch(() => undefined);
  const api = await clientAt(deps, record);
  if (!sameTarget(current, where)) {
    const key =
      current?.profile === where.profile && current.environment === where.environment
        ? ''
        : ` with the ${where.environment} key of profile "${where.profile}"`;
    const given =
      current?.baseUrlGiven !== undefined && current.baseUrl !== where.baseUrl ? ` (not ${current.baseUrlGiven})` : '';
    const id = record.orderId ?? record.key;
    deps.io.notice(
      `reading ${id.length > 12 ? `${id.slice(0, 12)}…` : id}${key} at ${where.baseUrl}, where it was placed${given}`,
    );
  }
  return api;
}

/** Where an order was placed: its profile, environment and base URL. */
export function placedWith(record: OrderRecord): Target {
  return { profile: record.profile, environment: record.environment, baseUrl: record.baseUrl };
}

export function sameTarget(a: Target | undefined, b: Target): boolean {
  return a !== undefined && a.profile === b.profile && a.environment === b.environment && a.baseUrl === b.baseUrl;
}

/**
 * A client with the key of the profile and environment the order was placed with, at its base URL; a key not at
 * hand (logged out, profile removed, another key given) is an AuthError `order_key_missing` naming the login
 * that brings it back.
 */
export async function clientAt(
  deps: Pick<Deps, 'io' | 'connectionTo' | 'clientFor'>,
  record: OrderRecord,
): Promise<ApiClient> {
  const where = placedWith(record);
  let connection;
  try {
    connection = await deps.connectionTo(where);
  } catch (error) {
    throw keyGone(error, record, where);
  }
  // Its base URL is the record's, not a setting: the hints of a server out of reach name it as that, never --base-url.
  return clientOf(deps, connection, recordedBaseUrl(record));
}

/** Where the base URL of a recorded order's client comes from, as the hints of its failures name it. */
export function recordedBaseUrl(record: Pick<OrderRecord, 'orderId' | 'key' | 'baseUrl'>): string {
  return `the base URL order ${record.orderId ?? record.key} was placed at, ${record.baseUrl} (from its record)`;
}

export function describeTarget(where: Target): string {
  return `the ${where.environment} key of profile "${where.profile}" at ${where.baseUrl}`;
}

/** The login that brings back the key of a profile and environment. */
function loginHint(where: Target): string {
  return `set GIFTCODES_API_KEY to that reseller's sc_${where.environment}_ key, or log in with it: giftcodes login --profile ${where.profile} --env ${where.environment} --base-url ${where.baseUrl}`;
}

/** No key for the record's profile and environment (logged out, profile removed, another key given): which one to use. */
function keyGone(error: unknown, record: OrderRecord, where: Target): unknown {
  if (!isCliError(error) || (error.exitCode !== 3 && error.code !== 'environment_conflict')) return error;
  // A key given for this run (GIFTCODES_API_KEY, --api-key) is of the other environment: the user typed no --env,
  // and the profile's own key for the order may well be saved. Said as what it is, and the way to use that key.
  if (error instanceof EnvironmentConflict) {
    const source = error.keyFrom;
    const drop = source === '--api-key' ? 'drop --api-key' : 'unset GIFTCODES_API_KEY';
    return new AuthError(
      `order ${record.orderId} was placed with ${describeTarget(where)}, and ${source} holds a ${error.keyEnvironment} key, which is used instead of the profile's`,
      {
        code: 'order_key_missing',
        hint: `${drop} to read it with the profile's ${where.environment} key, or give a sc_${where.environment}_ key`,
      },
    );
  }
  return new AuthError(
    `order ${record.orderId} was placed with ${describeTarget(where)}, and that key is not at hand (${error.message})`,
    { code: 'order_key_missing', hint: loginHint(where) },
  );
}

/** How long `order show`, `watch` and `codes get` wait for the journal's lock to note a status (else it is not noted). */
const NOTE_WAIT_MS = 2_000;

/**
 * The status a command just read of a recorded order becomes the record's, so `order list` shows the last
 * one any command saw (and the outcome it reads with: history.ts outcomeOf). Unresolved intents are the journal's
 * to change (their status is written when they end).
 */
export async function noteStatus(journal: Journal, ref: OrderRef, status: unknown, now: number): Promise<void> {
  const record = ref.record;
  if (!record || typeof status !== 'string' || status === record.status || record.outcome === 'pending') return;
  try {
    // Under the journal's lock, waited for briefly: a read command never stands behind a long turn for a note.
    await journal.recordStatuses([withStatus(record, status, now)], NOTE_WAIT_MS);
  } catch {
    // The record is a convenience: failing to update it must never fail the command that read the order.
  }
}
