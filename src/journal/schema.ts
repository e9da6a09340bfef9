// The intent file's shape, checked when the journal is read: a damaged file is reported, never trusted.
// zod/mini, as in api/schemas.ts: the journal is read by every order command.
import * as z from 'zod/mini';
import { EXPORT_FORMATS } from '../export/format.js';
import { INTENT_VERSION, type Intent } from './intent.js';

const ownerSchema = z.object({
  pid: z.int(),
  start: z.optional(z.string()),
  boot: z.optional(z.string()),
  host: z.optional(z.string()),
  machine: z.optional(z.string()),
  pidns: z.optional(z.string()),
});

const outSchema = z.object({
  path: z.string(),
  format: z.optional(z.enum(EXPORT_FORMATS)),
  force: z.boolean(),
  csvRaw: z.boolean(),
  encryptTo: z.optional(z.array(z.string())),
});

const fileSchema = z.object({
  orderId: z.string(),
  path: z.string(),
  dev: z.number(),
  ino: z.number(),
  size: z.number(),
  sha256: z.string(),
  count: z.optional(z.number()),
  format: z.optional(z.enum(EXPORT_FORMATS)),
  temp: z.optional(z.string()),
  renamed: z.optional(z.boolean()),
});

const intentV2Schema: z.ZodMiniType<Intent> = z.object({
  version: z.literal(INTENT_VERSION),
  key: z.string().check(z.minLength(1)),
  profile: z.string(),
  environment: z.enum(['test', 'live']),
  baseUrl: z.string(),
  /** A short hash of the API key: tells keys apart without storing one. */
  keyId: z.string(),
  resellerId: z.optional(z.string()),
  productId: z.string(),
  quantity: z.int(),
  /** The exact request body, resent byte for byte. */
  body: z.string(),
  fingerprint: z.string(),
  phase: z.enum(['prepared', 'sending', 'accepted', 'delivered']),
  createdAt: z.string(),
  updatedAt: z.string(),
  owner: ownerSchema,
  orderId: z.optional(z.string()),
  status: z.optional(z.string()),
  amount: z.optional(z.object({ amount: z.int(), currency: z.string() })),
  wait: z.optional(z.boolean()),
  out: z.optional(outSchema),
  keyGiven: z.optional(z.boolean()),
  plan: z.optional(z.string()),
  batch: z.optional(z.nullable(z.string())),
  planDir: z.optional(z.string()),
  keySince: z.optional(z.string()),
  files: z.optional(z.array(fileSchema)),
  leftBy: z.optional(z.array(z.object({ path: z.string(), pid: z.int() }))),
  resumedAt: z.optional(z.string()),
  resumedBy: z.optional(z.literal('order resume')),
  origin: z.optional(z.object({ out: z.optional(outSchema), wait: z.optional(z.boolean()) })),
});

/**
 * Version 1 intents (pending on users' disks when they upgrade) are read as version 2: `placed` is
 * `accepted`; `delivering` named only a temporary file, which proves nothing, so it is dropped and the
 * codes are written again; its owner keeps its host name, which liveness ignores.
 */
function fromVersion1(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const v = value as Record<string, unknown>;
  if (v.version !== 1) return value;
  const { delivering: _dropped, ...rest } = v;
  return { ...rest, version: INTENT_VERSION, phase: v.phase === 'placed' ? 'accepted' : v.phase };
}

export const intentSchema = {
  safeParse(value: unknown): { success: true; data: Intent } | { success: false } {
    const parsed = intentV2Schema.safeParse(fromVersion1(value));
    return parsed.success ? { success: true, data: parsed.data } : { success: false };
  },
};
