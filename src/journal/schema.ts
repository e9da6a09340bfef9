// The intent file's shape, checked when the journal is read: a damaged file is reported, never trusted.
// zod/mini, as in api/schemas.ts: the journal is read by every order command.
import * as z from 'zod/mini';
import { INTENT_VERSION, type Intent } from './intent.js';

const ownerSchema = z.object({ pid: z.int(), start: z.optional(z.string()), host: z.string() });

const outSchema = z.object({ path: z.string(), format: z.optional(z.enum(['csv', 'json', 'jsonl'])), force: z.boolean(), csvRaw: z.boolean() });

export const intentSchema: z.ZodMiniType<Intent> = z.object({
  version: z.literal(INTENT_VERSION),
  key: z.string().check(z.minLength(1)),
  profile: z.string(),
  environment: z.enum(['test', 'live']),
  baseUrl: z.string(),
  /** A short hash of the API key: tells keys apart without storing one. */
  keyId: z.string(),
  productId: z.string(),
  quantity: z.int(),
  /** The exact request body, resent byte for byte. */
  body: z.string(),
  fingerprint: z.string(),
  /** `sending`: the POST may or may not have reached the server. `placed`: the server answered with an order. */
  phase: z.enum(['sending', 'placed']),
  createdAt: z.string(),
  updatedAt: z.string(),
  owner: ownerSchema,
  orderId: z.optional(z.string()),
  status: z.optional(z.string()),
  wait: z.optional(z.boolean()),
  out: z.optional(outSchema),
  delivering: z.optional(z.object({ temp: z.string() })),
});
