// The request pipeline: faults, routing (404/405), authentication, the route, errors as JSON.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ctx, Deps, Route } from './context.js';
import type { Faults } from './faults.js';
import type { Reply } from './http.js';
import { HttpError, errorReply, send } from './http.js';
import { heldRoute, ledgerRoute, releaseRoute, resetRoute } from './routes/admin.js';
import { catalogRoute } from './routes/catalog.js';
import { codesRoute } from './routes/codes.js';
import { getOrderRoute, placeOrderRoute } from './routes/orders.js';
import { pingRoute } from './routes/ping.js';
import { API_KEY_PATTERN } from './seed.js';
import type { Caller } from './store.js';

export function routes(admin: boolean): Route[] {
  const api = [pingRoute, catalogRoute, placeOrderRoute, getOrderRoute, codesRoute];
  return admin ? [...api, ledgerRoute, resetRoute, heldRoute, releaseRoute] : api;
}

const NO_CALLER: Caller = { resellerId: '', environment: 'test' };
// Most requests have no query string; routes only read it, so one empty instance serves them all.
const NO_QUERY = new URLSearchParams();

function authenticate(req: IncomingMessage, deps: Deps): Caller | Reply {
  const key = req.headers['x-api-key'];
  if (key === undefined || key === '') {
    return errorReply(401, 'invalid_api_key', 'the X-API-Key header is missing');
  }
  if (typeof key !== 'string' || !API_KEY_PATTERN.test(key)) {
    // Each cause its own words: a key with the right prefix is not told what its prefix should be.
    const prefixed = typeof key === 'string' && /^sc_(test|live)_/.test(key);
    return errorReply(
      401,
      'invalid_api_key',
      prefixed
        ? 'the API key is malformed: after its prefix come 16 to 240 letters, digits or _'
        : 'the API key is malformed; keys start with sc_test_ or sc_live_',
    );
  }
  return deps.store.authenticate(key) ?? errorReply(401, 'invalid_api_key', 'the API key is not recognised');
}

export function createHandler(deps: Deps, faults: Faults): (req: IncomingMessage, res: ServerResponse) => void {
  const table = routes(deps.opts.admin);
  const log = deps.opts.log;

  async function dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    search: string,
  ): Promise<Reply | null> {
    if (faults.active && !path.startsWith('/_admin/')) {
      const fault = await faults.apply();
      if (fault !== null) return fault;
    }
    let route: Route | undefined;
    const allowed: string[] = [];
    const params: string[] = [];
    for (const r of table) {
      const m = r.pattern.exec(path);
      if (m === null) continue;
      allowed.push(r.method);
      if (r.method === req.method) {
        route = r;
        params.push(...m.slice(1).map((s) => s ?? ''));
        break;
      }
    }
    if (route === undefined) {
      if (allowed.length === 0) return errorReply(404, 'not_found', `no route ${path}`);
      return errorReply(405, 'method_not_allowed', `${req.method ?? ''} is not allowed on ${path}`, {
        Allow: allowed.join(', '),
      });
    }
    let caller = NO_CALLER;
    if (route.auth) {
      const auth = authenticate(req, deps);
      if ('status' in auth) return auth;
      caller = auth;
    }
    const ctx: Ctx = { req, res, query: search === '' ? NO_QUERY : new URLSearchParams(search), params, caller, deps };
    return route.handler(ctx);
  }

  return (req, res) => {
    const started = log === undefined ? 0 : performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (log !== undefined) {
      res.once('close', () => {
        const status = res.writableFinished ? String(res.statusCode) : 'dropped';
        log(`${req.method ?? '-'} ${path} ${status} ${Math.round(performance.now() - started)}ms`);
      });
    }
    dispatch(req, res, path, q < 0 ? '' : url.slice(q + 1)).then(
      (reply) => {
        if (reply !== null) send(res, deps.dialect.render(reply));
      },
      (e: unknown) => {
        if (e instanceof HttpError) {
          send(res, deps.dialect.render(e.reply));
          return;
        }
        log?.(`internal error: ${e instanceof Error ? e.message : String(e)}`);
        send(res, deps.dialect.render(errorReply(500, 'internal_error', 'the server hit an unexpected error')));
      },
    );
  };
}
