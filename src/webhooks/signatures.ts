// The webhook signature schemes the receiver verifies (docs/webhooks.md, Signature schemes): ours, Stripe's, Standard
// Webhooks and GitHub's. Pure functions over the request's headers and raw body; never throws.
//
// Standard Webhooks is done here with node:crypto instead of the `standardwebhooks` package: the scheme
// is one HMAC and a base64 key (about 20 lines below), while the package would add a dependency and two
// of its own (@stablelib/base64, fast-sha256) to a CLI that must start instantly, and would keep its own
// tolerance and comparison rules apart from the other three schemes'.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { stripControl } from '../secrets.js';
import type { Scheme } from './schemes.js';

export type { Scheme } from './schemes.js';

export const DEFAULT_SIGNATURE_HEADER = 'giftcodes-signature';

/** Header names in lower case, as node:http gives them; a repeated header joined with ', '. */
export type Headers = Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  secret: string;
  /** Chosen with --scheme; detected from the headers when absent. */
  scheme?: Scheme | undefined;
  /** --signature-header: the header a service names for its signature; its form decides the scheme. */
  signatureHeader?: string | undefined;
  toleranceS: number;
  /** Unix seconds. */
  nowS: number;
}

export type Verified = {
  ok: true;
  scheme: Scheme;
  /** Unix seconds, where the scheme signs one. */
  timestamp?: number;
  /** The delivery's id where the scheme puts it in a header (webhook-id, X-GitHub-Delivery). */
  deliveryId?: string;
  /** The headers that carry the signature, to forward with the raw body. */
  signed: Record<string, string>;
};
export type Verification = Verified | { ok: false; reason: string };

const refuse = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/**
 * The id a delivery gives itself in a header (webhook-id, svix-id, X-GitHub-Delivery), read without verifying
 * anything: for naming a refused delivery in a log (its sender's dashboard lists it by that id), never for acting on.
 */
export function claimedDeliveryId(headers: Headers): string | undefined {
  const id = header(headers, 'webhook-id') ?? header(headers, 'svix-id') ?? header(headers, 'x-github-delivery');
  return id === undefined ? undefined : stripControl(id).slice(0, 100);
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Each scheme's own signature header, in the order detection tries them (Svix's name for Standard Webhooks too). */
const OWN_HEADERS: Readonly<Record<Exclude<Scheme, 'giftcodes'>, readonly string[]>> = {
  standard: ['webhook-signature', 'svix-signature'],
  stripe: ['stripe-signature'],
  github: ['x-hub-signature-256'],
};

/** How each scheme's signature looks: ours and Stripe's are one form, verified alike. */
const FORMS: Readonly<Record<Scheme, string>> = {
  giftcodes: 't=…,v1=…',
  stripe: 't=…,v1=…',
  standard: 'v1,…',
  github: 'sha256=…',
};

/**
 * The scheme a signature's own form names: `t=…,v1=…` ours (Stripe's under its own header), `v1,<base64>`
 * Standard Webhooks, `sha256=<hex>` GitHub. A header named with --signature-header is often one a service
 * documents (`webhook-signature`, `X-Hub-Signature-256`): its form, not its name, says how to verify it.
 */
function schemeOfForm(name: string, value: string): Scheme | undefined {
  const text = value.trim();
  if (/^sha256=/i.test(text)) return 'github';
  if (/^v\d+a?,/.test(text)) return 'standard';
  if (/(?:^|,)\s*t=/.test(text)) return name === 'stripe-signature' ? 'stripe' : 'giftcodes';
  return undefined;
}

/**
 * --scheme, else the first signature header present: ours (or --signature-header, read by its form), Standard
 * Webhooks, Stripe, GitHub.
 */
export function detectScheme(headers: Headers, signatureHeader = DEFAULT_SIGNATURE_HEADER): Scheme | undefined {
  const name = signatureHeader.toLowerCase();
  const named = header(headers, name);
  if (named !== undefined)
    return name === DEFAULT_SIGNATURE_HEADER ? 'giftcodes' : (schemeOfForm(name, named) ?? 'giftcodes');
  for (const [scheme, names] of Object.entries(OWN_HEADERS) as [Scheme, readonly string[]][]) {
    if (names.some((own) => header(headers, own) !== undefined)) return scheme;
  }
  return undefined;
}

