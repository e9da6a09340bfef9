// `npm run bench`: the figures of issues 6 and 16, measured side by side in one run on this machine, each
// printed with its target and PASS or FAIL (exit 1 if any fails). Public tools only: child processes timed
// from here, getrusage for peak RSS, autocannon for load. Not part of `npm test`; a few minutes.
// BENCH_PAIRS (default 40) sets how many alternated pairs each start-up figure takes. BENCH_ONLY (a comma list
// of startup, ping, export, catalog, plan, load) runs only those sections.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, readSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { alternate } from './bench/alternate.mjs';
import { catalogSeed, writeJson } from './bench/catalog.mjs';
import { placeOrder, startListening, waitCompleted } from './bench/servers.mjs';
import { readMetafile, startupGraph } from './bench/startup-graph.mjs';
import { formatMs, median, summary } from './bench/stats.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'giftcodes');
const NODE = process.execPath;
const MAXRSS = join(ROOT, 'scripts', 'bench', 'maxrss.mjs');
const CPUTIME = join(ROOT, 'scripts', 'bench', 'cputime.mjs');
const METAFILE = join(ROOT, '.bench', 'esbuild-meta.json');
const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const TEST_KEY = 'sc_test_demo_4f3c9a1b7e2d';
const PRODUCT = 'amazon-us-25';
const PAIRS = Number(process.env.BENCH_PAIRS ?? 40);
/** Runs of each export and catalog figure (BENCH_ROUNDS, default 3); medians are judged. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((name) => name.trim())) : undefined;
const want = (section) => !ONLY || ONLY.has(section);

const scratch = mkdtempSync(join(os.tmpdir(), 'giftcodes-bench-'));
const configDir = join(scratch, 'config');
/** The CLI's environment: nothing of the developer's config or key. */
const cliEnv = { ...process.env, GIFTCODES_CONFIG_DIR: configDir };
for (const name of ['GIFTCODES_API_KEY', 'GIFTCODES_PROFILE', 'GIFTCODES_BASE_URL']) delete cliEnv[name];

const verdicts = [];
function verdict(figure, value, target, pass) {
  verdicts.push({ figure, value, target, pass });
  console.log(`  ${pass ? 'PASS' : 'FAIL'}  ${figure}: ${value}  (target ${target})`);
}

const node0 = { label: 'node -e 0', argv: [NODE, '-e', '0'] };
function giftcodes(args, check) {
  return { label: `giftcodes ${args.join(' ')}`, argv: [NODE, BIN, ...args], env: cliEnv, check };
}

/** One start-up figure: the command against bare Node, alternated, judged on the ratio of the medians. */
function startupFigure(command, limit) {
  const r = alternate(command, node0, { pairs: PAIRS });
  console.log(`  ${command.label.padEnd(22)} ${formatMs(r.a)}`);
  console.log(`  ${'node -e 0'.padEnd(22)} ${formatMs(r.b)}`);
  console.log(`  per-pair ratio: median ${r.medianPairRatio.toFixed(2)}, ${r.pairRatio.min.toFixed(2)}–${r.pairRatio.max.toFixed(2)}`);
  if (limit === undefined) console.log(`  info  ${command.label} / node -e 0: ${r.ratio.toFixed(2)}×  (no target)`);
  else verdict(`${command.label} / node -e 0`, `${r.ratio.toFixed(2)}×`, `≤ ${limit}×`, r.ratio <= limit);
  // CPU time, alternated the same way: on a machine shared with other work it moves far less than wall time.
  const cpu = alternate(command, node0, { pairs: Math.max(10, PAIRS >> 1), cpuHook: CPUTIME });
  console.log(`  info  CPU time: ${formatMs(cpu.a)} vs ${formatMs(cpu.b)}: ${cpu.ratio.toFixed(2)}×  (no target; wall time is judged)`);
}

function heading(text) {
  console.log(`\n${text}`);
}

