// The next page of a list named before the page is read: the envelope's members after the records' array
// (`"has_more":true,"next_cursor":"…"}`) are read back from the end of the body, so the next request can be
// on its way while this page is scanned and written (BENCHMARKS.md, issue 23). Only a guess: the page's
// own envelope, parsed as before, still decides the next page, and a guess it disagrees with is dropped.
import { nextPageUrl } from './pagination.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const RBRACE = 0x7d;
const RBRACKET = 0x5d;

/** Members read back from the end at most: an envelope's tail is a few fields. */
const MAX_MEMBERS = 16;

/**
 * The body's top-level members after its last array-valued member, as the JSON text of an object; undefined
 * when there are none, or when one of them is an object or array (only strings, numbers and literals are read
 * back). Valid JSON is not checked here: whoever uses the text parses it.
 */
export function tailMembers(b: Uint8Array): string | undefined {
  let p = back(b, b.length - 1);
  if (b[p] !== RBRACE) return undefined;
  const end = p;
  let first = -1;
  p--;
  for (let members = 0; members < MAX_MEMBERS; members++) {
    p = back(b, p);
    if (b[p] === RBRACKET)
      return first < 0 ? undefined : `{${Buffer.from(b.buffer, b.byteOffset + first, end - first).toString('utf8')}}`;
    // The value: a string, or a number or literal; anything else ends the reading.
    if (b[p] === QUOTE) p = stringStart(b, p);
    else {
      const stop = p;
      while (p >= 0 && isScalarByte(b[p] as number)) p--;
      if (p === stop) return undefined;
      p++;
    }
    if (p < 0) return undefined;
    p = back(b, p - 1);
    if (b[p] !== COLON) return undefined;
    p = back(b, p - 1);
    if (b[p] !== QUOTE) return undefined;
    p = stringStart(b, p);
    if (p < 0) return undefined;
    const memberStart = p;
    p = back(b, p - 1);
    if (b[p] !== COMMA) return undefined;
    first = memberStart;
    p--;
  }
  return undefined;
}

/**
 * The URL of the page after this one as the members after its records say it (`has_more` and `next_cursor`,
 * the documented form, and a Link header), or undefined: no guess.
 */
export function guessNextPage(bytes: Uint8Array, linkHeader: string | undefined, current: URL): URL | undefined {
  const tail = tailMembers(bytes);
  if (tail === undefined) return undefined;
  try {
    const members = JSON.parse(tail) as Record<string, unknown>;
    if (members.has_more !== true || typeof members.next_cursor !== 'string') return undefined;
    return nextPageUrl(members, linkHeader, current, undefined);
  } catch {
    return undefined;
  }
}

/** The last position at or before p that is not JSON whitespace (-1 if none). */
function back(b: Uint8Array, p: number): number {
  while (p >= 0) {
    const c = b[p];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return p;
    p--;
  }
  return p;
}

/** The opening quote of the string whose closing quote is at p: the first quote before it not escaped by an odd run of backslashes; -1 if none. */
function stringStart(b: Uint8Array, p: number): number {
  for (let q = p - 1; q >= 0; q--) {
    if (b[q] !== QUOTE) continue;
    let slashes = 0;
    while (q - 1 - slashes >= 0 && b[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** Bytes of a number or of true, false, null. */
function isScalarByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45;
}

/**
 * Resolves once a request just handed to undici has been written: on a kept-alive socket undici writes it
 * from a setImmediate (it first lets the socket's pending events run), which runs before the second of ours.
 * Without this, the request would wait for whatever synchronous work comes next (the scan of a page).
 */
export async function requestWritten(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  await new Promise<void>((resolve) => setImmediate(resolve));
}