/**
 * The header a scheme's signature is read from: one named with --signature-header when the delivery carries
 * it, else the scheme's own (ours is only ever the named one).
 */
function signatureHeaderFor(scheme: Scheme, headers: Headers, signatureHeader: string): string {
  if (scheme === 'giftcodes') return signatureHeader;
  const own = OWN_HEADERS[scheme];
  if (signatureHeader !== DEFAULT_SIGNATURE_HEADER && header(headers, signatureHeader) !== undefined)
    return signatureHeader;
  return own.find((name) => header(headers, name) !== undefined) ?? own[0]!;
}

export function verifyDelivery(headers: Headers, rawBody: Buffer, o: VerifyOptions): Verification {
  const signatureHeader = (o.signatureHeader ?? DEFAULT_SIGNATURE_HEADER).toLowerCase();
  const scheme = o.scheme ?? detectScheme(headers, signatureHeader);
  if (scheme === undefined) return refuse('missing signature');
  const name = signatureHeaderFor(scheme, headers, signatureHeader);
  const value = header(headers, name);
  // A chosen scheme that the named header's form contradicts: say so, not "signature without a timestamp".
  const form = value === undefined || name === DEFAULT_SIGNATURE_HEADER ? undefined : schemeOfForm(name, value);
  if (o.scheme !== undefined && form !== undefined && FORMS[form] !== FORMS[o.scheme]) {
    return refuse(`the ${name} header holds a ${form} signature (${FORMS[form]}), not a ${o.scheme} one`);
  }
  // The chosen scheme's header is absent, and another scheme's is there: that one is named, not "missing signature".
  const carried = value === undefined && o.scheme !== undefined ? detectScheme(headers, signatureHeader) : undefined;
  if (carried !== undefined && carried !== o.scheme)
    return refuse(
      `no ${name} header: this delivery is signed with the ${carried} scheme, not ${o.scheme} (choose ${carried}, or leave the scheme out to detect it)`,
    );
  switch (scheme) {
    case 'giftcodes':
    case 'stripe': {
      const check = verifyTimestamped(value, rawBody, o.secret, o.toleranceS, o.nowS);
      return check.ok ? { ok: true, scheme, timestamp: check.timestamp, signed: { [name]: value ?? '' } } : check;
    }
    case 'standard':
      return verifyStandard(headers, name, rawBody, o);
    case 'github':
      return verifyGithub(headers, name, rawBody, o.secret);
  }
}

/** A signature of the right form that does not match (the answer's body too, so its words stay these). */
const BAD_SIGNATURE = 'bad signature';

/** Constant time; false for anything that is not exactly the expected length. */
function sameBytes(expected: Buffer, given: Buffer): boolean {
  return given.length === expected.length && timingSafeEqual(expected, given);
}

/** Compares every candidate, never stopping early: timing says nothing about which one matched. */
function anyMatches(expected: Buffer, candidates: Buffer[]): boolean {
  let matched = false;
  for (const candidate of candidates) if (sameBytes(expected, candidate)) matched = true;
  return matched;
}

function timestampCheck(
  raw: string | undefined,
  toleranceS: number,
  nowS: number,
): { ok: true; timestamp: number } | { ok: false; reason: string } {
  if (raw === undefined || !/^\d{1,12}$/.test(raw.trim())) return refuse('signature without a timestamp');
  const t = Number(raw.trim());
  // Said as a time and a distance from this clock, not a bare unix number (a person's day read "timestamp 1796051574").
  if (Math.abs(nowS - t) > toleranceS)
    return refuse(
      // In whole seconds, rounded up: the clock has milliseconds ("1000.4679999351501 s", a person's-day review), and
      // a distance just over the tolerance must not read as the tolerance itself.
      `signed at ${new Date(t * 1000).toISOString()}, ${Math.ceil(Math.abs(nowS - t))} s ${t < nowS ? 'before' : 'ahead of'} this clock: more than the ${toleranceS} s allowed (a replay, or a clock that is off)`,
    );
  return { ok: true, timestamp: t };
}

