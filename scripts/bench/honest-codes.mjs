// The honest floor of `giftcodes codes get <order> --out codes.csv`: the same pages fetched with undici
// (the largest page, following next_cursor), each body `JSON.parse`d and its codes written as the same CSV
// bytes the CLI writes for them (order_id, then code, then every other field flattened with dots, each money
// object with its display beside it; RFC 4180 cells, formula text prefixed with '). What a plain, careful
// script would do; the CLI's scanner of page bytes is judged against it (issue 33). Bundled like the CLI.
// BENCH_URL, BENCH_KEY, BENCH_ORDER, BENCH_OUT; prints the codes written.
import { openSync, writeSync, closeSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import request from 'undici/lib/api/api-request.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

setFlagsFromString('--liftoff-only');
Object.assign(Dispatcher.prototype, { request });

const orderId = process.env.BENCH_ORDER;
const client = new Client(new URL(process.env.BENCH_URL).origin);
const path = `/v1/orders/${encodeURIComponent(orderId)}/codes?limit=1000`;
const headers = { 'x-api-key': process.env.BENCH_KEY };
const out = openSync(process.env.BENCH_OUT, 'w', 0o600);

const cell = (value) => {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const minor = (amount, currency) => {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  const sign = amount < 0 ? '-' : '';
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
};
/** A record's cells by column name: nested objects as a.b, a money object's display after its own fields. */
const flatten = (record, cells, prefix = '', depth = 0) => {
  for (const key of Object.keys(record)) {
    const value = record[key];
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) flatten(value, cells, name, depth + 1);
    else cells.set(name, value);
  }
  if (
    depth > 0 &&
    !('display' in record) &&
    Number.isSafeInteger(record.amount) &&
    typeof record.currency === 'string' &&
    /^[A-Za-z]{3}$/.test(record.currency)
  )
    cells.set(`${prefix}.display`, minor(record.amount, record.currency));
};

let columns;
let cursor;
let codes = 0;
do {
  const { statusCode, body } = await client.request({
    path: cursor === undefined ? path : `${path}&cursor=${encodeURIComponent(cursor)}`,
    method: 'GET',
    headers,
  });
  const text = await body.text();
  if (statusCode !== 200) throw new Error(`GET ${path} answered ${statusCode}: ${text.slice(0, 200)}`);
  const page = JSON.parse(text);
  let chunk = '';
  for (const record of page.data) {
    const cells = new Map([['order_id', orderId]]);
    flatten(record, cells);
    if (columns === undefined) {
      // order_id, then code, then the rest as first seen: the columns of the first record (every code has the same fields here).
      columns = ['order_id', ...(cells.has('code') ? ['code'] : [])];
      for (const name of cells.keys()) if (!columns.includes(name)) columns.push(name);
      chunk += `${columns.map(cell).join(',')}\r\n`;
    }
    chunk += `${columns.map((name) => cell(cells.get(name))).join(',')}\r\n`;
    codes++;
  }
  writeSync(out, chunk);
  cursor = page.next_cursor ?? undefined;
} while (cursor !== undefined);
closeSync(out);
process.stdout.write(`${codes} codes\n`);
process.exit(0);
