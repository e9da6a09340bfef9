// Test-only routes, served only when the server runs with `admin`.
import type { Route } from '../context.js';
import { jsonReply } from '../http.js';

export const ledgerRoute: Route = {
  method: 'GET',
  pattern: /^\/_admin\/ledger$/,
  auth: false,
  handler: ({ deps }) => {
    deps.fulfilment.settleDue();
    return jsonReply(200, deps.store.ledgerView());
  },
};

export const resetRoute: Route = {
  method: 'POST',
  pattern: /^\/_admin\/reset$/,
  auth: false,
  handler: ({ deps }) => {
    deps.fulfilment.clear();
    deps.idempotency.clear();
    deps.store.reset();
    return jsonReply(200, { status: 'reset' });
  },
};
