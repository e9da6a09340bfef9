// The fast path of a code export (issue 16): a page of codes read straight from its bytes, with no JS
// object or string made per record, so a million codes leave (nearly) no garbage and the young
// generation never grows. JSON.parse (src/api/body.ts, pagination.ts) stays the reference: this reads
// only what it fully understands and gives up (undefined) on anything else, and the caller then takes
// the JSON.parse path, which writes the same bytes (test/unit/export-fast.test.ts checks fast == slow).
//
// What it reads: a top-level object, no BOM, valid UTF-8, holding one array under a list key (data,
// items, … codes) of non-empty objects that all have the same keys in the same order (the page's
// shape, learnt from its first record). Keys: no escape, not empty, no dot, not starting with a digit
// (JSON.parse moves integer-like keys first), not __proto__, no duplicates, no `attributes` at the top
// (JSON:API). Values: strings without escapes, numbers in the form String(number) prints them, true,
// false, null, and non-empty objects of the same, up to MAX_NESTING deep. No arrays inside a record.
// Every other member of the body is skipped here and left to JSON.parse, on the body with the array
// emptied (the envelope: has_more, totals, next links); the caller checks that the envelope's list is
// the array read here.
import { isUtf8 } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Kinds of a leaf value in ScannedPage.values. */
export const STRING = 1;
/** A string holding a comma (a quoted CSV cell). */
export const STRING_COMMA = 2;
export const NUMBER = 3;
/** true, false: their bytes are their text. */
export const LITERAL = 4;
export const NULL = 5;

/** Steps of a shape. */
const LEAF = 0;
const OPEN = 1;
const CLOSE = 2;

/** What a byte inside a string is to match(): 0 (most), its end, an escape or a control character, a comma. */
const END = 1;
const BAD = 2;
const IN_STRING = new Uint8Array(256);
IN_STRING.fill(BAD, 0, 0x20);
IN_STRING[QUOTE] = END;
IN_STRING[BACKSLASH] = BAD;
IN_STRING[COMMA] = 3;

/** Released buffers kept for reuse (two pages are held at once: prefetch.ts). */
const POOLED = 4;
/** Objects inside a record, at most this deep (the body's depth limit stays far away). */
const MAX_NESTING = 8;
/** Digits a number may have and still print as it was written (DBL_DIG). */
const MAX_DIGITS = 15;

/** The keys of a record in document order, nested objects as OPEN … CLOSE: the same for every record of a page. */
export class Shape {
  /** Dotted names of the leaves, in order (the CSV writer's column names). */
  readonly leafNames: string[] = [];
  /** A top-level leaf named `code` (CSV puts its column second). */
  readonly topCode: boolean;
  readonly steps: Int8Array;
  readonly keyStart: Int32Array;
  readonly keyLength: Int32Array;
  readonly keys: Buffer;
  /** `keys`, read four bytes at a time by match(). */
  readonly keyWords: DataView;
  /**
   * Per step but a CLOSE, the bytes a compact record has from the end of the last value to this step's value: a
   * comma unless the step is the first of its object, then its key in quotes and a colon (`,"pin":`); at least 4
   * bytes (a key is not empty). match() compares them a word at a time, and reads the step byte by byte (the
   * whitespace JSON allows) only where they differ.
   */
  readonly glueStart: Int32Array;
  readonly glueLength: Int32Array;
  readonly glueWords: DataView;
  /**
   * The money objects (display.ts): nested objects with leaves `amount` and `currency` and no `display`;
   * each with the dotted name of its `display`, its two leaves, the last leaf inside it (its display
   * column follows that leaf's), and whether its last member is a leaf (then JSON inserts the display
   * right after that leaf's value).
   */
  readonly money: { display: string; amount: number; currency: number; lastLeaf: number; leafLast: boolean }[] = [];

