// The server's answers are read by hand-written checks (src/api/schemas.ts) that replaced zod's looseObject
// to keep zod off every API command's start: they must accept, refuse and copy exactly as zod did.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { orderSchema, pingSchema, productSchema, type Schema } from '../../src/api/schemas.js';

// The schemas as they were written with zod before issue 23.
const idSchema = z.pipe(z.union([z.string().check(z.minLength(1)), z.number()]), z.transform(String));
const zodSchemas: Record<string, [Schema<unknown>, z.ZodMiniType]> = {
  ping: [
    pingSchema,
    z.looseObject({
      status: z.string(),
      environment: z.optional(z.string()),
      resellerId: z.optional(z.string()),
      reseller_id: z.optional(z.string()),
    }),
  ],
  product: [productSchema, z.looseObject({ id: idSchema })],
  order: [orderSchema, z.looseObject({ id: idSchema, status: z.string().check(z.minLength(1)) })],
};

/** The outcome as --json would print it: success, and the copy's own keys in order with their values. */
function outcome(result: { success: boolean; data?: unknown }): string {
  return result.success ? `ok ${JSON.stringify(Object.entries(result.data as object))}` : 'refused';
}

// JSON as a server could send it, with the fields' names (and a few awkward ones) more likely than others.
const key = fc.oneof(
  fc.constantFrom(
    'status',
    'environment',
    'resellerId',
    'reseller_id',
    'id',
    '__proto__',
    'constructor',
    '0',
    '10',
    'x',
  ),
  fc.string({ maxLength: 4 }),
);
const scalar = fc.oneof(
  fc.constantFrom('', 'ok', 'test', '0', -0, 0, 12, 1.5, -3, null, true, false),
  fc.string({ maxLength: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('value'), { maxLength: 2 }), tie('object')),
  object: fc.dictionary(key, tie('value'), { maxKeys: 6 }),
}));
// Through JSON text, as the client parses a body: "__proto__" becomes an own key, -0 stays -0.
const body = fc.oneof(value.object, value.value).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe('the answers are read as zod read them', () => {
  it.each(Object.keys(zodSchemas))(
    '%s: the same verdict and the same copy, key order included, on 3,000 generated bodies',
    (name) => {
      const [hand, zod] = zodSchemas[name] as [Schema<unknown>, z.ZodMiniType];
      fc.assert(
        fc.property(body, (input) => {
          expect(outcome(hand.safeParse(input))).toBe(outcome(zod.safeParse(input)));
        }),
        { numRuns: 3000 },
      );
    },
  );

  it.each([
    ['ping', { x: 1, status: 'ok', reseller_id: 'r', environment: 'test' }],
    ['ping', { status: 'ok', environment: null }],
    ['ping', ['ok']],
    ['ping', null],
    ['product', { id: 12, name: 'n' }],
    ['product', { id: '' }],
    ['order', { status: 'completed', id: 7, quantity: 3 }],
    ['order', { status: '', id: 'o' }],
    ['order', JSON.parse('{"id":"o","status":"s","__proto__":{"a":1}}') as unknown],
  ])('%s %j', (name, input) => {
    const [hand, zod] = zodSchemas[name] as [Schema<unknown>, z.ZodMiniType];
    expect(outcome(hand.safeParse(input))).toBe(outcome(zod.safeParse(input)));
  });
});
