// The floor of `giftcodes ping`: one GET /v1/ping with undici and nothing else (no config, no options, no
// output formatting), bundled and minified like the CLI (scripts/bench/bundle.mjs). BENCH_URL, BENCH_KEY.
// It loads only the undici modules a request needs (its index brings fetch, WebSocket and caches, which the
// CLI does not load either), and keeps V8 from re-compiling llhttp in the background as the CLI does: exit
// would wait ~170 ms for that compile (BENCHMARKS.md, issue 13), and a floor that waits for it is no floor
// (llhttp-baseline.mjs, which every floor of scripts/bench calls first, after its imports).
import { keepLlhttpAtBaseline } from './llhttp-baseline.mjs';
import request from 'undici/lib/api/api-request.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

keepLlhttpAtBaseline();

Object.assign(Dispatcher.prototype, { request });

const client = new Client(new URL(process.env.BENCH_URL).origin);
const { statusCode, body } = await client.request({
  path: '/v1/ping',
  method: 'GET',
  headers: { 'x-api-key': process.env.BENCH_KEY },
});
const text = await body.text();
if (statusCode !== 200) {
  process.stderr.write(`GET /v1/ping answered ${statusCode}: ${text}\n`);
  process.exit(1);
}
process.stdout.write(`${text}\n`);
// As the CLI does: no wait for the keep-alive socket to close.
process.exit(0);
