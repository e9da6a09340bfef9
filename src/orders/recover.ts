// What a crashed run left, seen from the next one: the intent `order place` would resume, and whether the
// file at --out is that intent's own delivery.
import { closeSync, fstatSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatFor } from '../export/format.js';
import type { ExportOptions, ExportResult } from '../export/write.js';
import {
  neverSent,
  sameOrder,
  sameReseller,
  sameResellerRequest,
  staleness,
  type Intent,
  type OrderSpec,
} from '../journal/intent.js';
import type { Journal } from '../journal/journal.js';
import { endedWithinDay, inScope, scopeOf, sentUnanswered, type OrderRecord } from '../journal/history.js';
import { realFile } from '../files/real-path.js';
import { anotherLiveRun, isAlive, otherMachine } from '../journal/owner.js';
import { LOCK_WAIT_MS } from '../journal/lock.js';
import { deliveredFile } from '../journal/codes-file.js';
import { pinnedHint } from '../output/pinned-hint.js';
import { nodeCrypto } from '../random.js';
import { counted, firstOf, unitsOf } from '../output/words.js';

/** An intent a run on this machine left: its process is gone (another machine's may be running there). */
function leftHere(intent: Intent): boolean {
  return !isAlive(intent.owner) && otherMachine(intent.owner) === undefined;
}

/**
 * An intent the next run resumes by itself, as journal.begin decides (advisory here: no lock): left here, and not
 * too old to resume silently. A live plan run again resumes such rows without asking (order/place.ts).
 */
export function resumableHere(intent: Intent): boolean {
  return leftHere(intent) && staleness(intent) === undefined;
}

/** An intent of this order that `order place` would resume. */
function interruptedHere(intent: Intent, spec: OrderSpec): boolean {
  return sameOrder(intent, spec) && resumableHere(intent);
}

/**
 * The interrupted intent `order place` will resume (advisory here: no lock), when its outcome has not reached the
 * user: the order this command started before, already confirmed then (a live order is asked about before its
 * intent is written). Passed to journal.begin as the key, it is that order or nothing: never a new one.
 */
export function resumeCandidate(journal: Journal, spec: OrderSpec, key: string | undefined): Intent | undefined {
  const { intents } = journal.read();
  const candidate =
    key !== undefined
      ? intents.find((intent) => intent.key === key && !isAlive(intent.owner))
      : intents.find((intent) => interruptedHere(intent, spec));
  return candidate !== undefined && journal.reached(candidate) === undefined ? candidate : undefined;
}

/** True when `order place` will resume an intent whose own codes file is at `path` (no lock: advisory, for the early --out check). */
export function resumableFor(journal: Journal, spec: OrderSpec, key: string | undefined, path: string): boolean {
  const { intents } = journal.read();
  const candidate =
    key !== undefined
      ? intents.find((intent) => intent.key === key)
      : intents.find((intent) => interruptedHere(intent, spec));
  return candidate !== undefined && deliveredFile(candidate, path) !== undefined;
}

/**
 * The pid of another giftcodes process on this machine that is placing the same order right now (its intent not yet
 * resolved), if any: `order place` run again in a second window while the first still waits on the API. By the
 * journal's rules that is a second order (a live process's intent is never taken over); the person is told first.
 */
export function placingNow(journal: Journal, spec: OrderSpec, key: string | undefined): number | undefined {
  const { intents } = journal.read();
  // An interrupted one is what this run resumes: no second order then. With a key, that key's intent is this order
  // (another run of it is refused as busy); another key's is a second order, said or asked as without one (a review
  // gave a key at a terminal beside the nightly job and was charged twice, 900 USD, without a word).
  if (key === undefined && intents.some((intent) => interruptedHere(intent, spec))) return undefined;
  // isAlive is false for another machine's run: its pid says nothing here. In any profile holding this key or another
  // key of the same reseller: one reseller to the API (a review's second profile placed the same order beside a live
  // run of the first without a word). At any spelling of the address with the same API key: one reseller to one API
  // (a review's nightly job at `localhost` was not named beside a run at 127.0.0.1, and a yes was a second charge).
  return intents.find(
    (intent) =>
      intent.key !== key &&
      intent.productId === spec.productId &&
      intent.quantity === spec.quantity &&
      sameReseller(intent, spec) &&
      anotherLiveRun(intent.owner),
  )?.owner.pid;
}

