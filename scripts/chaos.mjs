// `npm run chaos`: random kills over every way an order reaches the user, then recovery by whatever a user
// would run next (the same command, order resume <key>, order resume --all [--json], order watch --out,
// codes get --out, the same plan again), each of which may be killed too. A round ends when each of its
// orders reached the user (its id on stdout, or its codes in its file); a round whose last command did not
// end cleanly then gets the `order resume --all` a user runs after an interrupted run. Everything is counted
// from outside the journal's code: charges from the server's ledger, delivery from stdout and the files
// (checked against the server's codes), what is left from the journal's intent files and history/ records.
// The built CLI (dist/) against `giftcodes serve`; build first. Exit 1 on any double charge, lost order,
// intent left, charged order without its record, or order never charged.
//
//   node scripts/chaos.mjs [--rounds 300] [--concurrency 4] [--seed n]
// Also imported by test/e2e/chaos.test.ts (runChaos) for the 50 rounds inside npm test.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'giftcodes');
const KEY = 'sc_test_demo_4f3c9a1b7e2d';
/** Every order of a run is one (product, quantity) pair no other order uses: that is how the ledger tells them apart. */
const PRODUCTS = ['amazon-us-10', 'amazon-us-25', 'amazon-us-50', 'amazon-us-100', 'apple-us-25', 'apple-us-50', 'google-play-us-25', 'steam-us-20', 'steam-us-50', 'zalando-de-25', 'tesco-uk-20'];
/** Every failpoint the client has (read from its source, so a new one is killed at too). */
const FAILPOINTS = failpointNames();
export const MODES = ['place --json', 'place --wait', 'place --out', 'place --out --force', 'resume <key>', 'resume --all', 'resume --all --json', 'watch --out', 'codes get --out', 'plan'];
const RESUME_ALL_JSON = ['order', 'resume', '--all', '--json', '--interval', '0.05'];

function failpointNames() {
  const source = readFileSync(join(ROOT, 'src', 'failpoints.ts'), 'utf8');
  const list = /export const FAILPOINTS = \[([^\]]*)\]/.exec(source)?.[1];
  if (!list) throw new Error('no FAILPOINTS list in src/failpoints.ts');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]);
}

/** A small deterministic generator, so a failing seed can be replayed. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function run(args, configDir, { killAfterMs, failpoint } = {}) {
  const env = { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' };
  delete env.GIFTCODES_API_KEY;
  delete env.GIFTCODES_PROFILE;
  if (failpoint) env.GIFTCODES_FAILPOINTS = `${failpoint}=kill`;
  else delete env.GIFTCODES_FAILPOINTS;
  const proc = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c) => (stdout += c));
  proc.stderr.on('data', (c) => (stderr += c));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => proc.kill('SIGKILL'), killAfterMs);
  const hard = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(hard);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

/**
 * The unresolved intents in the journal, read here from its files, never through giftcodes: the intent files,
 * then each process's log (<pid>-<random>.log) folded over them (a log's state is newer than a file's; an
 * intent any log ended is gone wherever a copy lies; a last line without its newline was never written
 * whole); an unreadable file counts as an intent. Litter: anything else left beside them, logs included.
 */
