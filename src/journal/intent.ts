// An order intent: everything needed to place the same order again, byte for byte, after a crash.
import type { ExportFormat } from '../export/format.js';
import type { LeftBy } from '../files/codes-temps.js';
import type { KeyEnvironment } from '../secrets.js';
import type { Money } from '../money.js';
import { currentOwner, type Owner } from './owner.js';
import { sameApi } from '../config/same-api.js';
import { nodeCrypto } from '../random.js';
import { remembered } from '../remembered.js';

export const INTENT_VERSION = 2 as const;

/**
 * The phases an intent's state holds (an intent file, a line of a log); src/orders/lifecycle.ts is the whole table. `prepared`: on disk, nothing
 * sent. `sending`: the POST may or may not have reached the server. `accepted`: the server answered with an
 * order. `delivered`: written by earlier versions only (the order record is the fact now), still read.
 */
export type Phase = 'prepared' | 'sending' | 'accepted' | 'delivered';

/** After this long the server may have forgotten the idempotency key: never resumed silently. */
export const INTENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** An intent dated further ahead than this was written under another clock: never resumed silently. */
export const INTENT_MAX_FUTURE_MS = 5 * 60 * 1000;

/** The codes file one run wrote: recorded before its rename, so a re-run knows its own file and no other. */
export interface FileIdentity {
  orderId: string;
  path: string;
  dev: number;
  ino: number;
  size: number;
  sha256: string;
  /** How many codes the file holds, and in which format: recorded with the identity, before the rename. */
  count?: number | undefined;
  format?: ExportFormat | undefined;
  /** The temporary file that was to be renamed to `path`: while it is there unchanged, the rename never happened. */
  temp?: string | undefined;
  /** Written right after the rename: the file took its place, and reached the user even once it is moved away (codes-file.ts renamedFile). */
  renamed?: boolean | undefined;
}

export interface OutSpec {
  path: string;
  format?: ExportFormat | undefined;
  force: boolean;
  csvRaw: boolean;
  /** age recipients the codes file is encrypted to (a resume encrypts to the same ones). */
  encryptTo?: string[] | undefined;
}

/** What makes two order requests the same order: see sameRequest and sameOrder. */
export interface OrderSpec {
  profile: string;
  environment: KeyEnvironment;
  baseUrl: string;
  /** A short hash of the API key: tells keys apart without storing one. */
  keyId: string;
  /**
   * The reseller the API stated for this key at this API when `login` verified it (config/store.ts ResellerSeen), where
   * known: another key of the same reseller is one wallet (sameReseller). Absent in intents made before it was kept.
   */
  resellerId?: string | undefined;
  productId: string;
  quantity: number;
}

