// The durable floor of a plan: bare-orders.mjs's POSTs (same bodies, a fresh Idempotency-Key each,
// BENCH_CONCURRENCY at once on as many connections, undici) plus the least a client that survives a crash must
// do per row. Before its POST, a row appends one JSON line (its key, body, phase 'sending') to a log and waits
// for an fdatasync that covers it; after the answer it appends the answer (phase 'accepted', the order id) to
// the log and its record to a history line file named by the first two hex digits of the key's sha256, and is
// done once an fdatasync covers each. Group commit, as the CLI's journal log: one fdatasync in flight per file
// (fs.fdatasync, on libuv's thread pool), covering every line written before it began; the lines written while
// it runs wait for the next. A new file's directory is fsynced with its first fdatasync. No lock, no schema, no
// other process, no read-back. Bundled like the CLI. BENCH_URL, BENCH_KEY, BENCH_PRODUCT, BENCH_DIR (an empty
// directory: intent.log and history/ are made in it); prints how many orders were created.
import { createHash, randomUUID } from 'node:crypto';
import { closeSync, constants, fdatasync, fsync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

setFlagsFromString('--liftoff-only');
Object.assign(Dispatcher.prototype, { request });

const rows = Number(process.env.BENCH_ROWS);
const concurrency = Number(process.env.BENCH_CONCURRENCY);
const pool = new Pool(new URL(process.env.BENCH_URL).origin, { connections: concurrency });
const dir = process.env.BENCH_DIR;
const historyDir = join(dir, 'history');
mkdirSync(historyDir, { mode: 0o700 });
const APPEND = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND;

const syncFd = (fd, sync) => new Promise((resolve, reject) => sync(fd, (error) => (error ? reject(error) : resolve())));

/** One append-only file and its group commit: append() settles once an fdatasync that began after the line returned. */
class GroupFile {
  written = 0;
  durable = 0;
  syncing = false;
  waiters = [];
  failure = undefined;

  constructor(file, dirFd) {
    this.fd = openSync(file, APPEND, 0o600);
    /** A directory to fsync with the first fdatasync, so that the new file's name survives a crash too. */
    this.dirFd = dirFd;
  }

  append(line) {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const bytes = Buffer.from(line, 'utf8');
    for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done);
    const seq = ++this.written;
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq, resolve, reject });
      this.kick();
    });
  }

  kick() {
    if (this.syncing || this.failure !== undefined || this.durable >= this.written) return;
    this.syncing = true;
    const upTo = this.written;
    void (async () => {
      try {
        await syncFd(this.fd, fdatasync);
        if (this.dirFd !== undefined) await syncFd(this.dirFd, fsync);
        this.dirFd = undefined;
      } catch (error) {
        this.failure = error;
        for (const waiter of this.waiters) waiter.reject(error);
        this.waiters = [];
        return;
      }
      this.syncing = false;
      this.durable = upTo;
      const still = [];
      for (const waiter of this.waiters) {
        if (waiter.seq <= upTo) waiter.resolve();
        else still.push(waiter);
      }
      this.waiters = still;
      this.kick();
    })();
  }
}

const dirFd = openSync(dir, 'r');
const historyDirFd = openSync(historyDir, 'r');
const log = new GroupFile(join(dir, 'intent.log'), dirFd);
/** The history's line files, by the two hex digits that name them, opened as they are first needed and kept open. */
const history = new Map();
const historyOf = (key) => {
  const xx = createHash('sha256').update(key).digest('hex').slice(0, 2);
  let file = history.get(xx);
  if (file === undefined) history.set(xx, (file = new GroupFile(join(historyDir, `${xx}.jsonl`), historyDirFd)));
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
