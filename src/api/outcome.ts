// What a server's answer means: an order status (docs/dialects.md), a ping's facts. Apart from
// schemas.ts so that code which only reads them, such as the verbs' definitions, does not pull zod into
// the start-up chunk.

export type OrderOutcome = 'completed' | 'failed' | 'in_progress';

const COMPLETED_STATUSES = new Set(['completed', 'complete']);
const FAILED_STATUSES = new Set([
  'failed',
  'cancelled',
  'canceled',
  'rejected',
  'expired',
  'refunded',
  'error',
  'declined',
]);

/**
 * The statuses an order has in openapi.yaml and those docs/dialects.md says other services send: order list --status
 * takes each before any order of the record has it (a --refresh may read it).
 */
export const ORDER_STATUSES: readonly string[] = ['pending', 'processing', ...COMPLETED_STATUSES, ...FAILED_STATUSES];

/** Any case; any other value is still in progress (and is shown as the service sent it). */
export function orderOutcome(status: string): OrderOutcome {
  const normal = status.trim().toLowerCase();
  if (COMPLETED_STATUSES.has(normal)) return 'completed';
  if (FAILED_STATUSES.has(normal)) return 'failed';
  return 'in_progress';
}

const TEST_NAMES = new Set(['test', 'sandbox', 'testing']);
const LIVE_NAMES = new Set(['live', 'production', 'prod']);

/** `test` or `live` for the names services use for them (any case); undefined for another name. */
export function environmentKind(name: string | undefined): 'test' | 'live' | undefined {
  const normal = (name ?? '').trim().toLowerCase();
  if (TEST_NAMES.has(normal)) return 'test';
  if (LIVE_NAMES.has(normal)) return 'live';
  return undefined;
}

/**
 * The environment and reseller of a ping, whichever spelling the server used. `environment` is `test` or
 * `live` where the name is one of theirs, else the name as sent (or `unknown`); `known` says which.
 */
export function pingFacts(ping: {
  environment?: string | undefined;
  resellerId?: string | undefined;
  reseller_id?: string | undefined;
}): {
  environment: string;
  known: boolean;
  resellerId: string;
} {
  const kind = environmentKind(ping.environment);
  return {
    environment: kind ?? ping.environment ?? 'unknown',
    known: kind !== undefined,
    resellerId: ping.resellerId ?? ping.reseller_id ?? 'unknown',
  };
}

/** How many codes an order is for, where it says so (`quantity`, also as a numeric string); else undefined. */
export function orderQuantity(order: Record<string, unknown>): number | undefined {
  // Only `quantity`: another count (items, units of a bundle) must never make a whole export look short.
  const raw = order.quantity;
  const n = typeof raw === 'string' && /^\d{1,9}$/.test(raw.trim()) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
