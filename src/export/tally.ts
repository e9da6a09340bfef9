// Every code of one order, seen once: a page that repeats a code in place of another (the count still
// matching) is a server fault, never codes to hand out. Memory stays small however many codes an order has:
// one open-addressed table of 64-bit slots, at most 85 % full, sized from the order's quantity (9.0 MiB for a
// million codes; 70 % full took 10.9 MiB, and a power of two of slots at most half full 16 MiB, up to twice that
// for other quantities). A slot's home is one hash of the code's text, its content two more: two different codes are taken
// for one only when their probe runs meet and both 32-bit words agree, about once in 10^12 orders of a million
// codes. With one word (8 MiB) it was once in ~2,000, and a bench round met it (exit 5 on a sound order). The
// hashes are seeded per run, so even that never repeats on a rerun; a true repeat always is refused.
import type { CodeRecord } from '../api/schemas.js';
import { NetworkError } from '../errors.js';
import type { ScannedPage } from './scan.js';
import { randomBytes } from '../random.js';

/** Slots for an order whose quantity is not known: a million codes and more (16 MiB, given as touched). */
const UNKNOWN_QUANTITY_SLOTS = 1 << 21;
/**
 * How full a table gets before a new one takes the codes that come next. 85 %, not 70 %: the table of a
 * 1,000,000-code order is 9.0 MiB, not 10.9, of the export's peak RSS (BENCHMARKS.md, issue 33). A look-up then
 * reads ~3.8 slots on average over the filling (2.2 at 70 %), most in the cache line of the code's home slot,
 * which touch() has read already; a false repeat stays about as rare (both words of ~1.8× as many compares).
 */
const MAX_LOAD = 0.85;

const STRING = 1;
const STRING_COMMA = 2;
const NUMBER = 3;

export class CodeTally {
  private table: Uint32Array;
  /** The table's slots (two words each). */
  private slots: number;
  private size = 0;
  /** Codes looked at so far (the position of the next record in the order's pages). */
  private seen = 0;
  private readonly seed1: number;
  private readonly seed2: number;
  private readonly older: { table: Uint32Array; slots: number }[] = [];

  constructor(
    private readonly orderId: string,
    expected?: number,
  ) {
    // An order of unknown quantity (none recorded here, none stated) starts with room for a million codes: the
    // pages of a typed array no code has touched are never given memory (a code touches one 4 KiB page, so
    // ~4 MiB for a thousand codes, 16 MiB from ~20,000 on), and up to a million codes each is looked for in one
    // table. Grown from 1,024 slots instead, a million codes met eleven tables, and looking in the ten older
    // ones took 0.52 s of the export's 2.15 s of CPU (BENCHMARKS.md, issue 33).
    const slots =
      expected === undefined
        ? UNKNOWN_QUANTITY_SLOTS
        : Math.min(1 << 27, Math.max(1024, Math.ceil(expected / MAX_LOAD)));
    // Two words a slot: the code's second hash (0 marks an empty slot) and a third, its check word.
    this.table = new Uint32Array(slots * 2);
    this.slots = slots;
    const seeds = randomBytes(8);
    this.seed1 = seeds.readUInt32LE(0);
    this.seed2 = seeds.readUInt32LE(4);
  }

  /**
   * The hashes of a page's codes (three words each) and each code's position among all records, filled before
   * any is looked for in the table. Looking them up in a loop of their own lets the processor wait on several
   * slots of the table at once; hashing between the look-ups kept it to one (a million codes: 2.0× less CPU
   * in a script of its own, BENCHMARKS.md, issue 33). Reused from page to page.
   */
  private hashes = new Uint32Array(3 * 1024);
  private positions = new Float64Array(1024);

