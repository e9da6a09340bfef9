// What the server sends, parsed once at the edge into the types the rest of the code uses.
// Tolerant: unknown fields are kept, ids may be numbers, envelopes vary (CONTRACT.md, Tolerance).
// zod/mini: the same validation as zod's chained API, at a quarter of the load time that every command
// talking to the API pays (BENCHMARKS.md).
import * as z from 'zod/mini';

const idSchema = z.pipe(z.union([z.string().check(z.minLength(1)), z.number()]), z.transform(String));

/** Kept as the server sent it (--json prints it so); `pingFacts` reads it for people. */
export const pingSchema = z.looseObject({
  status: z.string(),
  environment: z.optional(z.string()),
  resellerId: z.optional(z.string()),
  reseller_id: z.optional(z.string()),
});
export type Ping = z.output<typeof pingSchema>;

export const productSchema = z.looseObject({ id: idSchema });
export type Product = z.output<typeof productSchema>;

export const orderSchema = z.looseObject({ id: idSchema, status: z.string().check(z.minLength(1)) });
export type Order = z.output<typeof orderSchema>;

export type CodeRecord = Record<string, unknown>;