function journalFiles(configDir) {
  const dir = join(configDir, 'journal');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  const unreadable = (what) => ({ key: `unreadable ${what}`, unreadable: what });
  // Every log's ends first: an end names one intent (key and createdAt), and only that one leaves the count,
  // so an ended K(t2) never hides a pending K(t1) (giftcodes' foldIntents drops ended ones before it folds).
  const ended = new Set();
  const logs = [];
  const left = [];
  for (const n of names.filter((n) => /^\d+-[0-9a-f]+\.log$/.test(n))) {
    const last = new Map();
    readFileSync(join(dir, n), 'utf8')
      .split('\n')
      .slice(0, -1)
      .forEach((line, index) => {
        let entry;
        try {
          entry = JSON.parse(line);
        } catch {
          return void left.push(unreadable(`line ${index + 1} of ${n}`));
        }
        if (entry.key === undefined) return;
        if (entry.intent) last.set(entry.key, entry.intent);
        else if (entry.ended !== undefined) ended.add(`${entry.key}\n${entry.ended}`);
      });
    logs.push([...last.values()]);
  }
  for (const n of names.filter((n) => n.endsWith('.unreadable'))) left.push(unreadable(n));
  const found = new Map();
  const offer = (intent, fromLog) => {
    if (ended.has(`${intent.key}\n${intent.createdAt}`)) return;
    const held = found.get(intent.key);
    if (held && held.fromLog && (!fromLog || held.intent.updatedAt > intent.updatedAt)) return;
    found.set(intent.key, { intent, fromLog });
  };
  for (const n of names.filter((n) => n.endsWith('.json'))) {
    try {
      offer(JSON.parse(readFileSync(join(dir, n), 'utf8')), false);
    } catch {
      left.push(unreadable(n));
    }
  }
  for (const intents of logs) for (const intent of intents) offer(intent, true);
  const intents = [...[...found.values()].map((f) => f.intent), ...left];
  return { intents, litter: names.filter((n) => !n.endsWith('.json')) };
}

/** The history/ records beside the journal. */
function historyRecords(configDir) {
  const dir = join(configDir, 'history');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .flatMap((n) => {
      try {
        return [JSON.parse(readFileSync(join(dir, n), 'utf8'))];
      } catch {
        return [];
      }
    });
}

function fileCodes(path, quantity) {
  try {
    const codes = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(codes) && codes.length === quantity && codes.every((c) => typeof c.code === 'string') ? codes.map((c) => c.code) : undefined;
  } catch {
    return undefined;
  }
}

async function startServer() {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--admin', '--fulfil-after', '150', '--drop-after-commit', '0.2', '--hold', '50'], {
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 15_000);
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { url, stop: () => new Promise((resolve) => (proc.once('exit', resolve), proc.kill('SIGTERM'))) };
}

/** The orders a round asks for: one, or a plan's three rows (two with a file, one on stdout). */
function ordersOf(i, mode, configDir) {
  const pair = (j) => ({ product: PRODUCTS[(3 * i + j) % PRODUCTS.length], quantity: 1 + Math.floor((3 * i + j) / PRODUCTS.length) });
  if (mode === 'plan') {
    return [
      { ...pair(0), file: join(configDir, 'row-a.json'), stdout: false },
      { ...pair(1), stdout: true },
      { ...pair(2), file: join(configDir, 'row-c.json'), stdout: false },
    ];
  }
  const file = mode.includes('--out') ? join(configDir, 'codes.json') : undefined;
  // watch and codes get write the file, but the order placed before them may reach stdout first.
  return [{ ...pair(0), file, stdout: !file || mode === 'watch --out' || mode === 'codes get --out' }];
}

