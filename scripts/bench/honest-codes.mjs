// The honest floor of `giftcodes codes get <order> --out codes.csv`: the same pages fetched with undici
// (the largest page, following next_cursor), each body `JSON.parse`d and its codes written as the same CSV
// bytes the CLI writes for them (order_id, then code, then every other field flattened with dots, each money
// object with its display beside it; RFC 4180 cells, formula text prefixed with '). What a plain, careful
// script would do; the CLI's scanner of page bytes is judged against it (issue 33). Bundled like the CLI.
// BENCH_URL, BENCH_KEY, BENCH_ORDER, BENCH_OUT; prints the codes written.
import { openSync, writeSync, closeSync } from 'node:fs';
import { keepLlhttpAtBaseline } from './llhttp-baseline.mjs';
import request from 'undici/lib/api/api-request.js';
import Client from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';

keepLlhttpAtBaseline();

Object.assign(Dispatcher.prototype, { request });

const orderId = process.env.BENCH_ORDER;
const client = new Client(new URL(process.env.BENCH_URL).origin);
const path = `/v1/orders/${encodeURIComponent(orderId)}/codes?limit=1000`;
const headers = { 'x-api-key': process.env.BENCH_KEY };
const out = openSync(process.env.BENCH_OUT, 'w', 0o600);

/** Text that is its own cell: nothing to quote, nothing a spreadsheet would run. */
const PLAIN = /^(?:[^=+\-@\t\r",\n][^",\r\n]*)?$/;
const cell = (value) => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' && PLAIN.test(value)) return value;
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const fractionDigits = new Map();
const minor = (amount, currency) => {
  let digits = fractionDigits.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
    fractionDigits.set(currency, digits);
  }
  const sign = amount < 0 ? '-' : '';
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
};
const isMoney = (o) =>
  !('display' in o) &&
  Number.isSafeInteger(o.amount) &&
  typeof o.currency === 'string' &&
  /^[A-Za-z]{3}$/.test(o.currency);
/**
 * The columns of a record, each a path of keys read from every record: nested objects as a.b, a money
 * object's display after its own fields (order_id first, then code, then the rest as first seen).
 */
const columnsOf = (record) => {
  const found = [];
  const walk = (object, path, depth) => {
    for (const key of Object.keys(object)) {
      const value = object[key];
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) walk(value, [...path, key], depth + 1);
      else found.push({ name: [...path, key].join('.'), path: [...path, key] });
    }
    if (depth > 0 && isMoney(object)) found.push({ name: [...path, 'display'].join('.'), path, display: true });
  };
  walk(record, [], 0);
  return [
    { name: 'order_id', order: true },
    ...found.filter((c) => c.name === 'code'),
    ...found.filter((c) => c.name !== 'code' && c.name !== 'order_id'),
  ];
};
const read = (record, path) => {
  let value = record;
  for (const key of path) value = value?.[key];
  return value;
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
    if (columns === undefined) {
      // The columns of the first record: every code of these orders has the same fields.
      columns = columnsOf(record);
      chunk += `${columns.map((c) => cell(c.name)).join(',')}\r\n`;
    }
    let row = '';
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i];
      const value = c.order
        ? (record.order_id ?? orderId)
        : c.display
          ? (() => {
              const money = read(record, c.path);
              return isMoney(money) ? minor(money.amount, money.currency) : undefined;
            })()
          : read(record, c.path);
      row += i === 0 ? cell(value) : `,${cell(value)}`;
    }
    chunk += `${row}\r\n`;
    codes++;
  }
  writeSync(out, chunk);
  cursor = page.next_cursor ?? undefined;
} while (cursor !== undefined);
closeSync(out);
process.stdout.write(`${codes} codes\n`);
process.exit(0);
