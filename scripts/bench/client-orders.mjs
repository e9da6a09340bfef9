// The plan's POSTs through the project's own API client, without the journal or the plan: BENCH_ROWS POST
// /v1/orders (product, quantity 1..3, a fresh Idempotency-Key each), BENCH_CONCURRENCY at once, through
// ApiClient.createOrder (its transport, deadline, retries and the order's parse). Beside bare-orders.mjs it is the
// API layer's own cost a request (BENCHMARKS.md, the twenty-sixth round). Not run by scripts/bench.mjs: bundle it
// with bundle.mjs's bundleBare (it imports the TypeScript source) and run it as bare-orders.mjs is run.
// BENCH_URL, BENCH_KEY, BENCH_PRODUCT; prints how many orders were created.
import { randomUUID } from 'node:crypto';
import { ApiClient } from '../../src/api/client.ts';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.ts';

const rows = Number(process.env.BENCH_ROWS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const api = new ApiClient({
  baseUrl: process.env.BENCH_URL,
  apiKey: process.env.BENCH_KEY,
  requestTimeoutMs: 30_000,
  retry: { ...DEFAULT_RETRY_POLICY, retries: 3 },
});
let next = 0;
let created = 0;

async function worker() {
  while (next < rows) {
    const row = next++;
    const { order } = await api.createOrder(
      JSON.stringify({ product_id: process.env.BENCH_PRODUCT, quantity: (row % 3) + 1 }),
      randomUUID(),
    );
    if (typeof order.id !== 'string') throw new Error(`POST /v1/orders (row ${row + 1}) answered no order id`);
    created++;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${created} orders\n`);
process.exit(0);
