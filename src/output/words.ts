import type { OrderRecord } from '../journal/history.js';
import { writtenAt } from '../journal/outcomes.js';

// Counts in words for a person: "1 code", "3 codes", "1,000,000 codes" (not "1 codes", which a reseller
// ordering one card reads in every message).

/** `n` and its noun, singular for exactly one; thousands grouped as progress lines group them. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${grouped(n)} ${n === 1 ? one : many}`;
}

/**
 * A whole number with its thousands grouped by commas, `1,000,000`, as `toLocaleString('en-US')` writes it, and
 * the same on every machine whatever its locale. By hand, not by `toLocaleString` or `Intl`: either loads ICU's
 * number formatting, and the pages of ICU's data it touches raised the peak RSS of every export by ~5 MiB
 * (BENCHMARKS.md, fifth round).
 */
export function grouped(n: number): string {
  const digits = String(Math.abs(Math.trunc(n)));
  if (!/^\d+$/.test(digits)) return String(n);
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let at = out.length; at < digits.length; at += 3) out += `,${digits.slice(at, at + 3)}`;
  return n < 0 && out !== '0' ? `-${out}` : out;
}

/** What an order is for, in a sentence: `200,000 × amazon-us-25` (a quantity grouped, as a person reads it). */
export function unitsOf(quantity: number, productId: string): string {
  return `${grouped(quantity)} × ${productId}`;
}

/** Items said in one line: the first `most`, joined by `; `, then how many more there were. */
export function firstOf(texts: readonly string[], most: number): string {
  return `${texts.slice(0, most).join('; ')}${texts.length > most ? `; and ${grouped(texts.length - most)} more` : ''}`;
}

/**
 * `<path> exists and holds the codes of order <id> (<units>, written <when>)`, or where the file changed since that
 * delivery (History.codesWrittenTo) `… exists; the codes of order <id> (<units>) were written there at <when>, and it
 * has changed since`; of a copy (`codes get --out` into a second file) the same without a time: the words of an
 * out_exists refusal.
 */
export function holdsCodesOf(path: string, holder: OrderRecord, changed: boolean, copy?: true): string {
  const order = `order ${holder.orderId ?? holder.key}`;
  const units = unitsOf(holder.quantity, holder.productId);
  if (copy)
    return changed
      ? `${path} exists; a copy of the codes of ${order} (${units}) was written there, and it has changed since`
      : `${path} exists and holds a copy of the codes of ${order} (${units})`;
  const when = writtenAt(holder);
  return changed
    ? `${path} exists; the codes of ${order} (${units}) were written there at ${when}, and it has changed since`
    : `${path} exists and holds the codes of ${order} (${units}, written ${when})`;
}

/** At most this many runs of lines are said in one place; the rest are counted. */
const LINE_RUNS = 5;

/** `line 5`, `lines 5 and 8`, `lines 4–1002`, `lines 2, 4–9, 12 and 30 more`: ascending line numbers, as runs. */
export function linesOf(lines: readonly number[]): string {
  const runs: [number, number][] = [];
  for (const line of lines) {
    const last = runs.at(-1);
    if (last && line === last[1] + 1) last[1] = line;
    else runs.push([line, line]);
  }
  // Two lines in a row are two lines, not a run.
  const pieces = runs.flatMap(([a, b]): [number, number][] =>
    b === a + 1
      ? [
          [a, a],
          [b, b],
        ]
      : [[a, b]],
  );
  const said = pieces.slice(0, LINE_RUNS).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`));
  const left = pieces.slice(LINE_RUNS).reduce((sum, [a, b]) => sum + b - a + 1, 0);
  if (lines.length === 1) return `line ${said[0]}`;
  if (left > 0) return `lines ${said.join(', ')} and ${grouped(left)} more`;
  return said.length === 1 ? `lines ${said[0]}` : `lines ${said.slice(0, -1).join(', ')} and ${said.at(-1)}`;
}

/**
 * The words an order_placed_elsewhere refusal adds when journal files here cannot be read (machine.ts), and by which a
 * plan's hint and the next run's refusal (journal.ts) know it from the message a record keeps.
 */
export const UNREADABLE_OWN = ', or a run from here whose journal file cannot be read';

/** Whether a refusal's message says its order may be this directory's own (UNREADABLE_OWN). */
export function mayBeOwn(message: string | undefined): boolean {
  return message?.includes(UNREADABLE_OWN) === true;
}

/** The way on from an order a run from here may have placed under a key whose journal file cannot be read. */
export function unreadableOwnHint(orderId: string, unreadable?: number): string {
  const files =
    unreadable === undefined
      ? 'journal files here cannot be read (giftcodes order pending names them)'
      : `${counted(unreadable, 'journal file')} here cannot be read (giftcodes order pending names ${unreadable === 1 ? 'it' : 'them'})`;
  return `${files}, and may hold this very order: if it is this directory's own, get its codes with giftcodes codes get ${orderId} --out CODES_FILE --wait; order nothing anew before you know`;
}

/** Why an order was not placed, in a word or two, for a narrow column (order list's OUTCOME, a plan's STATUS): the API's codes a person meets most. */
export const REASON_WORDS: Readonly<Record<string, string>> = {
  insufficient_funds: 'no funds',
  insufficient_supply: 'no stock',
  network_error: 'unreachable',
  timeout: 'timed out',
  unknown_product: 'no product',
  product_not_found: 'no product',
  invalid_api_key: 'key refused',
  rate_limited: 'rate limited',
  idempotency_key_reused: 'key reused',
  order_placed_elsewhere: 'placed elsewhere',
};

/** REASON_WORDS' word for an API error code, if it has one. */
export function reasonWord(code: string): string | undefined {
  return Object.hasOwn(REASON_WORDS, code) ? REASON_WORDS[code] : undefined;
}

/** What a refused order's error line ends with, where the API answered (a plan that says it once for all drops it). */
export const NOTHING_CHARGED = '; no order was made, so nothing was charged';

/**
 * What an order's first request that never left says of money: nothing charged, or, for a key the user gave (which
 * another run may have sent), only that this run sent nothing.
 */
export function sentNothing(keyGiven: boolean): string {
  return keyGiven ? 'this run sent nothing' : 'nothing was sent, so nothing was charged';
}

/**
 * Whose key another profile's (or another run's) order of the same reseller was made with (journal/intent.ts
 * sameReseller), in words: `this same API key`, or `another API key of the same reseller (rs_demo)`.
 */
export function resellerKeyWords(
  other: { keyId?: string | undefined; resellerId?: string | undefined },
  mine: { keyId?: string | undefined },
): string {
  return other.keyId === mine.keyId
    ? 'this same API key'
    : `another API key of the same reseller${other.resellerId !== undefined ? ` (${other.resellerId})` : ''}`;
}