/** One round: a mode, random kills, recovery until every order reached the user; then everything counted. */
async function round(i, mode, random, ctx) {
  const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-chaos-'));
  cpSync(ctx.template, configDir, { recursive: true });
  const orders = ordersOf(i, mode, configDir);
  const [first] = orders;
  const place = ['order', 'place', '--product', first.product, '--quantity', String(first.quantity), '--retries', '8'];
  const poll = ['--interval', '0.05'];
  const printed = new Set();
  let natural;
  if (mode === 'plan') {
    const plan = join(configDir, 'plan.csv');
    writeFileSync(plan, `product,quantity,out\n${orders.map((o) => `${o.product},${o.quantity},${o.file ? basename(o.file) : ''}`).join('\n')}\n`);
    natural = ['order', 'place', '--plan', plan, '--json', '--retries', '8', ...poll];
  } else if (mode === 'place --wait') natural = [...place, '--wait', ...poll];
  else if (mode === 'place --out') natural = [...place, '--out', first.file, ...poll];
  else if (mode === 'place --out --force') natural = [...place, '--out', first.file, '--force', ...poll];
  else natural = [...place, '--json'];
  if (mode === 'place --out --force') writeFileSync(first.file, '["an older file"]\n');
  let kills = 0;
  let last;
  const attempt = async (args, n, opts) => {
    const result = await run(args, configDir, opts);
    if (process.env.CHAOS_DEBUG) console.log(i, mode, args.slice(0, 3).join(' '), JSON.stringify(opts), result.code, result.signal, result.stderr.split('\n').slice(-3).join(' | '));
    if (result.signal) kills++;
    for (const m of result.stdout.matchAll(/ord_[0-9a-f]+/g)) printed.add(m[0]);
    last = result;
    return result;
  };
  const randomKill = (n) => {
    if (random() >= (n < 3 ? 0.75 : 0.3)) return {};
    return random() < 0.5 ? { failpoint: FAILPOINTS[Math.floor(random() * FAILPOINTS.length)] } : { killAfterMs: Math.floor(random() * (150 + n * 120)) };
  };
  const charged = async () => {
    const ledger = await ctx.ledger();
    return orders.map((o) => ledger.filter((e) => e.product_id === o.product && e.quantity === o.quantity).map((e) => String(e.order_id)));
  };
  // Reached: its id on stdout (where that is how the order reaches the user), or exactly its codes in its file.
  const reached = async (o, id) => (o.stdout && printed.has(id)) || (o.file !== undefined && (await ctx.fileHolds(o.file, o.quantity, id)));
  const allReached = async () => {
    const ids = await charged();
    for (const [k, o] of orders.entries()) if (!(await someAsync(ids[k], (id) => reached(o, id)))) return false;
    return true;
  };
  // The first command: the mode's own place; the recovery modes start from a place killed after its POST
  // (watch and codes get need the order id, so after the order was accepted).
  if (mode.startsWith('resume')) await attempt(natural, 0, { failpoint: 'request.sent' });
  else if (mode === 'watch --out' || mode === 'codes get --out') await attempt(natural, 0, { failpoint: 'order.accepted' });
  else await attempt(natural, 0, randomKill(0));
  for (let n = 1; !(await allReached()); n++) {
    if (n > 60) throw new Error(`round ${i} (${mode}) never finished`);
    const intent = journalFiles(configDir).intents.find((x) => x.key !== undefined);
    let args;
    if (!intent) args = natural;
    else if (mode === 'resume <key>') args = ['order', 'resume', intent.key, '--json', ...poll];
    else if (mode === 'resume --all') args = ['order', 'resume', '--all', ...poll];
    else if (mode === 'resume --all --json') args = RESUME_ALL_JSON;
    else if ((mode === 'watch --out' || mode === 'codes get --out') && intent.orderId)
      args = mode === 'watch --out' ? ['order', 'watch', intent.orderId, '--out', first.file, ...poll] : ['codes', 'get', intent.orderId, '--wait', ...poll, '--out', first.file];
    else args = random() < 0.5 ? natural : RESUME_ALL_JSON;
    await attempt(args, n, randomKill(n));
  }
  // Every order reached the user. A command killed (or failed) at the end leaves what the next one ends:
  // the one a user runs after an interrupted run, never killed.
  const finished = last.signal !== null || last.code !== 0;
  if (finished) await attempt(RESUME_ALL_JSON, -1, {});
  const ids = await charged();
  const records = historyRecords(configDir);
  const totals = { orders: orders.length, charges: 0, lost: 0, double: 0, unrecorded: 0, noCharge: 0, kills, finished: finished ? 1 : 0 };
  for (const [k, o] of orders.entries()) {
    totals.charges += ids[k].length;
    totals.double += Math.max(0, ids[k].length - 1);
    if (ids[k].length === 0) totals.noCharge = 1;
    for (const id of ids[k]) {
      // Lost: charged, but never reached the user.
      if (!(await reached(o, id))) totals.lost++;
      if (!records.some((r) => r.orderId === id && r.outcome === 'delivered')) totals.unrecorded++;
    }
  }
  const { intents, litter } = journalFiles(configDir);
  if (process.env.CHAOS_DEBUG && litter.length > 0) console.log(i, mode, 'left in journal/:', litter.join(' '));
  rmSync(configDir, { recursive: true, force: true });
  return { ...totals, left: intents.length, litter: litter.length };
}

