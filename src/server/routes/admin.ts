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

/** How many order requests `--hold` keeps in progress right now: a test waits for its request to be held. */
export const heldRoute: Route = {
  method: 'GET',
  pattern: /^\/_admin\/held$/,
  auth: false,
  handler: ({ deps }) => jsonReply(200, { held: deps.holds.count }),
};

/** Ends every `--hold` now: the held requests go on at once, as if their time had run out. */
export const releaseRoute: Route = {
  method: 'POST',
  pattern: /^\/_admin\/release$/,
  auth: false,
  handler: ({ deps }) => jsonReply(200, { released: deps.holds.release() }),
};