  constructor(
    steps: readonly number[],
    readonly stepKeys: readonly string[],
  ) {
    this.steps = Int8Array.from(steps);
    this.keys = Buffer.from(stepKeys.join(''), 'utf8');
    this.keyWords = new DataView(this.keys.buffer, this.keys.byteOffset, this.keys.length);
    this.keyStart = new Int32Array(steps.length);
    this.keyLength = new Int32Array(steps.length);
    this.glueStart = new Int32Array(steps.length);
    this.glueLength = new Int32Array(steps.length);
    const glue: Buffer[] = [];
    let glueAt = 0;
    for (let s = 0; s < steps.length; s++) {
      if (steps[s] === CLOSE) continue;
      const first = s === 0 || steps[s - 1] === OPEN;
      const bytes = Buffer.from(`${first ? '' : ','}"${stepKeys[s] ?? ''}":`, 'utf8');
      this.glueStart[s] = glueAt;
      this.glueLength[s] = bytes.length;
      glueAt += bytes.length;
      glue.push(bytes);
    }
    const glueBytes = Buffer.concat(glue);
    this.glueWords = new DataView(glueBytes.buffer, glueBytes.byteOffset, glueBytes.length);
    let at = 0;
    const path: string[] = [];
    let topCode = false;
    const open: { amount: number; currency: number; display: boolean }[] = [];
    let leaf = 0;
    for (let s = 0; s < steps.length; s++) {
      const key = stepKeys[s] ?? '';
      const length = Buffer.byteLength(key, 'utf8');
      this.keyStart[s] = at;
      this.keyLength[s] = length;
      at += length;
      if (steps[s] === OPEN) {
        if (key === 'display' && open.length > 0) open[open.length - 1]!.display = true;
        path.push(key);
        open.push({ amount: -1, currency: -1, display: false });
      } else if (steps[s] === CLOSE) {
        const object = open.pop()!;
        if (object.amount >= 0 && object.currency >= 0 && !object.display)
          this.money.push({
            display: [...path, 'display'].join('.'),
            amount: object.amount,
            currency: object.currency,
            lastLeaf: leaf - 1,
            leafLast: steps[s - 1] === LEAF,
          });
        path.pop();
      } else {
        if (path.length === 0 && key === 'code') topCode = true;
        const inside = open[open.length - 1];
        if (inside && key === 'amount') inside.amount = leaf;
        if (inside && key === 'currency') inside.currency = leaf;
        if (inside && key === 'display') inside.display = true;
        this.leafNames.push([...path, key].join('.'));
        leaf++;
      }
    }
    this.topCode = topCode;
  }

  get leaves(): number {
    return this.leafNames.length;
  }

  sameAs(steps: readonly number[], stepKeys: readonly string[]): boolean {
    if (steps.length !== this.steps.length) return false;
    for (let s = 0; s < steps.length; s++)
      if (steps[s] !== this.steps[s] || stepKeys[s] !== this.stepKeys[s]) return false;
    return true;
  }
}

export interface ScannedPage {
  bytes: Buffer;
  /** The top-level key the records are under, and the offsets of its `[` and `]`. */
  key: string;
  open: number;
  close: number;
  count: number;
  shape: Shape;
  /** Per record: start, end (after `}`), 1 if its bytes hold no whitespace (they are then its compact JSON). */
  records: Int32Array;
  /** Per record, per leaf (shape order): kind, start, end; a string's range is inside its quotes. */
  values: Int32Array;
}

/** Reads pages of one list; remembers the last shape, so pages of the same records share one. */
export class PageScanner {
  private shape: Shape | undefined;
  private readonly listKeys: Buffer[];
  private scratchRecords: Int32Array<ArrayBuffer> = new Int32Array(3 * 1024);
  private scratchValues: Int32Array<ArrayBuffer> = new Int32Array(3 * 8 * 1024);
  // Released pages' buffers, reused: a fresh body and fresh arrays per page were external memory the
  // garbage collector let pile up (with so little garbage on the heap it seldom runs), tens of MiB of RSS.
  private readonly freeBytes: Buffer[] = [];
  private readonly freeArrays: Int32Array<ArrayBuffer>[] = [];

  /** `listKeys`: the keys a list may be under, as the JSON.parse path knows them. */
  constructor(listKeys: readonly string[]) {
    this.listKeys = listKeys.map((key) => Buffer.from(key, 'utf8'));
  }

