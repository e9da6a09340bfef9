// The parts of undici the transport uses, in one module: the proxy-aware agent (or, with no proxy set, the plain
// agent under it), the pool and client it builds per origin (the transport wraps their connector), how a response's
// headers are read (for the export's pages, read by handler callbacks: transport.ts requestWhole), and the two
// request methods undici's index would put on Dispatcher.prototype: request(), and connect(), which the proxy agent
// calls on its proxy client to open a tunnel (stream, pipeline and upgrade are never loaded). scripts/build.mjs
// builds it on its own, as dist/undici.cjs, which transport.ts compiles with its V8 code cache (loadUndici).
import connect from 'undici/lib/api/api-connect.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import request from 'undici/lib/api/api-request.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import EnvHttpProxyAgent from 'undici/lib/dispatcher/env-http-proxy-agent.js';
import Pool from 'undici/lib/dispatcher/pool.js';
import { parseHeaders } from 'undici/lib/core/util.js';

Object.assign(Dispatcher.prototype, { request, connect });

export { Agent, Client, EnvHttpProxyAgent, Pool, parseHeaders };