/**
 * Another live run on this machine finishing an interrupted order of this very order (taken over from the run that
 * began it: Intent.resumedAt), if any: `order place` run again beside the job or window that resumed it places
 * nothing (intent_busy), as docs/exactly-once.md says. Read as "another run is placing it", a second run a moment
 * after the first placed a second order (an adversarial review: five runs, five charges).
 */
export function resumingNow(journal: Journal, spec: OrderSpec): Intent | undefined {
  // One the same command would have resumed (fresh). Never sent and held by `order resume`, a person may be asked
  // about it (its live question), and this run places its own beside it, said as a second order, as the nightly job
  // always did (placingNow); held by an `order place` that took it over, that run places it, and this one would be a
  // second charge (a review: two charges after a kill before the first send).
  return journal.read().intents.find(
    (intent) =>
      intent.resumedAt !== undefined &&
      sameOrder(intent, spec) &&
      // Sent, fresh or stale (alone, the same command refuses a stale one: beside its `order resume --force-stale`
      // it placed a new order, a review's second charge); never sent, only one an order place took over.
      (!neverSent(intent) || (intent.resumedBy !== 'order resume' && staleness(intent) === undefined)) &&
      anotherLiveRun(intent.owner),
  );
}

/**
 * An order of this request (product, quantity, environment; in this profile, or in another holding this API key or
 * another key of the same reseller: sameResellerRequest) that
 * a run on this machine left interrupted after its request may have gone out, under another key than `key`, the
 * --idempotency-key given, its outcome not yet reached (advisory: no lock). journal.begin never resumes it for a given
 * key, so this run is a second order beside it if that one was placed (an adversarial review added a key "to be safe"
 * to the retry of an interrupted order, and was charged twice). Any age, any API key or address: its outcome is unknown
 * all the same. One never sent charged nothing, and the warning of orders left (leftByEarlierRuns) names it.
 */
export function interruptedBeside(journal: Journal, spec: OrderSpec, key: string): Intent | undefined {
  return journal
    .read()
    .intents.find(
      (intent) =>
        intent.key !== key &&
        sameResellerRequest(intent, spec) &&
        leftHere(intent) &&
        !neverSent(intent) &&
        journal.reached(intent) === undefined,
    );
}

/** When a record ended (or, without an end, was last updated), in ms. */
function endedAt(r: OrderRecord): number {
  return Date.parse(r.endedAt ?? r.updatedAt);
}

/** Of the record kept so far and `r`, the one that ended later (the kept one on a tie). */
function later(kept: OrderRecord | undefined, r: OrderRecord): OrderRecord {
  return kept === undefined || endedAt(r) > endedAt(kept) ? r : kept;
}

/**
 * What the record of this very request (product, quantity, profile, scope) that ended last says to its next
 * `order place`, read once for both rules: `finished`, an interrupted run of it that `codes get`, `order watch` or
 * `order resume` finished in its place within the last day (OrderRecord.finishedBy: that run's hint said to run the
 * same command again, which is now a second order; a review peeked at the codes, ran it again, and was charged
 * twice), or `abandoned`, an order of it abandoned after its request went out without an answer, within the day the
 * server keeps its key (OrderRecord.sent: the server may have placed and charged it, and the API cannot be asked by
 * key; the same `order place` sends its request again under that key, that order if it was placed and a new one if
 * not; a review was charged twice, the first order out of reach), or `abandonedPlaced`, an order of it abandoned after
 * the API had placed it, nothing of the request since. With an --idempotency-key given (`key`), only the orders
 * abandoned while their request was out, under another key (that key's own records are the journal's), and no
 * record is read unless that rule's mark is younger than a day (one stat for each order place; history.ts MARKS).
 */