export interface Intent extends OrderSpec {
  version: typeof INTENT_VERSION;
  key: string;
  /** The exact request body, resent byte for byte. */
  body: string;
  fingerprint: string;
  phase: Phase;
  createdAt: string;
  updatedAt: string;
  owner: Owner;
  orderId?: string | undefined;
  status?: string | undefined;
  /** What the order costs, as the API stated it (its `amount`, else `total`, when a money object): for order list. */
  amount?: Money | undefined;
  wait?: boolean | undefined;
  out?: OutSpec | undefined;
  /** The key was given (--idempotency-key, a plan's row), not made by journal.begin: the same key again is refused once it reached the user. */
  keyGiven?: boolean | undefined;
  /** A plan's row: the plan's file name (planName), which its record keeps: another batch of the same plan is no copy of it. */
  plan?: string | undefined;
  /** A plan's row: its run's --batch, null for none (absent in older intents): the words that say how to send it again name it. */
  batch?: string | null | undefined;
  /**
   * A plan's row: the directory of its plan file. Two plans of one file name in two directories (two shops' restock.csv)
   * share their rows' keys under one --batch; a row whose out cell changed finishes only its own plan's earlier order
   * (plan.ts outMovedRows). Absent in older intents.
   */
  planDir?: string | undefined;
  /**
   * A key sent again after it was abandoned (order/place.ts): when it was first sent. The server keeps a key for a day
   * from its first request, not from a replay, so the day a reused key may be resumed or reused in is counted from
   * then (staleness); counted from each reuse, a key sent again after the server forgot it placed a second order.
   */
  keySince?: string | undefined;
  /** Every codes file a run of this intent wrote, each recorded just before the rename that delivers it. */
  files?: FileIdentity[] | undefined;
  /**
   * Its runs on this machine that are gone (taken over by a later run): the codes file each was to write, and its
   * pid. A run killed mid-write left its temporary file there (the codes, in plaintext unless encrypted) and its
   * lock; when the intent ends, wherever its codes went, those go (files/codes-temps.ts sweepLeftBy).
   */
  leftBy?: LeftBy[] | undefined;
  /**
   * When a later run took it over from the run that began it, interrupted (journal.ts claimed): held by a live process
   * with this set, its request sent before, it is an interrupted order being finished, and the same command run beside
   * it places nothing (intent_busy), where beside a first run still placing it, it is asked or said as a second order
   * (recover.ts resumingNow). Absent in older intents.
   */
  resumedAt?: string | undefined;
  /**
   * `order resume`, when that verb took it over (journal.ts claim): it may ask a person before it places one never
   * sent, and the same `order place` run meanwhile goes on beside it, said as a second order. Taken over by `order
   * place` (absent), one never sent is placed by that run, and the same command beside it places nothing.
   */
  resumedBy?: 'order resume' | undefined;
  /**
   * The codes file and wait of the run that began it, kept at its first takeover: a later run's own --out replaces
   * `out`, and a run finishing it after a variant was killed read that variant's file as its own command's
   * (order/place.ts variantOf: the command that began it was called a variant of itself). Absent in older intents.
   */
  origin?: { out?: OutSpec | undefined; wait?: boolean | undefined } | undefined;
}

export function orderBody(productId: string, quantity: number): string {
  return JSON.stringify({ product_id: productId, quantity });
}

export function sha256(text: string): string {
  return nodeCrypto().createHash('sha256').update(text).digest('hex');
}

/**
 * sha256 of an idempotency key, remembered for the process: the journal and the history name files by it (a plan of
 * 1,000 rows asks ~7 for each key: its intent file, its record's line file).
 */
export const keyHash = remembered(100_000, sha256);

/** A body's fingerprint: a plan's 1,000 rows send a few bodies (a product and quantity each), hashed once each. */
const fingerprintOf = remembered(1_000, sha256);

export function keyIdOf(apiKey: string): string {
  return sha256(`giftcodes-key-id:${apiKey}`).slice(0, 16);
}

/** The same request in the contract's words: product, quantity, profile and environment. */
export function sameRequest(intent: Intent, spec: OrderSpec): boolean {
  return (
    intent.productId === spec.productId &&
    intent.quantity === spec.quantity &&
    intent.profile === spec.profile &&
    intent.environment === spec.environment
  );
}

/** What tells whose wallet an order (an intent, a spec, a record, a plan's scope) is charged to. */
export interface ResellerOf {
  environment: string;
  baseUrl: string;
  keyId?: string | undefined;
  resellerId?: string | undefined;
}

/**
 * Two orders' API keys are one reseller's, in the same environment: this very key (at any address: one reseller to
 * one API), or two keys whose reseller ids, as the API stated them at login, are equal at the same API (sameApi: two
 * servers may each have a reseller of that id). A key whose reseller is not known (an intent or record from before it
 * was kept, a key never logged in with) is its own reseller only, as before.
 */
export function sameReseller(a: ResellerOf, b: ResellerOf): boolean {
  if (a.environment !== b.environment) return false;
  if (a.keyId !== undefined && a.keyId === b.keyId) return true;
  return a.resellerId !== undefined && a.resellerId === b.resellerId && sameApi(a.baseUrl, b.baseUrl);
}

