import type { Route } from '../context.js';

export const pingRoute: Route = {
  method: 'GET',
  pattern: /^\/v1\/ping$/,
  auth: true,
  handler: ({ caller, deps }) =>
    deps.dialect.resource('ping', { status: 'ok', environment: caller.environment, resellerId: caller.resellerId }),
};