  /** Every code of the page, in order; a code met before is exit 5. */
  page(page: readonly CodeRecord[] | ScannedPage): void {
    let codes = 0;
    if (Array.isArray(page)) {
      this.room(page.length);
      for (const record of page as readonly CodeRecord[]) {
        this.seen++;
        const code = (record as { code?: unknown }).code;
        if (typeof code !== 'string' && typeof code !== 'number') continue;
        const bytes = Buffer.from(String(code), 'utf8');
        this.hashWords(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.length), 0, bytes.length, codes++);
      }
    } else {
      const scanned = page as ScannedPage;
      const leaf = scanned.shape.topCode ? scanned.shape.leafNames.indexOf('code') : -1;
      const leaves = scanned.shape.leaves;
      const b = scanned.bytes;
      const words = new DataView(b.buffer, b.byteOffset, b.length);
      this.room(scanned.count);
      for (let r = 0; r < scanned.count; r++) {
        this.seen++;
        const at = (r * leaves + leaf) * 3;
        const kind = leaf < 0 ? 0 : (scanned.values[at] as number);
        if (kind === STRING || kind === STRING_COMMA || kind === NUMBER)
          this.hashWords(b, words, scanned.values[at + 1] as number, scanned.values[at + 2] as number, codes++);
      }
    }
    const seen = this.seen;
    this.touch(codes);
    for (let i = 0; i < codes; i++) {
      if (!this.add(this.hashes[3 * i] as number, this.hashes[3 * i + 1] as number, this.hashes[3 * i + 2] as number)) {
        this.seen = this.positions[i] as number;
        throw this.repeated();
      }
    }
    this.seen = seen;
  }

  /** touch()'s reads, kept so that they are made. */
  private touched = 0;

  /**
   * Reads the home slot of each of the batch's codes, and nothing else, before any is looked for: a loop of a
   * few instructions a code keeps many reads of the table in flight at once, where the look-up loop, with its
   * compares and stores, kept a few; the look-ups then find their slots in the cache. 1,000 codes' slots are
   * 64 KiB, well inside L2.
   */
  private touch(codes: number): void {
    const table = this.table;
    const slots = this.slots;
    const hashes = this.hashes;
    let x = 0;
    for (let i = 0; i < codes; i++) x ^= table[2 * home(hashes[3 * i] as number, slots)] as number;
    this.touched ^= x;
  }

  /** Room in the batch for a page of `count` records. */
  private room(count: number): void {
    if (this.positions.length >= count) return;
    this.hashes = new Uint32Array(3 * count);
    this.positions = new Float64Array(count);
  }

  /**
   * The code's three hashes into the batch at `i`, with its position (the records seen so far, this one too).
   * Four bytes at a time (`words` reads `b`): each word is first mixed on its own (murmur3's step, a bijection, so
   * two different codes stay two different series of words), then folded into each hash with its own multiplier and
   * rotation; the last 0–3 bytes one at a time, each marked (+0x100) as no word's step. A byte at a time took ~3× the
   * instructions.
   */
  private hashWords(b: Uint8Array, words: DataView, start: number, stop: number, i: number): void {
    let h1 = this.seed1 ^ 0x811c9dc5;
    let h2 = this.seed2 ^ 0x9747b28c;
    let h3 = (this.seed1 + this.seed2) ^ 0x27d4eb2f;
    let k = start;
    for (; k + 4 <= stop; k += 4) {
      let w = Math.imul(words.getUint32(k, true), 0xcc9e2d51);
      w = Math.imul((w << 15) | (w >>> 17), 0x1b873593);
      h1 ^= w;
      h1 = Math.imul((h1 << 13) | (h1 >>> 19), 5) + 0xe6546b64;
      h2 = Math.imul(h2 ^ w, 0x5bd1e995);
      h2 ^= h2 >>> 15;
      h3 = Math.imul(h3 ^ w, 0x165667b1);
      h3 ^= h3 >>> 13;
    }
    for (; k < stop; k++) {
      const c = (b[k] as number) + 0x100;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
      h3 = Math.imul(h3 ^ c, 0x165667b1);
      h3 ^= h3 >>> 13;
    }
    h3 ^= h3 >>> 16;
    h3 = Math.imul(h3, 0xc2b2ae35) >>> 0;
    h3 ^= h3 >>> 13;
    h1 ^= h1 >>> 16;
    h1 = Math.imul(h1, 0x85ebca6b);
    h1 ^= h1 >>> 13;
    this.hashes[3 * i] = h1;
    // 0 marks an empty slot.
    this.hashes[3 * i + 1] = h2 >>> 0 || 1;
    this.hashes[3 * i + 2] = h3;
    this.positions[i] = this.seen;
  }

  /** Puts a code's hashes in the table; false when they are there already (a repeat). */
  private add(h1: number, h2: number, h3: number): boolean {
    if (this.size + 1 > this.slots * MAX_LOAD) this.grow();
    for (const older of this.older) if (holds(older.table, older.slots, h1, h2, h3)) return false;
    const slots = this.slots;
    for (let slot = home(h1, slots); ; slot = slot + 1 === slots ? 0 : slot + 1) {
      const held = this.table[2 * slot] as number;
      if (held === 0) {
        this.table[2 * slot] = h2;
        this.table[2 * slot + 1] = h3;
        this.size++;
        return true;
      }
      if (held === h2 && this.table[2 * slot + 1] === h3) return false;
    }
  }

  /**
   * A full table (more codes than the order's quantity said, or one whose quantity was not known) is kept as it
   * is, and a new one twice its size takes the codes that come next: a slot holds no code's first hash, so
   * entries cannot be placed again. Each code is then looked for in every table, each at most 85 % full.
   */
  private grow(): void {
    this.older.push({ table: this.table, slots: this.slots });
    this.slots *= 2;
    this.table = new Uint32Array(this.slots * 2);
    this.size = 0;
  }

  /** The code itself is not named: it is cash, and an error line goes to logs and cron mail. */
  private repeated(): NetworkError {
    return new NetworkError(
      `the codes of order ${this.orderId}: code number ${this.seen} repeats a code sent earlier in the same order; the codes are not used`,
      {
        code: 'duplicate_code',
        hint: 'the service sent a code twice in place of another; try again later, and tell the provider if it persists',
      },
    );
  }
}

/** Whether (`h2`, `h3`) is in the probe run of `h1` in a table (at most 85 % full, so the run ends). */
function holds(table: Uint32Array, slots: number, h1: number, h2: number, h3: number): boolean {
  for (let slot = home(h1, slots); ; slot = slot + 1 === slots ? 0 : slot + 1) {
    const held = table[2 * slot] as number;
    if (held === 0) return false;
    if (held === h2 && table[2 * slot + 1] === h3) return true;
  }
}

/**
 * A code's home slot among `slots` (any count, not only a power of two): its first hash scaled to them. The
 * product is below 2^59, so a double rounds it, but by far less than one slot: the result stays below `slots`.
 */
function home(h1: number, slots: number): number {
  return Math.floor(((h1 >>> 0) / 4294967296) * slots);
}
