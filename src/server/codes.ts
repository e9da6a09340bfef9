// Code records, derived on demand from (order id, index): the same order always has the same codes,
// and a page is computed when asked for, so a 1,000,000-code order never sits in memory.
//
// Each code's randomness is block pair i of an AES-256-CTR keystream whose key is sha256(secret:order):
// a pseudorandom function of (order, index) with random access, so page n costs the same as page 1.
// One cipher call makes a whole page's bytes (a sha256 per code cost ~4 µs, more than everything else).
import { createCipheriv, hash } from 'node:crypto';
import type { Order } from './store.js';

export interface CodeRecord {
  code: string;
  pin: string;
  serial: string;
  value: { amount: number; currency: string };
  expires_at: string;
}

// No 0/O or 1/I: codes are read aloud and typed by hand.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const SANDBOX_SECRET = 'giftcodes-sandbox';
const VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;
/** Keystream bytes per code: 16 pick the characters, 4 the pin. */
const BYTES_PER_CODE = 32;

/** The keystream for codes offset..offset+count-1 of the order. */
function keystream(order: Order, offset: number, count: number, liveSecret: string): Buffer {
  const secret = order.environment === 'test' ? SANDBOX_SECRET : liveSecret;
  const key = hash('sha256', `${secret}:${order.id}`, 'buffer');
  // CTR counts 16-byte blocks; code i starts at block 2i. Orders stay far below 2^53 blocks.
  const iv = Buffer.alloc(16);
  iv.writeUIntBE(offset * (BYTES_PER_CODE / 16), 10, 6);
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return cipher.update(Buffer.alloc(count * BYTES_PER_CODE));
}

/** The parts every code of an order shares, JSON-ready. */
function orderParts(order: Order): { prefix: string; serialStem: string; valueJson: string; expiresAt: string } {
  return {
    prefix: (order.product.codePrefix ?? '') + (order.environment === 'test' ? 'TEST-' : ''),
    serialStem: `SN${order.id.slice(-8).toUpperCase()}-`,
    valueJson: JSON.stringify({ amount: order.product.price, currency: order.product.currency }),
    expiresAt: new Date(order.createdAt + VALIDITY_MS).toISOString(),
  };
}

function codeAt(bytes: Buffer, at: number, prefix: string): string {
  let s = prefix;
  for (let g = 0; g < 16; g += 4) {
    if (g > 0) s += '-';
    s +=
      ALPHABET[bytes[at + g]! & 31]! +
      ALPHABET[bytes[at + g + 1]! & 31]! +
      ALPHABET[bytes[at + g + 2]! & 31]! +
      ALPHABET[bytes[at + g + 3]! & 31]!;
  }
  return s;
}

function pinAt(bytes: Buffer, at: number): string {
  return String(bytes.readUInt32BE(at + 16) % 10000).padStart(4, '0');
}

/** `liveSecret` keeps live codes unguessable from the order id; sandbox codes use a fixed one. */
export function codeRecords(order: Order, offset: number, count: number, liveSecret: string): CodeRecord[] {
  const n = Math.max(0, Math.min(order.quantity, offset + count) - offset);
  const bytes = keystream(order, offset, n, liveSecret);
  const { prefix, serialStem, expiresAt } = orderParts(order);
  const value = { amount: order.product.price, currency: order.product.currency };
  const out: CodeRecord[] = [];
  for (let k = 0; k < n; k++) {
    const at = k * BYTES_PER_CODE;
    out.push({
      code: codeAt(bytes, at, prefix),
      pin: pinAt(bytes, at),
      serial: serialStem + String(offset + k + 1).padStart(6, '0'),
      value,
      expires_at: expiresAt,
    });
  }
  return out;
}

/** One record's JSON with blanks where its code, pin and serial number go. */
interface Template {
  bytes: Buffer;
  code: number;
  pin: number;
  serial: number;
  width: number;
}

function template(parts: ReturnType<typeof orderParts>, width: number): Template {
  const pieces = [
    `{"code":"${JSON.stringify(parts.prefix).slice(1, -1)}`,
    'XXXX-XXXX-XXXX-XXXX',
    '","pin":"',
    '0000',
    `","serial":"${parts.serialStem}`,
    '0'.repeat(width),
    `","value":${parts.valueJson},"expires_at":"${parts.expiresAt}"}`,
  ];
  const at = (i: number) => Buffer.byteLength(pieces.slice(0, i).join(''));
  return { bytes: Buffer.from(pieces.join('')), code: at(1), pin: at(3), serial: at(5), width };
}

const ALPHABET_BYTES = Buffer.from(ALPHABET, 'latin1');

/**
 * The same records as `codeRecords`, as JSON bytes (comma-separated, no brackets): byte for byte what
 * JSON.stringify makes of them, written straight into one buffer, because stringifying a page and
 * encoding the string cost several times what making the codes does.
 */
export function codeRecordsJson(order: Order, offset: number, count: number, liveSecret: string): Buffer {
  const n = Math.max(0, Math.min(order.quantity, offset + count) - offset);
  if (n === 0) return Buffer.alloc(0);
  const random = keystream(order, offset, n, liveSecret);
  const parts = orderParts(order);
  // Serial numbers are at least 6 digits; the last page of a 1,000,000-code order has 7.
  const widest = template(parts, Math.max(6, String(offset + n).length));
  let tpl = template(parts, Math.max(6, String(offset + 1).length));
  const out = Buffer.allocUnsafe(n * (widest.bytes.length + 1) - 1);
  let pos = 0;
  for (let k = 0; k < n; k++) {
    const serial = offset + k + 1;
    if (serial >= 10 ** tpl.width) tpl = template(parts, tpl.width + 1);
    if (k > 0) out[pos++] = 44; // ','
    tpl.bytes.copy(out, pos);
    const at = k * BYTES_PER_CODE;
    for (let c = 0, dest = pos + tpl.code; c < 16; c++, dest++) {
      if (c > 0 && c % 4 === 0) dest++; // the dash between groups is in the template
      out[dest] = ALPHABET_BYTES[random[at + c]! & 31]!;
    }
    let pin = random.readUInt32BE(at + 16) % 10000;
    for (let d = pos + tpl.pin + 3; d >= pos + tpl.pin; d--, pin = Math.floor(pin / 10)) out[d] = 48 + (pin % 10);
    let number = serial;
    for (let d = pos + tpl.serial + tpl.width - 1; d >= pos + tpl.serial; d--, number = Math.floor(number / 10))
      out[d] = 48 + (number % 10);
    pos += tpl.bytes.length;
  }
  return out.subarray(0, pos);
}
