// The intent file's shape, checked when the journal is read: a damaged file is reported, never trusted.
import { z } from 'zod';
import { INTENT_VERSION, type Intent } from './intent.js';

const ownerSchema = z.object({ pid: z.number().int(), start: z.string().optional(), host: z.string() });

const outSchema = z.object({ path: z.string(), format: z.enum(['csv', 'json', 'jsonl']).optional(), force: z.boolean(), csvRaw: z.boolean() });

export const intentSchema: z.ZodType<Intent> = z.object({
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
  delivering: z.object({ temp: z.string() }).optional(),
});
