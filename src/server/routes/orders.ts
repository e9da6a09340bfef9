// POST /v1/orders (idempotent placement) and GET /v1/orders/{id}.
import type { Ctx, Deps, OrderAnswer, Route } from '../context.js';
import type { Reply } from '../http.js';
import { errorReply, fail, readBody } from '../http.js';
import { fingerprint, parseIdempotencyKey } from '../idempotency.js';
import type { Order } from '../store.js';

export const MAX_QUANTITY = 1_000_000;
const FIELDS = new Set(['product_id', 'quantity']);

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

export const placeOrderRoute: Route = {
  method: 'POST',
  pattern: /^\/v1\/orders$/,
  auth: true,
  handler: async (ctx) => {
    const { req, caller, deps } = ctx;
    // Two Idempotency-Key headers name two keys (node would join them into a third): bind the order to none.
    if ((req.headersDistinct['idempotency-key']?.length ?? 0) > 1)
      return errorReply(400, 'idempotency_key_invalid', 'send one Idempotency-Key header, not several');
    const key = parseIdempotencyKey(headerValue(req.headers['idempotency-key']));
    if (!key.ok) return errorReply(400, key.code, key.message);
    const body = await readBody(req);
    if (!body.ok) return body.reply;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return errorReply(400, 'invalid_json', 'the request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return errorReply(400, 'invalid_request', 'the request body must be a JSON object');
    }
    const print = fingerprint(parsed);
    if (print === undefined) return errorReply(400, 'invalid_request', 'the request body nests too deeply');
    const scope = `${caller.resellerId}\n${caller.environment}\n${key.key}`;
    const claim = deps.idempotency.claim(scope, print);
    switch (claim.kind) {
      case 'reused':
        return errorReply(
          422,
          'idempotency_key_reused',
          'this Idempotency-Key was already used with a different request body',
        );
      case 'in_progress':
        return errorReply(
          409,
          'request_in_progress',
          'a request with this Idempotency-Key is still being processed; retry shortly',
        );
      case 'replay': {
        const original = answerReply(deps, claim.result);
        return { ...original, headers: { 'Idempotent-Replayed': 'true' } };
      }
      case 'new':
        break;
    }
    let answer: OrderAnswer;
    try {
      if (deps.opts.holdMs > 0) await deps.holds.hold(deps.opts.holdMs);
      answer = place(ctx, parsed as Record<string, unknown>, key.key);
    } catch (e) {
      // Nothing was committed: forget the key so a retry starts afresh (5xx are never replayed).
      deps.idempotency.release(scope);
      throw e;
    }
    deps.idempotency.finish(scope, answer);
    const reply = answerReply(deps, answer);
    if (reply.status < 300 && deps.opts.dropAfterCommit > 0 && Math.random() < deps.opts.dropAfterCommit) {
      req.socket.destroy();
      return null;
    }
    return reply;
  },
};

/** The reply for a stored answer: an order is rendered as it was when placed, so always the same bytes. */
function answerReply(deps: Deps, answer: OrderAnswer): Reply {
  return 'body' in answer
    ? answer
    : deps.dialect.resource('order', { ...deps.fulfilment.view(answer, answer.createdAt) }, deps.dialect.placedStatus);
}

/** Validates the order request and commits it; every answer here is stored for replay. */
function place({ caller, deps }: Ctx, body: Record<string, unknown>, idempotencyKey: string): OrderAnswer {
  for (const field of Object.keys(body)) {
    if (!FIELDS.has(field))
      return errorReply(
        400,
        'invalid_request',
        `unknown field ${JSON.stringify(field)}; expected product_id and quantity`,
      );
  }
  const { product_id: productId, quantity } = body;
  if (productId === undefined) return errorReply(400, 'invalid_request', 'product_id is required');
  if (typeof productId !== 'string' || productId === '')
    return errorReply(400, 'invalid_request', 'product_id must be a non-empty string');
  if (quantity === undefined) return errorReply(400, 'invalid_request', 'quantity is required');
  if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return errorReply(400, 'invalid_quantity', `quantity must be an integer from 1 to ${MAX_QUANTITY}`);
  }
  const product = deps.store.product(productId);
  if (product === undefined)
    return errorReply(400, 'unknown_product', `no product has the id ${JSON.stringify(productId.slice(0, 100))}`);
  const failureReason =
    product.fail === true
      ? 'product_unavailable'
      : deps.opts.failOrders > 0 && Math.random() < deps.opts.failOrders
        ? 'fulfilment_failed'
        : null;
  const result = deps.store.place(caller, product, quantity, idempotencyKey, failureReason);
  if (!result.ok) return errorReply(422, result.code, result.message);
  deps.fulfilment.track(result.order);
  return result.order;
}

/** The caller's own order, else 404: another reseller's or environment's orders do not exist for it. */
export function ownOrder({ params, caller, deps }: Ctx): Order {
  const order = deps.store.order(params[0] ?? '');
  if (order === undefined || order.resellerId !== caller.resellerId || order.environment !== caller.environment) {
    fail(404, 'order_not_found', 'no order with this id exists for this key');
  }
  return order;
}

export const getOrderRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/orders\/([^/]+)$/,
  auth: true,
  handler: (ctx) => ctx.deps.dialect.resource('order', { ...ctx.deps.fulfilment.view(ownOrder(ctx)) }),
};