export function ofThisRequest(
  journal: Journal,
  spec: OrderSpec,
  key: string | undefined,
  now: number = Date.now(),
): {
  finished?: OrderRecord;
  abandoned?: OrderRecord;
  abandonedElsewhere?: OrderRecord;
  abandonedPlaced?: OrderRecord & { orderId: string };
  abandonedRow?: OrderRecord;
  abandonedAhead?: OrderRecord;
} {
  const finishedMarked = journal.history.markedWithinDay('finished', now);
  const abandonedMarked = journal.history.markedWithinDay('abandoned', now);
  if (!finishedMarked && !abandonedMarked) return {};
  const scope = scopeOf(spec);
  // Finished in its place: the record of this request that ended last only (a later order of it is what the next
  // run follows). Abandoned after its request went out: the last such record whose reuse no one declined, whatever
  // ended after it. Only its own key's next run settles it: a second order of the request that ended after the
  // abandon (a cron job's, started while the person's request was out) hid it, and its charged order was lost (a
  // review). A person who answered No at the question is not asked about it again (OrderRecord.declined).
  let newest: OrderRecord | undefined;
  let abandoned: OrderRecord | undefined;
  // One abandoned so under another scope of this environment (another spelling of the server's address, a key
  // rotated): its key is not sent from here, but it is said (a review abandoned at 127.0.0.1, placed again at
  // localhost, and was charged twice without a word).
  let abandonedElsewhere: OrderRecord | undefined;
  // The request's last record in any scope of this environment: an order abandoned after the API placed it at
  // another spelling of the address (or under a key since rotated) is charged as much (a review placed the same
  // order at localhost after abandoning it at 127.0.0.1, charged twice without a word).
  let newestPlaced: OrderRecord | undefined;
  // A plan's row of this request abandoned while its request was out, in this scope: its plan sends its key again,
  // never this run; said, since this run is a second order if that one was placed (an adversarial review ordered the
  // row by hand after abandoning it, two orders without a word).
  let abandonedRow: OrderRecord | undefined;
  // A plan's row of this request abandoned after the API had placed it, this reseller's in any scope of this
  // environment: charged as much as a single order abandoned so, and asked about the same way (a review abandoned
  // such a row, ordered it by hand, and was charged twice without a word).
  let placedRow: OrderRecord | undefined;
  // This reseller's order of the request abandoned after the API placed it, and the last order of it placed since and
  // not abandoned, the one that answers the question: an abandoned one since (a request abandoned while it was out,
  // another key's) took its place as "the request's last record", and the placed order was never named again (a
  // fourth review: two charges, and the words about another order).
  let placedAbandoned: OrderRecord | undefined;
  let newestAnswer: OrderRecord | undefined;
  // This reseller's for sure: this key, another key login learned is the same reseller's, or a record older than key
  // ids. Another key of the profile not known to be this reseller's (a second shop's GIFTCODES_API_KEY) neither
  // raises the question nor answers it: it raised another wallet's order as this one's second, and, placed since,
  // hid this reseller's own (reviews).
  const mine = (r: OrderRecord): boolean => r.keyId === undefined || sameReseller(r, spec);
  for (const r of journal.history.list()) {
    if (r.productId !== spec.productId || r.quantity !== spec.quantity || r.key === key) continue;
    // A plan's rows are its plan's to follow (their keys are the plan's file name and batch), never this run's.
    if (r.key.startsWith('plan-')) {
      // Placed, it was charged in any scope of this environment, as a single order's record below (another spelling
      // of the address, a key rotated: a second review).
      if (r.outcome === 'abandoned' && r.orderId !== undefined && r.environment === spec.environment && mine(r))
        placedRow = later(placedRow, r);
      if (sentUnanswered(r) && r.declined !== true && inScope(r, scope)) abandonedRow = later(abandonedRow, r);
      continue;
    }
    // Another profile's record counts where it holds this very API key or another key of the same reseller: one
    // reseller to the API (a review abandoned an order in one profile, placed it again in a second holding the same
    // key, and was charged twice). Another profile's other key is another reseller's, unless login learned otherwise.
    if (r.environment !== spec.environment || (r.profile !== spec.profile && !sameReseller(r, spec))) continue;
    const followed = sentUnanswered(r) && r.declined !== true;
    // A run refused before it placed anything (the server out of reach, a wallet short) answers neither question:
    // it became the request's last record, and the next run, which did place an order, said nothing (a review).
    const placedSomething = r.outcome !== 'refused';
    // Only this reseller's orders raise the question (abandoned after it was placed) or answer it (placed since and
    // not abandoned): see `mine` above.
    if (placedSomething && mine(r)) {
      newestPlaced = later(newestPlaced, r);
      if (r.outcome === 'abandoned') {
        if (r.orderId !== undefined) placedAbandoned = later(placedAbandoned, r);
      } else newestAnswer = later(newestAnswer, r);
    }
    if (!inScope(r, scope)) {
      if (followed) abandonedElsewhere = later(abandonedElsewhere, r);
      continue;
    }
    if (placedSomething) newest = later(newest, r);
    if (followed) abandoned = later(abandoned, r);
  }
  const finished =
    finishedMarked && newest?.finishedBy !== undefined && newest.outcome === 'delivered' && endedWithinDay(newest, now)
      ? newest
      : undefined;
  // Abandoned after the API had placed it (its order id known, its abandon's warning named it and its codes get), and
  // nothing of the request since: the same command places a second order beside it, asked about as one (a review
  // abandoned such an order, ran the same command, and was charged twice without a word).
  // A plan's row so counts until an order of the request ends after it.
  const lastPlaced = placedRow === undefined ? placedAbandoned : later(placedAbandoned, placedRow);
  const abandonedPlaced =
    abandonedMarked &&
    lastPlaced?.orderId !== undefined &&
    (newestAnswer === undefined || endedAt(newestAnswer) < endedAt(lastPlaced)) &&
    endedWithinDay(lastPlaced, now)
      ? { ...lastPlaced, orderId: lastPlaced.orderId }
      : undefined;
  // Both may hold: the order asked about as a second one is then sent under the abandoned key.
  const fresh = (r: OrderRecord | undefined): r is OrderRecord =>
    abandonedMarked && r !== undefined && staleness(r, now) === undefined;
  // One of this scope dated ahead of this clock (the clock went back since: a dual-boot machine, a VM restored), its
  // age unknown: dropped, a second order was placed without a word (a review); its key is not sent either (the server
  // may have forgotten it). Given to `order place`, which refuses before any question, or with a key given asks.
  const ahead =
    abandonedMarked && abandoned !== undefined && staleness(abandoned, now) === 'future' ? abandoned : undefined;
  // A key given names one order of its own: its reuse is the journal's to refuse, and an order of the request that
  // reached the user or was placed (finished, abandonedPlaced) is not asked about. One abandoned while its request was
  // out may have been placed all the same, and this run is a second order beside it (an adversarial review).
  return {
    ...(finished && key === undefined ? { finished } : {}),
    ...(abandonedPlaced && key === undefined ? { abandonedPlaced } : {}),
    ...(fresh(abandoned)
      ? { abandoned }
      : ahead
        ? { abandonedAhead: ahead }
        : fresh(abandonedElsewhere)
          ? { abandonedElsewhere }
          : {}),
    // Until an order of the request ends after it: asked once, then the second order answered it (a review was asked
    // the same question by every honest order of the day).
    ...(fresh(abandonedRow) && (newestPlaced === undefined || endedAt(newestPlaced) < endedAt(abandonedRow))
      ? { abandonedRow }
      : {}),
  };
}

