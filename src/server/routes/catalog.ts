import type { Route } from '../context.js';
import { jsonReply } from '../http.js';
import { listPage, parseCursor, parseLimit } from '../pagination.js';

export const CATALOG_DEFAULT_LIMIT = 10;

export const catalogRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/catalog$/,
  auth: true,
  handler: ({ query, caller, deps: { store } }) => {
    const limit = parseLimit(query, CATALOG_DEFAULT_LIMIT);
    const total = store.products.length;
    const offset = parseCursor(query, 'catalog', total);
    const page = listPage('catalog', total, offset, limit, (from, count) =>
      store.products.slice(from, from + count).map((p) => ({
        id: p.id,
        object: 'product' as const,
        name: p.name,
        brand: p.brand,
        price: { amount: p.price, currency: p.currency },
        available: store.available(caller, p),
      })),
    );
    return jsonReply(200, page);
  },
};