/** Ours and Stripe's: `t=<unix>,v1=<hex>[,v1=<hex>…]`, HMAC-SHA256(secret, `<t>.<raw body>`). */
export function verifyTimestamped(
  value: string | undefined,
  rawBody: Buffer,
  secret: string,
  toleranceS: number,
  nowS: number,
): { ok: true; timestamp: number } | { ok: false; reason: string } {
  if (!value) return refuse('missing signature');
  let timestamp: string | undefined;
  const candidates: Buffer[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const given = part.slice(eq + 1).trim();
    if (name === 't') timestamp = given;
    else if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(given)) candidates.push(Buffer.from(given, 'hex'));
    else if (name === 'v1') candidates.push(Buffer.alloc(0));
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return refuse('signature without a timestamp');
  if (candidates.length === 0) return refuse('signature without v1');
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!anyMatches(expected, candidates)) return refuse(BAD_SIGNATURE);
  return timestampCheck(timestamp, toleranceS, nowS);
}

/**
 * The key of a Standard Webhooks secret: `whsec_<base64>` is the base64 of the key bytes (as Svix and the
 * spec give it). A secret whose remainder is not base64 is used as it stands, so any secret still works.
 */
export function standardKey(secret: string): Buffer {
  const rest = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (rest !== '' && /^[A-Za-z0-9+/]+={0,2}$/.test(rest) && rest.replace(/=+$/, '').length % 4 !== 1)
    return Buffer.from(rest, 'base64');
  return Buffer.from(secret, 'utf8');
}

/**
 * The prefix of a Standard Webhooks signature header's companions (`<prefix>-id`, `<prefix>-timestamp`):
 * `webhook` or `svix` for their own names; for another name, `X-` of `X-signature` when the delivery carries
 * `X-id`, else whichever of webhook-id and svix-id it carries.
 */
function companionPrefix(headers: Headers, name: string): string {
  const own = /^(.+)-signature$/.exec(name)?.[1];
  if (own !== undefined && header(headers, `${own}-id`) !== undefined) return own;
  if (own === 'webhook' || own === 'svix') return own;
  return header(headers, 'webhook-id') === undefined && header(headers, 'svix-id') !== undefined ? 'svix' : 'webhook';
}

/** `webhook-signature: v1,<base64> [v1,<base64> …]` of `<webhook-id>.<webhook-timestamp>.<body>`; Svix's `svix-` names too. */
function verifyStandard(headers: Headers, name: string, rawBody: Buffer, o: VerifyOptions): Verification {
  const prefix = companionPrefix(headers, name);
  const id = header(headers, `${prefix}-id`);
  const timestamp = header(headers, `${prefix}-timestamp`);
  const value = header(headers, name);
  if (!value) return refuse('missing signature');
  if (!id) return refuse(`signature without ${prefix}-id`);
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp.trim())) return refuse('signature without a timestamp');
  const candidates: Buffer[] = [];
  // Space-separated; a repeated header arrives joined with ', ', whose comma is dropped here.
  for (const entry of value.split(/\s+/).map((e) => e.replace(/,$/, ''))) {
    const comma = entry.indexOf(',');
    if (comma > 0 && entry.slice(0, comma) === 'v1') candidates.push(Buffer.from(entry.slice(comma + 1), 'base64'));
  }
  if (candidates.length === 0) return refuse('signature without v1');
  const expected = createHmac('sha256', standardKey(o.secret))
    .update(`${id}.${timestamp.trim()}.`)
    .update(rawBody)
    .digest();
  if (!anyMatches(expected, candidates)) return refuse(BAD_SIGNATURE);
  const check = timestampCheck(timestamp, o.toleranceS, o.nowS);
  if (!check.ok) return check;
  return {
    ok: true,
    scheme: 'standard',
    timestamp: check.timestamp,
    deliveryId: id,
    signed: { [`${prefix}-id`]: id, [`${prefix}-timestamp`]: timestamp, [name]: value },
  };
}

/** `X-Hub-Signature-256: sha256=<hex>` of the raw body; no timestamp, so duplicates go by X-GitHub-Delivery. */
function verifyGithub(headers: Headers, name: string, rawBody: Buffer, secret: string): Verification {
  const value = header(headers, name);
  if (!value) return refuse('missing signature');
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(value.trim());
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  if (!sameBytes(expected, match ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(0))) return refuse(BAD_SIGNATURE);
  const delivery = header(headers, 'x-github-delivery');
  const signed: Record<string, string> = { [name]: value };
  const event = header(headers, 'x-github-event');
  if (delivery) signed['x-github-delivery'] = delivery;
  if (event) signed['x-github-event'] = event;
  return { ok: true, scheme: 'github', signed, ...(delivery ? { deliveryId: delivery } : {}) };
}
