// An amount in the major unit beside the API's minor units: `value.display` ("25.00" for 2500 USD) in CSV
// and JSON (docs/codes-and-exports.md). Added to every object inside a record (not the record itself) that
// holds an integer `amount` and a three-letter `currency` and no `display` of its own; nothing the API sent
// is changed or dropped. The fast paths (scan.ts's money objects) apply the same rule to bytes.
import { majorUnits, moneyOf } from '../money.js';

/** The display amount of a money object, or undefined when the object is not one. */
export function displayOf(object: Record<string, unknown>): string | undefined {
  if ('display' in object) return undefined;
  const money = moneyOf(object);
  return money ? majorUnits(money.amount, money.currency) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The record with `display` last in each of its money objects (a copy where one is added; the record itself untouched). */
export function withDisplay(record: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (!isPlainObject(value)) continue;
    const inner = withDisplay(value, depth + 1);
    if (inner !== value) (copy ??= { ...record })[key] = inner;
  }
  const display = depth > 0 ? displayOf(record) : undefined;
  if (display === undefined) return copy ?? record;
  return { ...(copy ?? record), display };
}

/** The display of an amount's bytes (a JSON number) and a currency's (a string's inside), remembered for the next record: the codes of an order share one value. */
export class DisplayCache {
  private amount: Buffer = Buffer.alloc(0);
  private currency: Buffer = Buffer.alloc(0);
  private display: string | undefined;

  /** undefined when the pair makes no display (not an integer, not a currency code). */
  of(b: Buffer, as: number, ae: number, cs: number, ce: number): string | undefined {
    // A few bytes each: compared here, as a call into C++ (Buffer.compare) per record costs more.
    if (same(this.amount, b, as, ae) && same(this.currency, b, cs, ce)) return this.display;
    this.amount = Buffer.from(b.subarray(as, ae));
    this.currency = Buffer.from(b.subarray(cs, ce));
    const amount = Number(b.toString('latin1', as, ae));
    const currency = b.toString('utf8', cs, ce);
    this.display = displayOf({ amount, currency });
    return this.display;
  }
}

function same(kept: Buffer, b: Buffer, start: number, end: number): boolean {
  if (kept.length !== end - start) return false;
  for (let i = 0; i < kept.length; i++) if (kept[i] !== b[start + i]) return false;
  return true;
}