/**
 * The order of this very request (product, quantity, environment, profile or a key of the same reseller, scope) whose
 * codes were the last delivered to the file `out` names, within the day: read by `order place` at a terminal when that
 * file is not there. A person whose codes file was moved or deleted ran the same line again "to get the codes back",
 * and was charged for a second order without a word (an adversarial review): `codes get` writes those codes again for
 * nothing. Single orders only (history.ts DELIVERED_TO): a plan's rows are its plan's to follow.
 */
export function deliveredToGone(
  journal: Journal,
  spec: OrderSpec,
  out: string,
  now: number = Date.now(),
): (OrderRecord & { orderId: string; out: string }) | undefined {
  const r = journal.history.lastDeliveredTo(out, now);
  if (r?.orderId === undefined || r.out === undefined || r.outcome !== 'delivered') return undefined;
  // The environment is the scope's and the reseller's (inScope, sameReseller below).
  if (r.productId !== spec.productId || r.quantity !== spec.quantity) return undefined;
  // This profile's key at this address, or another key of the same reseller (a key rotated, a second profile).
  if (!(r.profile === spec.profile && inScope(r, scopeOf(spec))) && !sameReseller(r, spec)) return undefined;
  return realFile(r.out) === realFile(out) && endedWithinDay(r, now)
    ? { ...r, orderId: r.orderId, out: r.out }
    : undefined;
}

