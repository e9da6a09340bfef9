// The durable floor of a plan: bare-orders.mjs's POSTs (same bodies, a fresh Idempotency-Key each,
// BENCH_CONCURRENCY at once on as many connections, undici) plus the least a client that survives a crash must
// do per row. Before its POST, a row appends one JSON line (its key, body, phase 'sending') to a log and waits
// for an fdatasync that covers it; after the answer it appends the answer (phase 'accepted', the order id) to
// the log and its record to a history line file named by the first two hex digits of the key's sha256, and is
// done once an fdatasync covers each. Group commit, as the CLI's journal log: one fdatasync in flight per file
// (fs.fdatasync, on libuv's thread pool), covering every line written before it began; the lines written while
// it runs wait for the next. A new file's name is made durable the same way: one fsync of its directory in flight
// at a time, covering every file made before it began. No lock, no schema, no other process, no read-back. Bundled like the CLI. BENCH_URL, BENCH_KEY, BENCH_PRODUCT, BENCH_DIR (an empty
// directory: intent.log and history/ are made in it); prints how many orders were created.
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, fdatasync, fsync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { keepLlhttpAtBaseline } from './llhttp-baseline.mjs';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

keepLlhttpAtBaseline();

Object.assign(Dispatcher.prototype, { request });

const rows = Number(process.env.BENCH_ROWS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(new URL(process.env.BENCH_URL).origin, { connections: concurrency });
const dir = process.env.BENCH_DIR;
const historyDir = join(dir, 'history');
mkdirSync(historyDir, { mode: 0o700 });
const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

/**
 * Group commit on one descriptor: covered() settles once a sync (fdatasync of a file, fsync of a directory) that
 * began after the call returned. One sync in flight at a time; the calls made while it runs wait for the next.
 */
class GroupSync {
  asked = 0;
  done = 0;
  syncing = false;
  waiters = [];
  failure = undefined;

  constructor(fd, sync) {
    this.fd = fd;
    this.sync = sync;
  }

  covered() {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const seq = ++this.asked;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.kick();
    });
  }

  kick() {
    if (this.syncing || this.failure !== undefined || this.done >= this.asked) return;
    this.syncing = true;
    const upTo = this.asked;
    this.sync(this.fd, (error) => {
      this.syncing = false;
      if (error) {
        this.failure = error;
        for (const waiter of this.waiters) waiter.reject(error);
        this.waiters = [];
        return;
      }
      this.done = upTo;
      const still = [];
      for (const waiter of this.waiters) {
        if (waiter.seq <= upTo) waiter.resolve();
        else still.push(waiter);
      }
      this.waiters = still;
      this.kick();
    });
  }
}

/**
 * One append-only file: append() writes the line now and settles once an fdatasync covers it, and, for the
 * file's first lines, once an fsync of its directory covers its creation (shared with the other files made).
 */
class GroupFile {
  constructor(file, dirSync) {
    this.fd = openSync(file, APPEND, 0o600);
    this.data = new GroupSync(this.fd, fdatasync);
    this.entered = dirSync.covered().then(() => (this.entered = undefined));
  }

  append(line) {
    const bytes = Buffer.from(line, 'utf8');
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
    const data = this.data.covered();
    return this.entered === undefined ? data : Promise.all([data, this.entered]);
  }
}

const dirFd = openSync(dir, 'r');
const historyDirFd = openSync(historyDir, 'r');
const log = new GroupFile(join(dir, 'intent.log'), new GroupSync(dirFd, fsync));
const historyDirSync = new GroupSync(historyDirFd, fsync);
/** The history's line files, by the two hex digits that name them, opened as they are first needed and kept open. */
const history = new Map();
const historyOf = (key) => {
  const xx = createHash('sha256').update(key).digest('hex').slice(0, 2);
  let file = history.get(xx);
  if (file === undefined) history.set(xx, (file = new GroupFile(join(historyDir, `${xx}.jsonl`), historyDirSync)));
  return file;
};

let next = 0;
let created = 0;

async function worker() {
  while (next < rows) {
    const row = next++;
    const key = randomUUID();
    const body = JSON.stringify({ product_id: process.env.BENCH_PRODUCT, quantity: (row % 3) + 1 });
    await log.append(`${JSON.stringify({ key, body, phase: 'sending' })}\n`);
    const { statusCode, body: answer } = await pool.request({
      path: '/v1/orders',
      method: 'POST',
      headers: { 'x-api-key': process.env.BENCH_KEY, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
    const text = await answer.text();
    if (statusCode !== 201) throw new Error(`POST /v1/orders (row ${row + 1}) answered ${statusCode}: ${text}`);
    const order = JSON.parse(text);
    if (typeof order.id !== 'string') throw new Error(`POST /v1/orders (row ${row + 1}) answered no order id: ${text}`);
    const record = {
      key,
      orderId: order.id,
      productId: process.env.BENCH_PRODUCT,
      quantity: (row % 3) + 1,
      status: order.status,
      outcome: 'delivered',
      endedAt: new Date().toISOString(),
    };
    await Promise.all([
      log.append(`${JSON.stringify({ key, phase: 'accepted', orderId: order.id })}\n`),
      historyOf(key).append(`${JSON.stringify(record)}\n`),
    ]);
    created++;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
for (const file of [log, ...history.values()]) closeSync(file.fd);
for (const fd of [dirFd, historyDirFd]) closeSync(fd);
process.stdout.write(`${created} orders\n`);
process.exit(0);
