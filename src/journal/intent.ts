// An order intent: everything needed to place the same order again, byte for byte, after a crash.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { KeyEnvironment } from '../secrets.js';

export const INTENT_VERSION = 1;

/** After this long the server may have forgotten the idempotency key: never resumed silently. */
export const INTENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;

const ownerSchema = z.object({ pid: z.number().int(), start: z.string().optional(), host: z.string() });

const outSchema = z.object({ path: z.string(), format: z.enum(['csv', 'json', 'jsonl']).optional(), force: z.boolean(), csvRaw: z.boolean() });

export const intentSchema = z.object({
  version: z.literal(INTENT_VERSION),
  key: z.string().min(1),
  profile: z.string(),
  environment: z.enum(['test', 'live']),
  baseUrl: z.string(),
  /** A short hash of the API key: tells keys apart without storing one. */
  keyId: z.string(),
  productId: z.string(),
  quantity: z.number().int(),
  /** The exact request body, resent byte for byte. */
  body: z.string(),
  fingerprint: z.string(),
  /** `sending`: the POST may or may not have reached the server. `placed`: the server answered with an order. */
  phase: z.enum(['sending', 'placed']),
  createdAt: z.string(),
  updatedAt: z.string(),
  owner: ownerSchema,
  orderId: z.string().optional(),
  status: z.string().optional(),
  wait: z.boolean().optional(),
  out: outSchema.optional(),
});

export type Intent = z.infer<typeof intentSchema>;
export type OutSpec = z.infer<typeof outSchema>;

export interface OrderSpec {
  profile: string;
  environment: KeyEnvironment;
  baseUrl: string;
  keyId: string;
  productId: string;
  quantity: number;
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

export function sameOrder(intent: Intent, spec: OrderSpec): boolean {
  return (
    intent.productId === spec.productId &&
    intent.quantity === spec.quantity &&
    intent.profile === spec.profile &&
    intent.environment === spec.environment &&
    intent.baseUrl === spec.baseUrl &&
    intent.keyId === spec.keyId
  );
}

export function ageMs(intent: Intent, now: number = Date.now()): number {
  return now - Date.parse(intent.createdAt);
}