async function someAsync(items, test) {
  for (const item of items) if (await test(item)) return true;
  return false;
}

/** What fails a round (and the script): litter and rounds that needed a finishing resume are only reported. */
export function failed(r) {
  return r.lost > 0 || r.double > 0 || r.left > 0 || r.unrecorded > 0 || r.noCharge > 0;
}

export async function runChaos({ rounds = 300, concurrency = 4, seed = Date.now() % 1_000_000, log = () => undefined } = {}) {
  const random = rng(seed);
  const server = await startServer();
  const template = mkdtempSync(join(tmpdir(), 'giftcodes-chaos-template-'));
  const login = await new Promise((resolve) => {
    const proc = spawn(process.execPath, [BIN, 'login', '--api-key-stdin', '--base-url', server.url], {
      env: { ...process.env, GIFTCODES_CONFIG_DIR: template, CI: 'true' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    proc.stdin.end(KEY);
    proc.on('close', resolve);
  });
  if (login !== 0) throw new Error('login failed');
  const api = (path) => fetch(`${server.url}${path}`, { headers: { 'X-API-Key': KEY } }).then((r) => r.json());
  const ctx = {
    template,
    ledger: async () => (await api('/_admin/ledger')).orders,
    /** Whether the file holds exactly the codes the server has for that order. */
    fileHolds: async (path, quantity, id) => {
      const codes = fileCodes(path, quantity);
      if (!codes) return false;
      const page = await api(`/v1/orders/${id}/codes?limit=1000`);
      const theirs = new Set((page.data ?? []).map((c) => c.code));
      return theirs.size === quantity && codes.every((c) => theirs.has(c));
    },
  };
  const totals = { rounds: 0, orders: 0, charges: 0, lost: 0, double: 0, left: 0, unrecorded: 0, noCharge: 0, kills: 0, finished: 0, litter: 0, seed };
  const byMode = Object.fromEntries(MODES.map((m) => [m, 0]));
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < rounds) {
          const i = next++;
          const mode = MODES[i % MODES.length];
          const r = await round(i, mode, random, ctx);
          totals.rounds++;
          for (const name of ['orders', 'charges', 'lost', 'double', 'left', 'unrecorded', 'noCharge', 'kills', 'finished', 'litter']) totals[name] += r[name];
          byMode[mode]++;
          if (failed(r)) log(`round ${i} (${mode}): charges ${r.charges} of ${r.orders} orders, double ${r.double}, lost ${r.lost}, left ${r.left}, unrecorded ${r.unrecorded}`);
        }
      }),
    );
  } finally {
    await server.stop();
    rmSync(template, { recursive: true, force: true });
  }
  return { ...totals, byMode };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const arg = (name, fallback) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
  const started = Date.now();
  const result = await runChaos({ rounds: arg('--rounds', 300), concurrency: arg('--concurrency', 4), seed: arg('--seed', Date.now() % 1_000_000), log: (line) => console.log(line) });
  console.log(
    `chaos: ${result.rounds} rounds, ${result.orders} orders, ${result.kills} kills, ${result.charges} charges, ${result.double} double charges, ${result.lost} lost, ${result.left} left pending, ${result.unrecorded} charged without a record, ${result.noCharge} rounds without a charge (seed ${result.seed}, ${Math.round((Date.now() - started) / 1000)} s)`,
  );
  console.log(`rounds finished by order resume --all after an interrupted last command: ${result.finished}; other files left in journal/: ${result.litter}`);
  console.log(`modes: ${Object.entries(result.byMode).map(([m, n]) => `${m} ${n}`).join(', ')}`);
  process.exit(failed(result) ? 1 : 0);
}