/**
 * A warning for the orders earlier runs on this machine left interrupted, other than the ones this run finishes
 * (`mine`), or undefined when there are none. A night whose run was killed leaves orders that may have been
 * charged; the next night's run, with new keys (a plan's next `--batch`, another product), would never name them,
 * and only `order pending` would: said in the run's own log instead, with the command that finishes each.
 */
export function leftByEarlierRuns(
  journal: Journal,
  mine: (intent: Intent) => boolean,
  configDir?: string,
): string | undefined {
  const said = leftWords(journal, mine);
  // Its command must reach this run's journal: a cron job's GIFTCODES_CONFIG_DIR is not the operator's default.
  return said === undefined ? undefined : pinnedHint(said, { configDir });
}

function leftWords(journal: Journal, mine: (intent: Intent) => boolean): string | undefined {
  const { intents, unreadable } = journal.read();
  const left = intents.filter((intent) => !mine(intent) && leftHere(intent));
  // A file no run can read may be an order an earlier run sent: said in the run's log too, not by order pending alone
  // (a damaged intent file's order went unnamed while the same command ordered again, a review).
  // A file once, with its first reason: a log with two bad lines was "2 journal files" naming one file twice.
  const files = new Map<string, string>();
  for (const bad of unreadable) if (!files.has(bad.file)) files.set(bad.file, bad.reason);
  const unread =
    files.size === 0
      ? undefined
      : `${counted(files.size, 'journal file')} could not be read (${firstOf(
          [...files].map(([file, reason]) => `${file}: ${reason}`),
          2,
        )}); each may be an order an earlier run sent: see giftcodes order pending`;
  const words = leftIntentWords(left);
  return words !== undefined && unread !== undefined ? `${words}; and ${unread}` : (words ?? unread);
}

function leftIntentWords(left: readonly Intent[]): string | undefined {
  const [one] = left;
  if (one === undefined) return undefined;
  if (left.length > 1)
    return `${left.length} orders interrupted in earlier runs are still unfinished (${chargeWords(left)}): see giftcodes order pending`;
  const what = `${unitsOf(one.quantity, one.productId)}, profile "${one.profile}" (${one.environment}), started ${one.createdAt}`;
  const unsent = neverSent(one);
  // A stale one is not resumed silently: `order pending` says how to check it first. One never sent would be placed
  // now, for the first time, by `order resume`; dropping it is as likely what the person wants (a typo fixed since),
  // so both ways are named.
  const next =
    staleness(one) !== undefined
      ? 'see giftcodes order pending'
      : unsent
        ? `place it with giftcodes order resume ${one.key}, or drop it with giftcodes order abandon ${one.key}`
        : `giftcodes order resume ${one.key}`;
  return `an order interrupted in an earlier run ${unsent ? 'was never sent (nothing was charged)' : 'is still unfinished (it may have been charged)'}: ${what}: ${next}`;
}

/** Whether interrupted intents may have been charged, in words (neverSent: certainly not). */
export function chargeWords(intents: readonly Intent[]): string {
  const unsent = intents.filter(neverSent).length;
  // An order the API answered with its id was placed, and charged: "may have been" of it read as a doubt the tool
  // had not (a second adversarial review). Only one whose answer was lost may have been.
  const placed = intents.filter((i) => i.orderId !== undefined).length;
  const maybe = intents.length - unsent - placed;
  const one = intents.length === 1;
  if (placed === intents.length) return one ? 'it was placed and charged' : 'they were placed and charged';
  if (maybe === intents.length) return one ? 'it may have been charged' : 'they may have been charged';
  if (unsent === intents.length) return one ? 'it was never sent, so not charged' : 'never sent, so not charged';
  return [
    placed > 0 ? `${placed} placed and charged` : '',
    maybe > 0 ? `${maybe} may have been charged` : '',
    unsent > 0 ? `${unsent} never sent` : '',
  ]
    .filter((part) => part !== '')
    .join(', ');
}

