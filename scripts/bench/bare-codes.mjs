// The floor of `giftcodes codes get <order> --out codes.csv`: the same pages of codes fetched with undici
// (the largest page, following next_cursor), each body read and thrown away. Bundled like the CLI.
// BENCH_URL, BENCH_KEY, BENCH_ORDER; prints the pages and bytes read.
import { keepLlhttpAtBaseline } from './llhttp-baseline.mjs';
import request from 'undici/lib/api/api-request.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

keepLlhttpAtBaseline();

Object.assign(Dispatcher.prototype, { request });

const client = new Client(new URL(process.env.BENCH_URL).origin);
const path = `/v1/orders/${encodeURIComponent(process.env.BENCH_ORDER)}/codes?limit=1000`;
const headers = { 'x-api-key': process.env.BENCH_KEY };
let cursor;
let pages = 0;
let bytes = 0;
do {
  const { statusCode, body } = await client.request({
    path: cursor === undefined ? path : `${path}&cursor=${encodeURIComponent(cursor)}`,
    method: 'GET',
    headers,
  });
  // Only the last two chunks are kept: the cursor is at the end of the body, possibly across a chunk boundary.
  let previous = Buffer.alloc(0);
  let last = Buffer.alloc(0);
  for await (const chunk of body) {
    bytes += chunk.length;
    previous = last;
    last = chunk;
  }
  const tail = Buffer.concat([previous, last]).subarray(-512).toString('latin1');
  if (statusCode !== 200) throw new Error(`GET ${path} answered ${statusCode}: ${tail}`);
  const next = /"next_cursor":(?:"([^"]*)"|null)\}\s*$/.exec(tail);
  if (!next) throw new Error(`page ${pages + 1} ends without a next_cursor: …${tail.slice(-80)}`);
  cursor = next[1];
  pages++;
} while (cursor !== undefined);
process.stdout.write(`${pages} pages, ${bytes} bytes\n`);
process.exit(0);