  scan(bytes: Buffer): ScannedPage | undefined {
    const b = bytes;
    const end = b.length;
    if (end === 0 || b[0] === 0xef || !isUtf8(b)) return undefined;
    let p = ws(b, 0);
    if (b[p] !== LBRACE) return undefined;
    p = ws(b, p + 1);
    const topKeys: number[] = [];
    let keyAt = -1;
    let keyEnd = -1;
    let open = -1;
    let close = -1;
    let page: { count: number; shape: Shape } | undefined;
    for (;;) {
      if (b[p] !== QUOTE) return undefined;
      const ks = p + 1;
      const ke = plainString(b, ks);
      if (ke < 0) return undefined;
      topKeys.push(ks, ke);
      p = ws(b, ke + 1);
      if (b[p] !== COLON) return undefined;
      p = ws(b, p + 1);
      if (b[p] === LBRACKET && this.isListKey(b, ks, ke)) {
        if (open >= 0) return undefined;
        open = p;
        keyAt = ks;
        keyEnd = ke;
        const read = this.records(b, p);
        if (read === undefined) return undefined;
        page = read;
        close = read.close;
        p = close + 1;
      } else {
        p = skipValue(b, p);
        if (p < 0) return undefined;
      }
      p = ws(b, p);
      if (b[p] === COMMA) {
        p = ws(b, p + 1);
        continue;
      }
      if (b[p] === RBRACE) break;
      return undefined;
    }
    if (ws(b, p + 1) !== end || page === undefined) return undefined;
    // The list's key once: JSON.parse keeps a duplicate's last value, which would not be this array.
    for (let i = 0; i < topKeys.length; i += 2) {
      const ks = topKeys[i] ?? 0;
      if (ks !== keyAt && equalBytes(b, ks, topKeys[i + 1] ?? 0, b, keyAt, keyEnd)) return undefined;
    }
    const { count, shape } = page;
    return {
      bytes,
      key: b.toString('utf8', keyAt, keyEnd),
      open,
      close,
      count,
      shape,
      records: this.handOver('records'),
      values: this.handOver('values'),
    };
  }

  /** A buffer of `size` bytes for a page's body: a released one when one is large enough. */
  buffer(size: number): Buffer {
    const at = this.freeBytes.findIndex((buffer) => buffer.length >= size);
    const buffer =
      at < 0 ? Buffer.allocUnsafeSlow(Math.max(size, 256 * 1024)) : (this.freeBytes.splice(at, 1)[0] as Buffer);
    return buffer.subarray(0, size);
  }

  /** A body from buffer() that is no longer used (JSON.parse read it). */
  release(bytes: Buffer): void {
    if (this.freeBytes.length < POOLED)
      this.freeBytes.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.buffer.byteLength - bytes.byteOffset));
  }

  /** The page is written: its body and arrays are reused for later pages. */
  releasePage(page: ScannedPage): void {
    this.release(page.bytes);
    for (const array of [page.records, page.values])
      if (this.freeArrays.length < 2 * POOLED) this.freeArrays.push(array as Int32Array<ArrayBuffer>);
  }

  /**
   * The scratch array the page was read into, given to the page as it is (longer than the page needs); a released
   * array at least as long (the shortest such) or a new one is the scratch array from now on. Copying the page's
   * numbers out instead was ~96 KB of memmove a page of codes.
   */
  private handOver(which: 'records' | 'values'): Int32Array {
    const filled = which === 'records' ? this.scratchRecords : this.scratchValues;
    let at = -1;
    for (let i = 0; i < this.freeArrays.length; i++) {
      const length = this.freeArrays[i]!.length;
      if (length >= filled.length && (at < 0 || length < this.freeArrays[at]!.length)) at = i;
    }
    const next = at < 0 ? new Int32Array(filled.length) : (this.freeArrays.splice(at, 1)[0] as Int32Array<ArrayBuffer>);
    if (which === 'records') this.scratchRecords = next;
    else this.scratchValues = next;
    return filled;
  }

  private isListKey(b: Buffer, ks: number, ke: number): boolean {
    for (const key of this.listKeys) if (equalBytes(b, ks, ke, key, 0, key.length)) return true;
    return false;
  }

  /** The array at `p` (`[`): every record read into the scratch arrays; undefined if any is not understood. */
  private records(b: Buffer, p: number): { count: number; shape: Shape; close: number } | undefined {
    p = ws(b, p + 1);
    if (b[p] !== LBRACE) return undefined;
    const steps: number[] = [];
    const stepKeys: string[] = [];
    if (learn(b, p, steps, stepKeys, 0) < 0 || steps.length === 0) return undefined;
    let shape = this.shape;
    if (!shape?.sameAs(steps, stepKeys)) shape = this.shape = new Shape(steps, stepKeys);
    const leaves = shape.leaves;
    const view = new DataView(b.buffer, b.byteOffset, b.length);
    let count = 0;
    for (;;) {
      if (b[p] !== LBRACE) return undefined;
      if ((count + 1) * 3 > this.scratchRecords.length) this.scratchRecords = grow(this.scratchRecords);
      while ((count + 1) * leaves * 3 > this.scratchValues.length) this.scratchValues = grow(this.scratchValues);
      const start = p;
      const compactLength = match(b, view, p, shape, this.scratchValues, count * leaves * 3);
      if (compactLength < 0) return undefined;
      p = matchEnd;
      this.scratchRecords[count * 3] = start;
      this.scratchRecords[count * 3 + 1] = p;
      this.scratchRecords[count * 3 + 2] = p - start === compactLength ? 1 : 0;
      count++;
      p = ws(b, p);
      if (b[p] === COMMA) {
        p = ws(b, p + 1);
        continue;
      }
      if (b[p] === RBRACKET) return { count, shape, close: p };
      return undefined;
    }
  }
}

