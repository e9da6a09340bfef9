// Code records, derived on demand from (order id, index): the same order always has the same codes,
// and a page is computed when asked for, so a 100,000-code order never sits in memory.
import { hash } from 'node:crypto';
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

function group(bytes: Buffer, from: number): string {
  let s = '';
  for (let i = from; i < from + 4; i++) s += ALPHABET[(bytes[i] ?? 0) & 31];
  return s;
}

/** `liveSecret` keeps live codes unguessable from the order id; sandbox codes use a fixed one. */
export function codeRecords(order: Order, offset: number, count: number, liveSecret: string): CodeRecord[] {
  const secret = order.environment === 'test' ? SANDBOX_SECRET : liveSecret;
  const prefix = (order.product.codePrefix ?? '') + (order.environment === 'test' ? 'TEST-' : '');
  const value = { amount: order.product.price, currency: order.product.currency };
  const expires = new Date(order.createdAt + VALIDITY_MS).toISOString();
  const serialStem = `SN${order.id.slice(-8).toUpperCase()}-`;
  const end = Math.min(order.quantity, offset + count);
  const out: CodeRecord[] = [];
  for (let i = offset; i < end; i++) {
    // One-shot hash: about half the cost of createHash().update().digest() per code, the same bytes.
    const h = hash('sha256', `${secret}:${order.id}:${i}`, 'buffer');
    out.push({
      code: `${prefix}${group(h, 0)}-${group(h, 4)}-${group(h, 8)}-${group(h, 12)}`,
      pin: String(h.readUInt32BE(16) % 10000).padStart(4, '0'),
      serial: serialStem + String(i + 1).padStart(6, '0'),
      value,
      expires_at: expires,
    });
  }
  return out;
}
