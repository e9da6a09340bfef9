import type { Route } from '../context.js';
import { jsonReply } from '../http.js';

export const pingRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/ping$/,
  auth: true,
  handler: ({ caller }) => jsonReply(200, { status: 'ok', environment: caller.environment, resellerId: caller.resellerId }),
};