/**
 * For the verbs that charge nothing (order watch --out, codes get --out): an existing file that holds, byte
 * for byte, the codes this run would write is this order's earlier delivery (a run killed right after its
 * rename), not a conflict. The codes are written to a private file beside it and compared.
 */
export async function sameCodesAlready(
  o: Omit<ExportOptions, 'force' | 'beforeCommit' | 'onProgress'>,
): Promise<ExportResult | undefined> {
  // An encrypted file cannot be compared without its identity, and a plaintext copy must never be written to
  // compare: the existing file is refused as any other (--force, or another name).
  if (o.encryptTo?.length) return undefined;
  const { exportCodes } = await import('../export/write.js');
  const target = resolve(o.out);
  const { checkPath, removeStaleFor } = await import('../files/codes-temps.js');
  // A comparison killed before it removed its copy left every code in it: a dead run's copies go first.
  removeStaleFor(target);
  const check = checkPath(target);
  try {
    const written = await exportCodes({ ...o, out: check, format: formatFor(target, o.format), force: true });
    return digest(check) === digest(target) ? { ...written, path: target } : undefined;
  } finally {
    rmSync(check, { force: true });
  }
}

/**
 * A file that certainly cannot hold the export of an order of `expected` codes, told without fetching a code: it is
 * empty, or it is a CSV or JSON Lines file of fewer lines than that export has (a header and a line a code; a line a
 * code). Its lines are returned; undefined where it may hold them, to be compared whole (sameCodesAlready). A file
 * that was not these codes was refused only once every page had been fetched to compare, a minute and a half for
 * 60,000 codes (a person's day).
 */
