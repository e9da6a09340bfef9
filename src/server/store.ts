// In-memory state: keys, wallets, supply, orders and the ledger of charges.
import { randomUUID } from 'node:crypto';
import type { Environment, Seed, SeedProduct } from './seed.js';
// Money as a person reads it (25.00 USD): a pure helper with no client state, shared with the CLI's messages.
import { spokenMoney } from '../money.js';
import { grouped } from '../output/words.js';

export interface Caller {
  resellerId: string;
  environment: Environment;
}

export interface Order {
  id: string;
  resellerId: string;
  environment: Environment;
  product: SeedProduct;
  quantity: number;
  /** price * quantity, minor units of product.currency. */
  amount: number;
  idempotencyKey: string;
  createdAt: number;
  /** Decided at placement: the order will end `failed` with this reason. */
  failureReason: string | null;
  /** Terminal side effects (refund, webhook) done. */
  settled: boolean;
  /** A failed live order gave its money and supply back. */
  refunded: boolean;
}

export interface LedgerEntry {
  order_id: string;
  reseller_id: string;
  environment: Environment;
  product_id: string;
  quantity: number;
  amount: { amount: number; currency: string };
  idempotency_key: string;
  created_at: string;
  /** A failed live order gives its money and supply back. */
  refunded: boolean;
}

export type PlaceResult =
  { ok: true; order: Order } | { ok: false; code: 'insufficient_funds' | 'insufficient_supply'; message: string };

export class Store {
  readonly products: readonly SeedProduct[];
  private readonly productById = new Map<string, SeedProduct>();
  private readonly keys = new Map<string, Caller>();
  private wallets = new Map<string, Map<string, number>>();
  private supply = new Map<string, Map<string, number>>();
  private orders = new Map<string, Order>();
  /** Every order placed, in order: the ledger is a view of it. */
  private placed: Order[] = [];

  constructor(private readonly seed: Seed) {
    this.products = seed.products;
    for (const p of seed.products) this.productById.set(p.id, p);
    for (const r of seed.resellers) {
      for (const k of r.keys.test) this.keys.set(k, { resellerId: r.id, environment: 'test' });
      for (const k of r.keys.live) this.keys.set(k, { resellerId: r.id, environment: 'live' });
    }
    this.reset();
  }

  /** Back to the seed: balances, supply, no orders. */
  reset(): void {
    this.wallets = new Map();
    this.supply = new Map();
    for (const r of this.seed.resellers) {
      this.wallets.set(r.id, new Map(Object.entries(r.wallet)));
      const s = new Map<string, number>();
      for (const p of this.seed.products) s.set(p.id, r.supply[p.id] ?? p.supply);
      this.supply.set(r.id, s);
    }
    this.orders = new Map();
    this.placed = [];
  }

  authenticate(key: string): Caller | undefined {
    return this.keys.get(key);
  }

  product(id: string): SeedProduct | undefined {
    return this.productById.get(id);
  }

  /** Whether the caller could order at least one unit now. */
  available(caller: Caller, product: SeedProduct): boolean {
    if (caller.environment === 'test') return true;
    return (this.supply.get(caller.resellerId)?.get(product.id) ?? 0) > 0;
  }

  order(id: string): Order | undefined {
    return this.orders.get(id);
  }

  /** Creates the order and, in live, debits wallet and supply in the same synchronous step. */
  place(
    caller: Caller,
    product: SeedProduct,
    quantity: number,
    idempotencyKey: string,
    failureReason: string | null,
  ): PlaceResult {
    const amount = product.price * quantity;
    if (caller.environment === 'live') {
      const supply = this.supply.get(caller.resellerId);
      const wallet = this.wallets.get(caller.resellerId);
      const units = supply?.get(product.id) ?? 0;
      const balance = wallet?.get(product.currency) ?? 0;
      if (units < quantity) {
        return {
          ok: false,
          code: 'insufficient_supply',
          message: `only ${grouped(units)} units of ${product.id} are available`,
        };
      }
      if (balance < amount) {
        return {
          ok: false,
          code: 'insufficient_funds',
          message: `the order costs ${spokenMoney(amount, product.currency)} and the wallet holds ${spokenMoney(balance, product.currency)}`,
        };
      }
      supply?.set(product.id, units - quantity);
      wallet?.set(product.currency, balance - amount);
    }
    const order: Order = {
      // randomUUID draws from a cached entropy pool: cheaper per order than randomBytes.
      id: `ord_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      resellerId: caller.resellerId,
      environment: caller.environment,
      product,
      quantity,
      amount,
      idempotencyKey,
      createdAt: Date.now(),
      failureReason,
      settled: false,
      refunded: false,
    };
    this.orders.set(order.id, order);
    this.placed.push(order);
    return { ok: true, order };
  }

  /** Gives a failed live order's money and supply back, once. */
  refund(order: Order): void {
    if (order.environment !== 'live' || order.refunded) return;
    order.refunded = true;
    const wallet = this.wallets.get(order.resellerId);
    const supply = this.supply.get(order.resellerId);
    wallet?.set(order.product.currency, (wallet.get(order.product.currency) ?? 0) + order.amount);
    supply?.set(order.product.id, (supply.get(order.product.id) ?? 0) + order.quantity);
  }

  ledgerView(): {
    orders: LedgerEntry[];
    wallets: Record<string, Record<string, number>>;
    supply: Record<string, Record<string, number>>;
  } {
    const plain = (m: Map<string, Map<string, number>>) =>
      Object.fromEntries([...m].map(([k, inner]) => [k, Object.fromEntries(inner)]));
    const orders = this.placed.map((o): LedgerEntry => ({
      order_id: o.id,
      reseller_id: o.resellerId,
      environment: o.environment,
      product_id: o.product.id,
      quantity: o.quantity,
      amount: { amount: o.amount, currency: o.product.currency },
      idempotency_key: o.idempotencyKey,
      created_at: new Date(o.createdAt).toISOString(),
      refunded: o.refunded,
    }));
    return { orders, wallets: plain(this.wallets), supply: plain(this.supply) };
  }
}
