// What the server sends, parsed once at the edge into the types the rest of the code uses.
// Tolerant: unknown fields are kept, ids may be numbers, envelopes vary (CONTRACT.md, Tolerance).
import { z } from 'zod';

const idSchema = z.union([z.string().min(1), z.number().finite()]).transform(String);

export const pingSchema = z
  .looseObject({
    status: z.string(),
    environment: z.string().optional(),
    resellerId: z.string().optional(),
    reseller_id: z.string().optional(),
  })
  .transform((ping) => ({
    ...ping,
    environment: ping.environment ?? 'unknown',
    resellerId: ping.resellerId ?? ping.reseller_id ?? 'unknown',
  }));
export type Ping = z.output<typeof pingSchema>;

export const productSchema = z.looseObject({ id: idSchema });
export type Product = z.output<typeof productSchema>;

export const orderSchema = z.looseObject({ id: idSchema, status: z.string().min(1) });
export type Order = z.output<typeof orderSchema>;

/** Orders may arrive bare or wrapped (`{"order":{…}}`, `{"data":{…}}`). */
export const orderEnvelopeSchema = z.union([
  orderSchema,
  z.object({ order: orderSchema }).transform((wrapped) => wrapped.order),
  z.object({ data: orderSchema }).transform((wrapped) => wrapped.data),
]);

export type CodeRecord = Record<string, unknown>;

export type OrderOutcome = 'completed' | 'failed' | 'in_progress';

const FAILED_STATUSES = new Set(['failed', 'cancelled', 'canceled', 'rejected', 'expired', 'refunded', 'error']);

export function orderOutcome(status: string): OrderOutcome {
  const normal = status.trim().toLowerCase();
  if (normal === 'completed') return 'completed';
  if (FAILED_STATUSES.has(normal)) return 'failed';
  return 'in_progress';
}
