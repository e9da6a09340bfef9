// What a server's answer means: an order status (CONTRACT.md, Tolerance), a ping's facts. Apart from
// schemas.ts so that code which only reads them, such as the verbs' definitions, does not pull zod into
// the start-up chunk.

export type OrderOutcome = 'completed' | 'failed' | 'in_progress';

const FAILED_STATUSES = new Set(['failed', 'cancelled', 'canceled', 'rejected', 'expired', 'refunded', 'error']);

export function orderOutcome(status: string): OrderOutcome {
  const normal = status.trim().toLowerCase();
  if (normal === 'completed') return 'completed';
  if (FAILED_STATUSES.has(normal)) return 'failed';
  return 'in_progress';
}

/** The environment and reseller of a ping, whichever spelling the server used. */
export function pingFacts(ping: { environment?: string | undefined; resellerId?: string | undefined; reseller_id?: string | undefined }): {
  environment: string;
  resellerId: string;
} {
  return { environment: ping.environment ?? 'unknown', resellerId: ping.resellerId ?? ping.reseller_id ?? 'unknown' };
}
