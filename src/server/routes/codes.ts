import { codeRecords, codeRecordsJson } from '../codes.js';
import type { Route } from '../context.js';
import { errorReply } from '../http.js';
import { ownOrder } from './orders.js';

export const CODES_DEFAULT_LIMIT = 1000;

export const codesRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/orders\/([^/]+)\/codes$/,
  auth: true,
  handler: (ctx) => {
    const order = ownOrder(ctx);
    const { fulfilment, liveSecret } = ctx.deps;
    const status = fulfilment.view(order).status;
    if (status === 'failed') return errorReply(409, 'order_failed', 'the order failed; it has no codes');
    if (status !== 'completed') {
      return errorReply(
        409,
        'order_not_completed',
        `the order is ${status}; its codes can be fetched once it is completed`,
      );
    }
    return ctx.deps.dialect.list({
      kind: 'codes',
      path: `/v1/orders/${encodeURIComponent(order.id)}/codes`,
      query: ctx.query,
      scope: `codes.${order.id}`,
      total: order.quantity,
      defaultLimit: CODES_DEFAULT_LIMIT,
      page: (from, count) => codeRecords(order, from, count, liveSecret),
      pageJson: (from, count) => codeRecordsJson(order, from, count, liveSecret),
    });
  },
};
