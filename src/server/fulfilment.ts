// Orders move pending -> processing (at half of fulfilAfter) -> completed or failed (at fulfilAfter).
// Status is computed from the clock; one timer over a FIFO queue settles terminal orders
// (refund, webhook) without anyone polling, since every order takes the same time.
import type { Order } from './store.js';

export type OrderStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface OrderView {
  id: string;
  object: 'order';
  status: OrderStatus;
  product_id: string;
  quantity: number;
  environment: 'test' | 'live';
  amount: { amount: number; currency: string };
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  failure_reason: string | null;
}

export class Fulfilment {
  private queue: Order[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly fulfilAfterMs: number,
    private readonly onSettled: (order: Order, view: OrderView) => void,
  ) {}

  terminalAt(order: Order): number {
    return order.createdAt + this.fulfilAfterMs;
  }

  status(order: Order, now = Date.now()): OrderStatus {
    const elapsed = now - order.createdAt;
    if (elapsed >= this.fulfilAfterMs) return order.failureReason === null ? 'completed' : 'failed';
    return elapsed >= this.fulfilAfterMs / 2 ? 'processing' : 'pending';
  }

  /** The order as the API shows it; settles it first when it has become terminal. */
  view(order: Order, now = Date.now()): OrderView {
    const status = this.status(order, now);
    if (!order.settled && (status === 'completed' || status === 'failed')) this.settle(order);
    return this.render(order, status);
  }

  private render(order: Order, status: OrderStatus): OrderView {
    const created = new Date(order.createdAt).toISOString();
    const updated =
      status === 'pending'
        ? created
        : status === 'processing'
          ? new Date(order.createdAt + this.fulfilAfterMs / 2).toISOString()
          : new Date(this.terminalAt(order)).toISOString();
    return {
      id: order.id,
      object: 'order',
      status,
      product_id: order.product.id,
      quantity: order.quantity,
      environment: order.environment,
      amount: { amount: order.amount, currency: order.product.currency },
      created_at: created,
      updated_at: updated,
      completed_at: status === 'completed' ? updated : null,
      failure_reason: status === 'failed' ? order.failureReason : null,
    };
  }

  /** Queues a new order for settlement at its terminal time. */
  track(order: Order): void {
    if (this.stopped) return;
    this.queue.push(order);
    if (this.timer === undefined) this.schedule();
  }

  /** Forgets queued orders (admin reset) but keeps running. */
  clear(): void {
    this.cancelTimer();
    this.queue = [];
    this.head = 0;
  }

  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private settle(order: Order): void {
    order.settled = true;
    this.onSettled(order, this.render(order, this.status(order, this.terminalAt(order))));
  }

  private schedule(): void {
    const next = this.queue[this.head];
    if (next === undefined) return;
    const delay = Math.max(0, this.terminalAt(next) - Date.now());
    this.timer = setTimeout(() => this.drain(), delay);
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Settles every order whose time has come, now rather than at the next timer tick. */
  settleDue(): void {
    this.cancelTimer();
    this.drain();
  }

  private drain(): void {
    this.timer = undefined;
    const now = Date.now();
    for (let o = this.queue[this.head]; o !== undefined && this.terminalAt(o) <= now; o = this.queue[this.head]) {
      this.head++;
      if (!o.settled) this.settle(o);
    }
    // Drop the settled prefix once it dominates, so the queue does not grow forever.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.schedule();
  }
}
