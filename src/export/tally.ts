// Every code of one order, seen once: a page that repeats a code in place of another (the count still
// matching) is a server fault, never codes to hand out. Memory stays small however many codes an order has:
// two 32-bit hashes of each code's text in one open-addressed table (8 bytes a slot, at most half full),
// about 16 MB for a million codes. Two different codes sharing both hashes is the only way to be wrong
// (about one order in 10^7 of a million codes each), and it errs towards refusing, never towards a repeat.
import type { CodeRecord } from '../api/schemas.js';
import { NetworkError } from '../errors.js';
import type { ScannedPage } from './scan.js';

const STRING = 1;
const STRING_COMMA = 2;
const NUMBER = 3;

export class CodeTally {
  private table: Uint32Array;
  private mask: number;
  private size = 0;
  /** Codes looked at so far (the position of the next record in the order's pages). */
  private seen = 0;

  constructor(
    private readonly orderId: string,
    expected?: number,
  ) {
    let slots = 1024;
    while (expected !== undefined && slots < expected * 2 && slots < 1 << 26) slots *= 2;
    this.table = new Uint32Array(slots * 2);
    this.mask = slots - 1;
  }

  /** Every code of the page, in order; a code met before is exit 5. */
  page(page: readonly CodeRecord[] | ScannedPage): void {
    if (Array.isArray(page)) {
      for (const record of page as readonly CodeRecord[]) {
        const code = (record as { code?: unknown }).code;
        if (typeof code === 'string' || typeof code === 'number') {
          const bytes = Buffer.from(String(code), 'utf8');
          this.add(bytes, 0, bytes.length);
        } else {
          this.seen++;
        }
      }
      return;
    }
    const scanned = page as ScannedPage;
    const leaf = scanned.shape.topCode ? scanned.shape.leafNames.indexOf('code') : -1;
    const leaves = scanned.shape.leaves;
    for (let r = 0; r < scanned.count; r++) {
      const at = (r * leaves + leaf) * 3;
      const kind = leaf < 0 ? 0 : (scanned.values[at] as number);
      if (kind === STRING || kind === STRING_COMMA || kind === NUMBER) this.add(scanned.bytes, scanned.values[at + 1] as number, scanned.values[at + 2] as number);
      else this.seen++;
    }
  }

  private add(b: Uint8Array, start: number, stop: number): void {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = start; i < stop; i++) {
      const c = b[i] as number;
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 ^= h1 >>> 16;
    h1 = Math.imul(h1, 0x85ebca6b);
    h1 ^= h1 >>> 13;
    // 0 marks an empty slot.
    h2 = (h2 >>> 0) || 1;
    h1 >>>= 0;
    this.seen++;
    if ((this.size + 1) * 2 > this.mask + 1) this.grow();
    for (let slot = h1 & this.mask; ; slot = (slot + 1) & this.mask) {
      const check = this.table[slot * 2 + 1] as number;
      if (check === 0) {
        this.table[slot * 2] = h1;
        this.table[slot * 2 + 1] = h2;
        this.size++;
        return;
      }
      if (check === h2 && this.table[slot * 2] === h1) throw this.repeated();
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.mask = this.table.length / 2 - 1;
    for (let s = 0; s < old.length; s += 2) {
      const h2 = old[s + 1] as number;
      if (h2 === 0) continue;
      const h1 = old[s] as number;
      let slot = h1 & this.mask;
      while (this.table[slot * 2 + 1] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot * 2] = h1;
      this.table[slot * 2 + 1] = h2;
    }
  }

  /** The code itself is not named: it is cash, and an error line goes to logs and cron mail. */
  private repeated(): NetworkError {
    return new NetworkError(`the codes of order ${this.orderId}: code number ${this.seen} repeats a code sent earlier in the same order; the codes are not used`, {
      code: 'duplicate_code',
      hint: 'the service sent a code twice in place of another; try again later, and tell the provider if it persists',
    });
  }
}