export function tooShortForCodes(path: string, format: string, expected: number | undefined): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).size === 0) return 0;
    // An encrypted file's lines are not its codes'.
    if (expected === undefined || (format !== 'csv' && format !== 'jsonl') || /\.age$/i.test(path)) return undefined;
    const need = expected + (format === 'csv' ? 1 : 0);
    const chunk = Buffer.allocUnsafe(1 << 16);
    let lines = 0;
    let last = 10;
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; last = chunk[n - 1]!) {
      for (let at = chunk.indexOf(10); at !== -1 && at < n; at = chunk.indexOf(10, at + 1)) lines++;
      if (lines >= need) return undefined;
    }
    // A last line without its line break is a line too.
    return last === 10 ? lines : lines + 1 >= need ? undefined : lines + 1;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function digest(path: string): string | undefined {
  try {
    return nodeCrypto().createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

/** The out_exists refusal, kept for later; any other refusal of the target is thrown at once. */
export function outExists(check: () => void): unknown {
  try {
    check();
    return undefined;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'out_exists') return error;
    throw error;
  }
}

/** A request as the footprint of its orders is read: its product, quantity, environment and API key (by id). */
export interface Request {
  /** This run's own key, never counted. */
  key?: string | undefined;
  productId: string;
  quantity: number;
  environment: string;
  keyId?: string | undefined;
}

/** What other runs had under way as a question was asked: their notes by key, and when. */
export interface Footprint {
  /** Notes whose request went out, or that a live process of another run holds: orders under way. */
  notes: ReadonlyMap<string, Intent>;
  /** Notes of dead runs never sent: placed nothing then, an order if they end placed or sent. */
  unsent: ReadonlySet<string>;
  at: string;
}

/**
 * A record's order begun since the footprint, or a note never sent then. A note is dated as its run begins it, before
 * it waits for the journal's lock (LOCK_WAIT_MS at most) to write it: one begun that long before the footprint may
 * not have been in it (a review: a run waiting behind a busy plan, charged during the question, unasked). An older
 * order's record ended since by `codes get` (finishedBy: an abandoned one delivered, as a question said to do) was
 * placed before.
 */
export function beganSince(
  r: { key: string; createdAt: string; finishedBy?: string | undefined },
  before: { unsent: ReadonlySet<string>; at: string },
): boolean {
  if (r.createdAt >= before.at || before.unsent.has(r.key)) return true;
  return r.finishedBy === undefined && Date.parse(r.createdAt) >= Date.parse(before.at) - LOCK_WAIT_MS;
}

const sameRequest =
  (request: Request) =>
  (o: { key: string; productId: string; quantity: number; environment: string; keyId?: string | undefined }) =>
    o.key !== request.key &&
    o.productId === request.productId &&
    o.quantity === request.quantity &&
    o.environment === request.environment &&
    (o.keyId === undefined || o.keyId === request.keyId);

/** An order another run has under way: its request sent, or a live process of another run about to send it. */
export function underWay(intent: Intent): boolean {
  return !neverSent(intent) || anotherLiveRun(intent.owner);
}

/**
 * The notes among `intents` that `of` takes, of orders under way (sent, or held by a live process of another run,
 * about to send), and the dead runs' notes never sent: read before a question, and again after it (placedSince). The
 * records are not read here: 90,000 of them took 0.5 to 1 s before the question. One footprint for a single order
 * (requestFootprint) and a plan's rows (plan.ts otherRunsNotes).
 */
export function footprintOf(intents: readonly Intent[], of: (intent: Intent) => boolean): Footprint {
  const notes = new Map<string, Intent>();
  const unsent = new Set<string>();
  for (const other of intents) {
    if (!of(other)) continue;
    if (underWay(other)) notes.set(other.key, other);
    else unsent.add(other.key);
  }
  return { notes, unsent, at: new Date().toISOString() };
}

/**
 * The orders that `of` takes placed since `before`, notes first (an adversarial review was charged twice, then three
 * times, by runs that began or sent during a question): a note not there before; or a record of an order placed or
 * sent that ended since, of a key no note had then, begun since or a note never sent then. An older order's record
 * ended since (an abandoned one delivered by `codes get`, as a question itself said to do) is no order placed
 * meanwhile (a review was asked about its own order). With the footprint now.
 */
export function placedSince(
  now: { intents: readonly Intent[]; records: () => readonly OrderRecord[] },
  before: Footprint,
  of: (item: Intent | OrderRecord) => boolean,
): { since: (Intent | OrderRecord)[]; now: Footprint } {
  const footprint = footprintOf(now.intents, of);
  const since: (Intent | OrderRecord)[] = [...footprint.notes].flatMap(([key, i]) =>
    before.notes.has(key) ? [] : [i],
  );
  const noted = new Set(since.map((i) => i.key));
  for (const r of now.records())
    if (
      of(r) &&
      !before.notes.has(r.key) &&
      !noted.has(r.key) &&
      (r.endedAt ?? r.updatedAt) >= before.at &&
      beganSince(r, before) &&
      (r.orderId !== undefined || (r.sent === true && r.outcome !== 'refused'))
    )
      since.push(r);
  return { since, now: footprint };
}

/** The orders of `request` (of every request, without one: a guided order's is not known before its questions) under way. */
export function requestFootprint(journal: Journal, request?: Request): Footprint {
  return footprintOf(journal.read().intents, request ? sameRequest(request) : () => true);
}

/** An order of the request another run placed since `before`, said as its order id or key; with the footprint now. */
export function placedMeanwhile(
  journal: Journal,
  request: Request,
  before: Footprint,
): { said: string; now: Footprint } | undefined {
  const { since, now } = placedSince(
    { intents: journal.read().intents, records: () => journal.history.list() },
    before,
    sameRequest(request),
  );
  const [first] = since;
  if (first === undefined) return undefined;
  const said =
    first.orderId ??
    ('owner' in first && neverSent(first)
      ? `key ${first.key}, being placed by pid ${first.owner.pid}`
      : `key ${first.key}, sent`);
  return { said, now };
}

/**
 * After a question's yes: each order of `request` another run placed meanwhile is put to `ask` (its question, which
 * throws on No), again after each yes, for as long as more came. One loop for `order place` and `order resume`.
 */
export async function askWhilePlaced(
  journal: Journal,
  request: Request,
  before: Footprint,
  ask: (said: string) => Promise<void>,
): Promise<void> {
  for (let meanwhile = placedMeanwhile(journal, request, before); meanwhile;) {
    await ask(meanwhile.said);
    meanwhile = placedMeanwhile(journal, request, meanwhile.now);
  }
}
