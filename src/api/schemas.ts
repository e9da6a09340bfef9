// What the server sends, parsed once at the edge into the types the rest of the code uses.
// Tolerant: unknown fields are kept, ids may be numbers, envelopes vary (docs/dialects.md).
// Written out by hand, not with zod: each is a few fields, and loading zod cost every API command ~8 ms
// (BENCHMARKS.md, issue 23). They read as zod's looseObject did, which test/unit/schemas.test.ts holds them to.

export interface Ping {
  status: string;
  environment?: string | undefined;
  resellerId?: string | undefined;
  reseller_id?: string | undefined;
  [field: string]: unknown;
}

export interface Product {
  id: string;
  [field: string]: unknown;
}

export interface Order {
  id: string;
  status: string;
  [field: string]: unknown;
}

export type CodeRecord = Record<string, unknown>;

/** A field's check: its value as kept, or INVALID. */
type Field = (value: unknown) => unknown;

const INVALID = Symbol('invalid');

const text: Field = (value) => (typeof value === 'string' ? value : INVALID);
const nonEmptyText: Field = (value) => (typeof value === 'string' && value.length > 0 ? value : INVALID);
/** An id: a non-empty string, or a finite number, kept as a string. */
const id: Field = (value) =>
  (typeof value === 'string' && value.length > 0) || (typeof value === 'number' && Number.isFinite(value))
    ? String(value)
    : INVALID;
const optional =
  (field: Field): Field =>
  (value) =>
    value === undefined ? undefined : field(value);

export interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false };
}

/**
 * An object with these fields, others kept: a copy with the named fields first (in this order, each only when
 * present) and then the rest as they came, as zod's looseObject builds it.
 */
function looseObject<T>(fields: Record<string, Field>, required: readonly string[]): Schema<T> {
  const names = Object.keys(fields);
  return {
    safeParse(value) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return { success: false };
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const present = name in input;
        if (!present && !required.includes(name)) continue;
        const kept = (fields[name] as Field)(input[name]);
        if (kept === INVALID) return { success: false };
        out[name] = kept;
      }
      for (const name in input) if (!Object.hasOwn(fields, name)) out[name] = input[name];
      return { success: true, data: out as T };
    },
  };
}

/** Kept as the server sent it (--json prints it so); `pingFacts` reads it for people. */
export const pingSchema = looseObject<Ping>(
  { status: text, environment: optional(text), resellerId: optional(text), reseller_id: optional(text) },
  ['status'],
);

export const productSchema = looseObject<Product>({ id }, ['id']);

export const orderSchema = looseObject<Order>({ id, status: nonEmptyText }, ['id', 'status']);
