// An order intent: everything needed to place the same order again, byte for byte, after a crash.
import { createHash } from 'node:crypto';
import type { KeyEnvironment } from '../secrets.js';
import type { Owner } from './owner.js';

export const INTENT_VERSION = 1 as const;

/** After this long the server may have forgotten the idempotency key: never resumed silently. */
export const INTENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

export interface OutSpec {
  path: string;
  format?: 'csv' | 'json' | 'jsonl' | undefined;
  force: boolean;
  csvRaw: boolean;
}

/** What makes two order requests the same order: see sameRequest and sameOrder. */
export interface OrderSpec {
  profile: string;
  environment: KeyEnvironment;
  baseUrl: string;
  /** A short hash of the API key: tells keys apart without storing one. */
  keyId: string;
  productId: string;
  quantity: number;
}

export interface Intent extends OrderSpec {
  version: typeof INTENT_VERSION;
  key: string;
  /** The exact request body, resent byte for byte. */
  body: string;
  fingerprint: string;
  /** `sending`: the POST may or may not have reached the server. `placed`: the server answered with an order. */
  phase: 'sending' | 'placed';
  createdAt: string;
  updatedAt: string;
  owner: Owner;
  orderId?: string | undefined;
  status?: string | undefined;
  wait?: boolean | undefined;
  out?: OutSpec | undefined;
  /** Set once the codes file is complete beside its target, just before the rename that delivers it. */
  delivering?: { temp: string } | undefined;
}

export function orderBody(productId: string, quantity: number): string {
  return JSON.stringify({ product_id: productId, quantity });
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function keyIdOf(apiKey: string): string {
  return sha256(`giftcodes-key-id:${apiKey}`).slice(0, 16);
}

/** The same request in the contract's words: product, quantity, profile and environment. */
export function sameRequest(intent: Intent, spec: OrderSpec): boolean {
  return intent.productId === spec.productId && intent.quantity === spec.quantity && intent.profile === spec.profile && intent.environment === spec.environment;
}

/** The same request to the same server with the same key: only such an intent can be resumed. */
export function sameOrder(intent: Intent, spec: OrderSpec): boolean {
  return sameRequest(intent, spec) && intent.baseUrl === spec.baseUrl && intent.keyId === spec.keyId;
}

export function ageMs(intent: Intent, now: number = Date.now()): number {
  return now - Date.parse(intent.createdAt);
}
