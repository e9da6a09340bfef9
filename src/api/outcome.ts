// What an order status means (CONTRACT.md, Tolerance). Apart from schemas.ts so that code which only
// reads a status, such as the verbs' definitions, does not pull zod into the start-up chunk.

export type OrderOutcome = 'completed' | 'failed' | 'in_progress';

const FAILED_STATUSES = new Set(['failed', 'cancelled', 'canceled', 'rejected', 'expired', 'refunded', 'error']);

export function orderOutcome(status: string): OrderOutcome {
  const normal = status.trim().toLowerCase();
  if (normal === 'completed') return 'completed';
  if (FAILED_STATUSES.has(normal)) return 'failed';
  return 'in_progress';
}