async function main() {
  const cpus = os.cpus();
  console.log(`machine: ${os.availableParallelism()} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB, ${os.type()} ${os.release()}`);
  console.log(`node ${process.version}; load average ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}; ${PAIRS} alternated pairs per start-up figure`);

  if (want('startup')) {
    heading('start-up graph (esbuild metafile of the build)');
    const metafile = existsSync(METAFILE) ? readMetafile(METAFILE) : undefined;
    if (!metafile) verdict('start-up graph', `no ${METAFILE}`, 'scripts/build.mjs writes it', false);
    const entries = new Set(Object.values(metafile?.outputs ?? {}).map((output) => output.entryPoint));
    for (const entry of ['src/start.ts', 'src/cli.ts'].filter((name) => entries.has(name))) {
      const graph = startupGraph(metafile, entry);
      const packages = Object.entries(graph.packages).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KiB`);
      console.log(`  ${entry}: ${graph.files} files, ${(graph.bytes / 1024).toFixed(0)} KiB; packages: ${packages.join(', ') || 'none'}`);
      verdict(`${entry} start-up graph`, graph.heavy.length ? `loads ${graph.heavy.join(', ')}` : 'no heavy dependency', 'none of undici, zod, conf, ora, @inquirer, ajv', graph.heavy.length === 0);
    }

    heading('start-up (wall time of the whole process, alternated with node -e 0)');
    startupFigure(giftcodes(['--version'], (r) => (String(r.stdout).trim() === VERSION ? undefined : `printed ${r.stdout}`)), 1.3);
    startupFigure(giftcodes(['--help'], (r) => (String(r.stdout).startsWith('Usage: giftcodes') ? undefined : `printed ${r.stdout}`)), 1.3);
    // The same text through commander, which is how --help reaches a terminal (it wraps to the terminal's width).
    startupFigure(giftcodes(['help'], (r) => (String(r.stdout).startsWith('Usage: giftcodes') ? undefined : `printed ${r.stdout}`)));
  }

  if (want('ping') || want('export')) {
    const server = await startListening([NODE, BIN, 'serve', '--port', '0', '--fulfil-after', '100'], { label: 'giftcodes serve' });
    try {
      const login = spawnSync(NODE, [BIN, 'login', '--api-key-stdin', '--base-url', server.url], { env: cliEnv, input: TEST_KEY, encoding: 'utf8' });
      if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);

      if (want('ping')) {
        heading(`ping (a logged-in profile, against giftcodes serve on ${server.url})`);
        startupFigure(giftcodes(['ping'], (r) => (String(r.stdout).includes('rs_demo') ? undefined : `printed ${r.stdout}`)), 2.0);
      }
      if (want('export')) {
        heading('codes get (orders placed over HTTP, completed, then exported end to end; whole process)');
        await exportFigures(server.url);
      }
    } finally {
      await server.stop();
    }
  }

  if (want('catalog')) {
    heading('catalog list of 5,000 products at --latency 50 (a seed file, a server of its own)');
    await catalogFigures();
  }

  if (want('plan')) {
    heading('order place --plan of 1,000 rows at --latency 50');
    await planFigures();
  }

  if (want('load')) {
    heading('POST /v1/orders under load (autocannon, fresh Idempotency-Key per request, loopback)');
    await loadFigures();
  }

  const failed = verdicts.filter((v) => !v.pass);
  heading(`${verdicts.length - failed.length} of ${verdicts.length} targets hold${failed.length ? `; failing: ${failed.map((v) => v.figure).join('; ')}` : ''}`);
  return failed.length === 0 ? 0 : 1;
}

/** One `codes get` to a file, as a child process: wall time from spawn to exit, peak RSS from getrusage. */
function exportOnce(orderId, quantity, format) {
  const out = join(scratch, `codes-${quantity}.${format}`);
  const started = process.hrtime.bigint();
  const result = spawnSync(NODE, ['--import', MAXRSS, BIN, 'codes', 'get', orderId, '--out', out], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`codes get failed: ${result.stderr}`);
  checkExport(out, quantity, format);
  rmSync(out);
  return { ms, rssMiB: Number(String(result.output[3]).trim()) / 1024 };
}

/** The file holds every code: a header and one line each (CSV), one line each (JSONL), an array (JSON). */
function checkExport(file, quantity, format) {
  const lines = countLines(file);
  const expected = format === 'csv' ? quantity + 1 : format === 'jsonl' ? quantity : quantity + 2;
  if (lines !== expected) throw new Error(`codes get wrote ${lines} lines of ${format} for ${quantity} codes (expected ${expected})`);
  if (format === 'json') {
    const head = Buffer.alloc(2);
    const fd = openSync(file, 'r');
    readSync(fd, head, 0, 2, 0);
    closeSync(fd);
    if (head.toString() !== '[\n') throw new Error('the JSON export does not start with an array');
  }
}

/**
 * CSV at 100,000 and 1,000,000 codes in alternation (the ratio of their peak RSS is the flat-memory
 * figure), then JSON and JSONL at 1,000,000 beside them. Codes per second count the whole process.
 */
async function exportFigures(url) {
  const orders = {};
  for (const quantity of [100_000, 1_000_000]) {
    const { order } = await placeOrder(url, TEST_KEY, PRODUCT, quantity);
    await waitCompleted(url, TEST_KEY, order.id);
    orders[quantity] = order.id;
  }
  const runs = { 'csv 100000': [], 'csv 1000000': [], 'json 1000000': [], 'jsonl 1000000': [] };
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, so load from elsewhere on the machine falls on every figure alike.
    const order = round % 2 ? ['jsonl 1000000', 'json 1000000', 'csv 1000000', 'csv 100000'] : Object.keys(runs);
    for (const key of order) {
      const [format, quantity] = [key.split(' ')[0], Number(key.split(' ')[1])];
      runs[key].push(exportOnce(orders[quantity], quantity, format));
    }
  }
  const rate = (quantity, ms) => Math.round(quantity / (ms / 1000));
  const figures = {};
  for (const [key, list] of Object.entries(runs)) {
    const quantity = Number(key.split(' ')[1]);
    const ms = summary(list.map((r) => r.ms));
    const rss = summary(list.map((r) => r.rssMiB));
    figures[key] = { ms, rss, rate: rate(quantity, ms.median) };
    console.log(`  ${key.padEnd(14)} ${formatMs(ms)}: ${rate(quantity, ms.median).toLocaleString('en')} codes/s (${rate(quantity, ms.max).toLocaleString('en')}–${rate(quantity, ms.min).toLocaleString('en')}), peak RSS ${rss.median.toFixed(1)} MiB (${rss.min.toFixed(1)}–${rss.max.toFixed(1)})`);
  }
  const big = figures['csv 1000000'];
  verdict('codes get 1,000,000 codes to CSV, codes/s', big.rate.toLocaleString('en'), '≥ 300,000', big.rate >= 300_000);
  verdict('codes get 1,000,000 to CSV, peak RSS', `${big.rss.median.toFixed(1)} MiB`, '< 100 MiB', big.rss.median < 100);
  const growth = big.rss.median - figures['csv 100000'].rss.median;
  verdict('peak RSS at 1,000,000 minus at 100,000 (CSV)', `${growth.toFixed(1)} MiB`, '≤ 10 MiB', growth <= 10);
  for (const format of ['json', 'jsonl']) {
    const f = figures[`${format} 1000000`];
    console.log(`  info  codes get 1,000,000 codes to ${format.toUpperCase()}: ${f.rate.toLocaleString('en')} codes/s, peak RSS ${f.rss.median.toFixed(1)} MiB  (no target of its own; CSV's are ≥ 300,000 and < 100 MiB)`);
  }
}

/** `catalog list --json -v` against 5,000 products behind 50 ms of latency: requests counted from the verbose lines. */
async function catalogFigures() {
  const seedFile = join(scratch, 'catalog-5000.json');
  writeJson(seedFile, catalogSeed(5000));
  const server = await startListening([NODE, BIN, 'serve', '--port', '0', '--latency', '50', '--seed', seedFile], { label: 'giftcodes serve --latency 50' });
  try {
    const env = { ...cliEnv, GIFTCODES_API_KEY: TEST_KEY, GIFTCODES_BASE_URL: server.url };
    const runs = [];
    for (let round = 0; round < ROUNDS + 2; round++) {
      const started = process.hrtime.bigint();
      const result = spawnSync(NODE, [BIN, 'catalog', 'list', '--json', '-v'], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`catalog list failed: ${result.stderr}`);
      const products = JSON.parse(result.stdout).length;
      if (products !== 5000) throw new Error(`catalog list printed ${products} products of 5,000`);
      const requests = result.stderr.split('\n').filter((line) => line.startsWith('GET /v1/catalog')).length;
      runs.push({ ms, requests });
    }
    const ms = summary(runs.map((r) => r.ms));
    const requests = Math.max(...runs.map((r) => r.requests));
    console.log(`  ${formatMs(ms)}, ${requests} requests`);
    verdict('catalog list of 5,000 at --latency 50, requests', String(requests), '≤ 6', requests <= 6);
    verdict('catalog list of 5,000 at --latency 50, wall time', `${ms.median.toFixed(0)} ms`, '≤ 1000 ms', ms.median <= 1000);
  } finally {
    await server.stop();
  }
}

/**
 * A 1,000-row plan (no codes files, so no waiting for fulfilment) against a server of its own at --latency 50,
 * run with the default --concurrency and with --concurrency 1; each run a fresh config dir and plan bytes of
 * its own (a plan run again would order nothing). One run each: the serial one takes about a minute.
 */
async function planFigures() {
  const ROWS = 1000;
  const server = await startListening([NODE, BIN, 'serve', '--port', '0', '--latency', '50'], { label: 'giftcodes serve --latency 50' });
  try {
    const runPlan = (label, extra) => {
      const dir = mkdtempSync(join(scratch, 'plan-'));
      const plan = join(dir, 'plan.csv');
      writeFileSync(plan, `# bench ${label}\nproduct,quantity\n${Array.from({ length: ROWS }, (_, i) => `amazon-us-10,${(i % 3) + 1}`).join('\n')}\n`);
      const env = { ...cliEnv, GIFTCODES_CONFIG_DIR: join(dir, 'config'), GIFTCODES_API_KEY: TEST_KEY, GIFTCODES_BASE_URL: server.url };
      const started = process.hrtime.bigint();
      const result = spawnSync(NODE, [BIN, 'order', 'place', '--plan', plan, '--json', ...extra], { env, encoding: 'utf8', maxBuffer: 1 << 26 });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (result.status !== 0) throw new Error(`plan (${label}) failed: ${result.stderr.slice(0, 2000)}`);
      const ordered = JSON.parse(result.stdout).filter((row) => row.order?.id).length;
      if (ordered !== ROWS) throw new Error(`plan (${label}) ordered ${ordered} rows of ${ROWS}`);
      console.log(`  ${label.padEnd(22)} ${(ms / 1000).toFixed(2)} s  (${(ROWS / (ms / 1000)).toFixed(0)} rows/s)`);
      return ms;
    };
    const parallel = runPlan('default --concurrency', []);
    const serial = runPlan('--concurrency 1', ['--concurrency', '1']);
    verdict('1,000-row plan at --latency 50, default --concurrency', `${(parallel / 1000).toFixed(2)} s`, '≤ 15 s', parallel <= 15_000);
    console.log(`  info  --concurrency 1: ${(serial / 1000).toFixed(2)} s, ${(serial / parallel).toFixed(2)}× the default  (no target)`);
  } finally {
    await server.stop();
  }
}

// A megabyte at a time: reading a whole export (up to 160 MB) grew this process's RSS, and a child spawned
// after it started with that RSS in its getrusage peak (Linux carries ru_maxrss across fork and exec), so
// the next figure's peak RSS was this harness's, not the CLI's.
function countLines(file) {
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(file, 'r');
  let lines = 0;
  let last = 10;
  try {
    for (let read = readSync(fd, buffer, 0, buffer.length, null); read > 0; read = readSync(fd, buffer, 0, buffer.length, null)) {
      const chunk = buffer.subarray(0, read);
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      last = chunk[read - 1];
    }
  } finally {
    closeSync(fd);
  }
  if (last !== 10) lines++;
  return lines;
}

/** Alternates autocannon rounds against the reference server and a bare node:http server, same requests. */
async function loadFigures() {
  const { default: autocannon } = await import('autocannon');
  const reference = await startListening([NODE, BIN, 'serve', '--port', '0'], { label: 'giftcodes serve' });
  let bare;
  try {
    const { text: sample } = await placeOrder(reference.url, TEST_KEY, PRODUCT, 1);
    bare = await startListening([NODE, join(ROOT, 'scripts', 'bench', 'bare-server.mjs')], { env: { ...process.env, BENCH_BODY: sample }, label: 'bare server' });
    const connections = 10;
    // Short rounds, many alternations: load from elsewhere on the machine then falls on both sides alike.
    const roundSeconds = 2.5;
    const rounds = 5;
    const fire = async (url, duration) => {
      const result = await autocannon({
        url: `${url}/v1/orders`,
        method: 'POST',
        connections,
        duration,
        // autocannon puts a fresh id in place of [<id>] in every request, header included.
        idReplacement: true,
        headers: { 'X-API-Key': TEST_KEY, 'Content-Type': 'application/json', 'Idempotency-Key': 'bench-[<id>]' },
        body: JSON.stringify({ product_id: PRODUCT, quantity: 1 }),
      });
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
      return result['2xx'] / result.duration;
    };
    await fire(bare.url, 1);
    await fire(reference.url, 1);
    const rates = { reference: [], bare: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? ['reference', 'bare'] : ['bare', 'reference'];
      for (const side of order) rates[side].push(await fire(side === 'bare' ? bare.url : reference.url, roundSeconds));
    }
    const show = (values) => `${Math.round(median(values)).toLocaleString('en')} req/s (${Math.round(Math.min(...values)).toLocaleString('en')}–${Math.round(Math.max(...values)).toLocaleString('en')})`;
    console.log(`  ${connections} connections, ${rounds} rounds of ${roundSeconds} s each side, alternated`);
    console.log(`  reference server   ${show(rates.reference)}`);
    console.log(`  bare node:http     ${show(rates.bare)}`);
    const ratio = median(rates.reference) / median(rates.bare);
    const perRound = rates.reference.map((rate, i) => (rate / rates.bare[i]).toFixed(2));
    console.log(`  per-round ratio: ${perRound.join(', ')}`);
    verdict('reference POST /v1/orders rate / bare node:http', `${ratio.toFixed(2)}×`, '≥ 0.5×', ratio >= 0.5);
  } finally {
    await Promise.all([reference.stop(), bare?.stop()]);
  }
}

try {
  process.exitCode = await main();
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
