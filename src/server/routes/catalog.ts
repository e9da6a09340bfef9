import type { Route } from '../context.js';

export const CATALOG_DEFAULT_LIMIT = 10;

export const catalogRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/catalog$/,
  auth: true,
  handler: ({ query, caller, deps: { store, dialect } }) =>
    dialect.list({
      kind: 'products',
      path: '/v1/catalog',
      query,
      scope: 'catalog',
      total: store.products.length,
      defaultLimit: CATALOG_DEFAULT_LIMIT,
      page: (from, count) =>
        store.products.slice(from, from + count).map((p) => ({
          id: p.id,
          object: 'product' as const,
          name: p.name,
          brand: p.brand,
          price: { amount: p.price, currency: p.currency },
          available: store.available(caller, p),
        })),
    }),
};