function grow(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

function ws(b: Buffer, p: number): number {
  for (;;) {
    const c = b[p] as number;
    // One comparison for the usual case (no whitespace: anything above a space).
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) return p;
    p++;
  }
}

function equalBytes(a: Buffer, as: number, ae: number, b: Buffer, bs: number, be: number): boolean {
  if (ae - as !== be - bs) return false;
  for (let i = 0; i < ae - as; i++) if (a[as + i] !== b[bs + i]) return false;
  return true;
}

/** The end (its closing quote) of a string starting at `s` (after its quote) with no escape and no control character; -1 otherwise. */
function plainString(b: Buffer, s: number): number {
  const end = b.length;
  for (let q = s; q < end; q++) {
    const c = b[q] as number;
    if (c === QUOTE) return q;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/**
 * The value at `p`, skipped without being understood (the envelope's members: JSON.parse checks them):
 * the position after it, or -1.
 */
function skipValue(b: Buffer, p: number): number {
  const end = b.length;
  let depth = 0;
  for (let q = p; q < end; q++) {
    const c = b[q];
    if (c === QUOTE) {
      for (q++; q < end && b[q] !== QUOTE; q++) if (b[q] === BACKSLASH) q++;
      if (q >= end) return -1;
      if (depth === 0) return q + 1;
    } else if (c === LBRACE || c === LBRACKET) {
      depth++;
    } else if (c === RBRACE || c === RBRACKET) {
      if (depth === 0) return q === p ? -1 : q;
      depth--;
      if (depth === 0) return q + 1;
    } else if (depth === 0 && (c === COMMA || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
      return q === p ? -1 : q;
    }
  }
  return -1;
}

/**
 * The shape of the record at `p` (`{`) into steps and keys, every key and value checked as the header
 * says: the position after it, or -1 if the record is not one this path reads.
 */
function learn(b: Buffer, p: number, steps: number[], stepKeys: string[], depth: number): number {
  p = ws(b, p + 1);
  if (b[p] === RBRACE) return -1;
  const seen = new Set<string>();
  for (;;) {
    if (b[p] !== QUOTE) return -1;
    const ks = p + 1;
    const ke = plainString(b, ks);
    if (ke <= ks) return -1;
    const first = b[ks] as number;
    if (first >= ZERO && first <= NINE) return -1;
    for (let i = ks; i < ke; i++) if (b[i] === DOT) return -1;
    const key = b.toString('utf8', ks, ke);
    if (key === '__proto__' || (depth === 0 && key === 'attributes') || seen.has(key)) return -1;
    seen.add(key);
    p = ws(b, ke + 1);
    if (b[p] !== COLON) return -1;
    p = ws(b, p + 1);
    if (b[p] === LBRACE) {
      if (depth + 1 > MAX_NESTING) return -1;
      steps.push(OPEN);
      stepKeys.push(key);
      p = learn(b, p, steps, stepKeys, depth + 1);
      if (p < 0) return -1;
      steps.push(CLOSE);
      stepKeys.push('');
    } else {
      // The value is read again, and checked, by match().
      p = skipValue(b, p);
      if (p < 0) return -1;
      steps.push(LEAF);
      stepKeys.push(key);
    }
    p = ws(b, p);
    if (b[p] === COMMA) {
      p = ws(b, p + 1);
      continue;
    }
    if (b[p] === RBRACE) return p + 1;
    return -1;
  }
}

/** Where the record that match() read ends (a second result without an object per record). */
let matchEnd = 0;

/**
 * The record at `p` (`{`) read against `shape`, its leaves' kinds and ranges into `values` from `at`:
 * the length its compact JSON would have (set matchEnd), or -1 if it is not of that shape or not
 * understood.
 */
function match(b: Buffer, view: DataView, p: number, shape: Shape, values: Int32Array, at: number): number {
  const steps = shape.steps;
  const keys = shape.keys;
  const keyWords = shape.keyWords;
  const glueWords = shape.glueWords;
  const end = b.length;
  let compact = 2;
  let first = true;
  p++;
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s];
    p = ws(b, p);
    if (step === CLOSE) {
      if (b[p] !== RBRACE) return -1;
      p++;
      first = false;
      continue;
    }
    // The compact form first (`,"pin":`), a word at a time, the last word ending with the glue's last byte: a
    // record without whitespace needs no other test of its keys and punctuation.
    const gs = shape.glueStart[s] as number;
    const gl = shape.glueLength[s] as number;
    let same = p + gl <= end;
    if (same) {
      let i = 0;
      for (; i + 4 < gl; i += 4)
        if (view.getUint32(p + i, true) !== glueWords.getUint32(gs + i, true)) {
          same = false;
          break;
        }
      same &&= view.getUint32(p + gl - 4, true) === glueWords.getUint32(gs + gl - 4, true);
    }
    if (same) {
      p = ws(b, p + gl);
      compact += gl;
    } else {
      if (!first) {
        if (b[p] !== COMMA) return -1;
        p = ws(b, p + 1);
        compact++;
      }
      if (b[p] !== QUOTE) return -1;
      p++;
      const ks = shape.keyStart[s] as number;
      const kl = shape.keyLength[s] as number;
      if (p + kl > end) return -1;
      let i = 0;
      for (; i + 4 <= kl; i += 4) if (view.getUint32(p + i, true) !== keyWords.getUint32(ks + i, true)) return -1;
      for (; i < kl; i++) if (b[p + i] !== keys[ks + i]) return -1;
      p += kl;
      if (b[p] !== QUOTE) return -1;
      p = ws(b, p + 1);
      if (b[p] !== COLON) return -1;
      p = ws(b, p + 1);
      compact += kl + 3;
    }
    if (step === OPEN) {
      if (b[p] !== LBRACE) return -1;
      p++;
      compact += 2;
      first = true;
      continue;
    }
    const c = b[p];
    let kind: number;
    let start = p;
    let stop: number;
    if (c === QUOTE) {
      start = p + 1;
      kind = STRING;
      let q = start;
      // Four bytes at a time while none of them is a quote, a backslash, a comma or a control character
      // (each test is the word-wide "has a zero byte" trick); the byte loop below reads the rest.
      for (; q + 4 <= end; q += 4) {
        const w = view.getUint32(q, true);
        const backslash = w ^ 0x5c5c5c5c;
        // First two tests for all four: a byte below 0x2d (a control character, a quote, a comma, and a few
        // others such as a space) or a backslash; only a word that has one is tested for each.
        if ((((w - 0x2d2d2d2d) & ~w) | ((backslash - 0x01010101) & ~backslash)) & 0x80808080) {
          const quote = w ^ 0x22222222;
          const comma = w ^ 0x2c2c2c2c;
          if (
            ((w - 0x20202020) & ~w & 0x80808080) |
            ((quote - 0x01010101) & ~quote & 0x80808080) |
            ((backslash - 0x01010101) & ~backslash & 0x80808080) |
            ((comma - 0x01010101) & ~comma & 0x80808080)
          )
            break;
        }
      }
      for (; q < end; q++) {
        const k = IN_STRING[b[q] as number];
        if (k === 0) continue;
        if (k === END) break;
        if (k === BAD) return -1;
        kind = STRING_COMMA;
      }
      if (q >= end) return -1;
      stop = q;
      p = q + 1;
      compact += stop - start + 2;
    } else if (c === 0x74 /* t */ && b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65) {
      kind = LITERAL;
      stop = p = p + 4;
      compact += 4;
    } else if (c === 0x66 /* f */ && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) {
      kind = LITERAL;
      stop = p = p + 5;
      compact += 5;
    } else if (c === 0x6e /* n */ && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
      kind = NULL;
      stop = p = p + 4;
      compact += 4;
    } else {
      stop = canonicalNumber(b, p);
      if (stop < 0) return -1;
      kind = NUMBER;
      p = stop;
      compact += stop - start;
    }
    values[at] = kind;
    values[at + 1] = start;
    values[at + 2] = stop;
    at += 3;
    first = false;
  }
  p = ws(b, p);
  if (b[p] !== RBRACE) return -1;
  matchEnd = p + 1;
  return compact;
}

/**
 * The end of a number at `p` written exactly as JavaScript prints it (String(n), JSON.stringify(n)),
 * so its bytes can be copied: no exponent, no `-0`, no trailing zero in a fraction, at most 15 digits,
 * not below 0.000001; -1 for any other (JSON.parse then reads it).
 */
function canonicalNumber(b: Buffer, p: number): number {
  let q = p;
  const negative = b[q] === MINUS;
  if (negative) q++;
  let digits = 0;
  const zero = b[q] === ZERO;
  if (zero) {
    q++;
  } else {
    const start = q;
    for (let c = b[q] as number; c >= ZERO && c <= NINE; c = b[++q] as number);
    digits = q - start;
    if (digits === 0) return -1;
  }
  if (b[q] === DOT) {
    q++;
    const start = q;
    for (let c = b[q] as number; c >= ZERO && c <= NINE; c = b[++q] as number);
    const fraction = q - start;
    if (fraction === 0 || b[q - 1] === ZERO) return -1;
    if (zero) {
      let leading = 0;
      while (b[start + leading] === ZERO) leading++;
      if (leading > 5) return -1;
    }
    digits += fraction;
  } else if (zero && negative) {
    return -1;
  }
  const c = b[q];
  if (c === 0x65 || c === 0x45 || digits > MAX_DIGITS) return -1;
  return q;
}

/** An output buffer of at least `size` bytes: `buffer` itself when it is large enough. */
export function room(buffer: Buffer, size: number): Buffer {
  return size <= buffer.length ? buffer : Buffer.allocUnsafe(Math.max(size, buffer.length * 2));
}

/** A record's compact JSON (JSON.stringify of what JSON.parse makes of it) to out at o; returns the new o. */
export function copyRecord(page: ScannedPage, r: number, out: Buffer, o: number): number {
  const b = page.bytes;
  const s = page.records[r * 3] as number;
  const e = page.records[r * 3 + 1] as number;
  // A whole record (~160 bytes of a code): one call into C++ pays. Short cells are csv.ts's copyWords.
  if (page.records[r * 3 + 2] === 1) return o + b.copy(out, o, s, e);
  // Whitespace outside strings dropped; a string here holds no escape, so a quote always opens or closes one.
  let inString = false;
  for (let i = s; i < e; i++) {
    const c = b[i] as number;
    if (c === QUOTE) inString = !inString;
    else if (!inString && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) continue;
    out[o++] = c;
  }
  return o;
}

/** The page's records as JSON.parse makes them (for a writer that transforms text). */
export function parsedRecords(page: ScannedPage): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (let r = 0; r < page.count; r++) {
    records.push(
      JSON.parse(page.bytes.toString('utf8', page.records[r * 3], page.records[r * 3 + 1])) as Record<string, unknown>,
    );
  }
  return records;
}
