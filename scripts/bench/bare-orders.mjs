// The floor of a plan: the same POST /v1/orders a plan of BENCH_ROWS rows sends (product, quantity 1..3, a
// fresh Idempotency-Key each), BENCH_CONCURRENCY at once on as many connections, with undici and no journal.
// Bundled like the CLI. BENCH_URL, BENCH_KEY, BENCH_PRODUCT; prints how many orders were created.
import { randomUUID } from 'node:crypto';
import { keepLlhttpAtBaseline } from './llhttp-baseline.mjs';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

keepLlhttpAtBaseline();

Object.assign(Dispatcher.prototype, { request });

const rows = Number(process.env.BENCH_ROWS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(new URL(process.env.BENCH_URL).origin, { connections: concurrency });
let next = 0;
let created = 0;

async function worker() {
  while (next < rows) {
    const row = next++;
    const { statusCode, body } = await pool.request({
      path: '/v1/orders',
      method: 'POST',
      headers: {
        'x-api-key': process.env.BENCH_KEY,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ product_id: process.env.BENCH_PRODUCT, quantity: (row % 3) + 1 }),
    });
    const text = await body.text();
    if (statusCode !== 201) throw new Error(`POST /v1/orders (row ${row + 1}) answered ${statusCode}: ${text}`);
    if (typeof JSON.parse(text).id !== 'string')
      throw new Error(`POST /v1/orders (row ${row + 1}) answered no order id: ${text}`);
    created++;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${created} orders\n`);
process.exit(0);
