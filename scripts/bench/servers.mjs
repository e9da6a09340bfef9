// Child processes that serve HTTP for the benchmark: the reference server and the bare yardstick.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';

/** Spawns `argv` and resolves once it prints "listening on <url>"; `stop()` ends it. */
export function startListening(argv, { env = process.env, label = argv.join(' ') } = {}) {
  const proc = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: proc.stdout });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 10 s\n${stderr}`)), 10_000);
    proc.once('exit', (code) => reject(new Error(`${label} exited with ${code}\n${stderr}`)));
    lines.on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
  });
  return ready.then((url) => ({
    url,
    pid: proc.pid,
    stop: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  }));
}

/**
 * fetch, asked once more when the server closed an idle keep-alive socket just as fetch reused it: read as "other
 * side closed" (UND_ERR_SOCKET; Node 26's run of the bench died on it once, after its export figures), or met
 * while writing the request (EPIPE, ECONNRESET; Node 24's run died on EPIPE once, before its progress figure). The
 * same request again, idempotency key included.
 */
const CLOSED_UNDER_IT = new Set(['UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET']);

async function fetchAgain(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!CLOSED_UNDER_IT.has(error?.cause?.code)) throw error;
    return fetch(url, init);
  }
}

/** POST /v1/orders with a fresh idempotency key; resolves to the parsed order and the raw body. */
export async function placeOrder(url, key, productId, quantity) {
  const res = await fetchAgain(`${url}/v1/orders`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ product_id: productId, quantity }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /v1/orders answered ${res.status}: ${text}`);
  return { order: JSON.parse(text), text };
}

/** Polls GET /v1/orders/{id} until the order is completed. */
export async function waitCompleted(url, key, id) {
  for (let tries = 0; tries < 200; tries++) {
    const res = await fetchAgain(`${url}/v1/orders/${id}`, { headers: { 'X-API-Key': key } });
    const order = await res.json();
    if (order.status === 'completed') return order;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`order ${id} did not complete`);
}