/** Another API key of the same reseller (sameReseller, not the same key): said as such, with the reseller's id. */
export function otherKeyOfReseller(a: ResellerOf, b: ResellerOf): boolean {
  return a.keyId !== b.keyId && sameReseller(a, b);
}

/**
 * sameRequest, or the same product, quantity and environment under another profile with this very API key or another
 * key of the same reseller (sameReseller): the API sees one reseller, so an interrupted order of it may have been
 * charged to this one (reviews: an order interrupted in profile "default" was placed again in a second profile holding
 * the same key, and then in one holding a second key of the same reseller, charged twice each time).
 */
export function sameResellerRequest(intent: Intent, spec: OrderSpec): boolean {
  return (
    sameRequest(intent, spec) ||
    (sameReseller(intent, spec) && intent.productId === spec.productId && intent.quantity === spec.quantity)
  );
}

/** The same request to the same server with the same key: only such an intent can be resumed. */
export function sameOrder(intent: Intent, spec: OrderSpec): boolean {
  return sameRequest(intent, spec) && intent.baseUrl === spec.baseUrl && intent.keyId === spec.keyId;
}

export function ageMs(intent: Pick<Intent, 'createdAt'>, now: number = Date.now()): number {
  return now - Date.parse(intent.createdAt);
}

/**
 * Why an intent must not be resumed silently, if it must not: too old, dated in the future, or undated. Never one
 * whose order id is known: finishing it only reads that order, and sends no key a server may have forgotten (a review:
 * a nightly job at the same minute met the night before's timed-out order a second past 24 hours, and exited 2
 * where docs/cron-and-plans.md says the next night finishes it).
 */
export function staleness(
  intent: Pick<Intent, 'createdAt' | 'keySince'> & { orderId?: string | undefined },
  now: number = Date.now(),
): 'old' | 'future' | undefined {
  if (intent.orderId !== undefined) return undefined;
  const age = ageMs(intent, now);
  if (Number.isNaN(age)) return 'future';
  // A reused key's day began at its first send (Intent.keySince).
  if (age > INTENT_MAX_AGE_MS || now - Date.parse(intent.keySince ?? intent.createdAt) > INTENT_MAX_AGE_MS)
    return 'old';
  if (-age > INTENT_MAX_FUTURE_MS) return 'future';
  return undefined;
}

/**
 * Whether no request of this intent's key can have gone out: still `prepared` (its `sending` is durable before the
 * POST may go), and not a key an earlier, abandoned run sent (keySince). Such an intent charged nothing.
 */
export function neverSent(intent: Pick<Intent, 'phase' | 'keySince'>): boolean {
  return intent.phase === 'prepared' && intent.keySince === undefined;
}

/** A new intent, `prepared` (Journal.begin writes a plan's row `sending`): the exact body that will be sent, and this process as its owner. */
export function newIntent(
  options: OrderSpec & {
    wait?: boolean | undefined;
    out?: OutSpec | undefined;
    plan?: string | undefined;
    batch?: string | null | undefined;
    planDir?: string | undefined;
  },
  key: string,
  now: number,
  keyGiven = false,
): Intent {
  const body = orderBody(options.productId, options.quantity);
  const time = new Date(now).toISOString();
  return {
    version: INTENT_VERSION,
    key,
    profile: options.profile,
    environment: options.environment,
    baseUrl: options.baseUrl,
    keyId: options.keyId,
    ...(options.resellerId !== undefined ? { resellerId: options.resellerId } : {}),
    productId: options.productId,
    quantity: options.quantity,
    body,
    fingerprint: fingerprintOf(body),
    phase: 'prepared',
    createdAt: time,
    updatedAt: time,
    ...(keyGiven ? { keyGiven: true } : {}),
    owner: currentOwner(),
    ...(options.wait ? { wait: true } : {}),
    ...(options.out ? { out: options.out } : {}),
    ...(options.plan !== undefined ? { plan: options.plan } : {}),
    ...(options.batch !== undefined ? { batch: options.batch } : {}),
    ...(options.planDir !== undefined ? { planDir: options.planDir } : {}),
  };
}
