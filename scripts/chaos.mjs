// `npm run chaos`: random kills over every way an order reaches the user, then recovery by whatever a user
// would run next (the same command, order resume <key>, order resume --all [--json], order watch --out,
// codes get --out), each of which may be killed too. A round ends when nothing of it is pending and its
// order reached the user (on stdout, or a complete codes file). Prints rounds, charges and lost orders.
// The built CLI (dist/) against `giftcodes serve`; build first.
//
//   node scripts/chaos.mjs [--rounds 300] [--concurrency 4] [--seed n]
// Also imported by test/e2e/chaos.test.ts (runChaos) for the 50 rounds inside npm test.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'giftcodes');
const KEY = 'sc_test_demo_4f3c9a1b7e2d';
const PRODUCT = 'amazon-us-10';
const FAILPOINTS = ['intent.written', 'request.sent', 'order.accepted', 'codes.tmp-written', 'codes.renamed', 'delivered', 'resolved'];
export const MODES = ['place --json', 'place --wait', 'place --out', 'place --out --force', 'resume <key>', 'resume --all', 'resume --all --json', 'watch --out', 'codes get --out'];

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

function pendingIntents(configDir) {
  const dir = join(configDir, 'journal');
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

function fileComplete(path, quantity) {
  try {
    const codes = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(codes) && codes.length === quantity && codes.every((c) => typeof c.code === 'string');
  } catch {
    return false;
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

/** One round: a mode, random kills, recovery until delivered and nothing pending. */
async function round(i, mode, random, ctx) {
  const quantity = i + 1;
  const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-chaos-'));
  cpSync(ctx.template, configDir, { recursive: true });
  const file = join(configDir, 'codes.json');
  const place = ['order', 'place', '--product', PRODUCT, '--quantity', String(quantity), '--retries', '8'];
  const poll = ['--interval', '0.05'];
  const printed = new Set();
  const toFile = mode.includes('--out');
  if (mode === 'place --out --force') writeFileSync(file, '["an older file"]\n');
  const natural =
    mode === 'place --json'
      ? [...place, '--json']
      : mode === 'place --wait'
        ? [...place, '--wait', ...poll]
        : mode === 'place --out'
          ? [...place, '--out', file, ...poll]
          : mode === 'place --out --force'
            ? [...place, '--out', file, '--force', ...poll]
            : [...place, '--json'];
  let kills = 0;
  const attempt = async (args, n) => {
    const killed = random() < (n < 3 ? 0.75 : 0.3);
    const opts = killed ? (random() < 0.5 ? { failpoint: FAILPOINTS[Math.floor(random() * FAILPOINTS.length)] } : { killAfterMs: Math.floor(random() * (150 + n * 120)) }) : {};
    const result = await run(args, configDir, opts);
    if (process.env.CHAOS_DEBUG) console.log(i, mode, args.slice(0, 3).join(' '), JSON.stringify(opts), result.code, result.signal, result.stderr.split('\n').slice(-3).join(' | '));
    if (result.signal) kills++;
    for (const m of result.stdout.matchAll(/ord_[0-9a-f]+/g)) printed.add(m[0]);
    return result;
  };
  // The first command: the mode's own place; the recovery modes start from a place killed after its POST
  // (watch and codes get need the order id, so after the order was accepted).
  if (mode.startsWith('resume')) await run(natural, configDir, { failpoint: 'request.sent' });
  else if (mode === 'watch --out' || mode === 'codes get --out') await run(natural, configDir, { failpoint: 'order.accepted' });
  else await attempt(natural, 0);
  for (let n = 1; ; n++) {
    if (n > 60) throw new Error(`round ${i} (${mode}) never finished`);
    const pending = pendingIntents(configDir);
    const delivered = toFile ? fileComplete(file, quantity) : printed.size > 0;
    if (pending.length === 0 && delivered) break;
    const intent = pending[0];
    let args;
    if (!intent) args = natural;
    else if (mode === 'resume <key>') args = ['order', 'resume', intent.key, '--json', '--interval', '0.05'];
    else if (mode === 'resume --all') args = ['order', 'resume', '--all', '--interval', '0.05'];
    else if (mode === 'resume --all --json') args = ['order', 'resume', '--all', '--json', '--interval', '0.05'];
    else if ((mode === 'watch --out' || mode === 'codes get --out') && intent.orderId)
      args = mode === 'watch --out' ? ['order', 'watch', intent.orderId, '--out', file, '--interval', '0.05'] : ['codes', 'get', intent.orderId, '--wait', '--interval', '0.05', '--out', file];
    else args = random() < 0.5 ? natural : ['order', 'resume', '--all', '--json', '--interval', '0.05'];
    await attempt(args, n);
  }
  const charged = (await ctx.ledger()).filter((o) => o.product_id === PRODUCT && o.quantity === quantity).map((o) => String(o.order_id));
  // Lost: charged, but its order never reached the user (not printed, no complete file).
  const reached = toFile || mode === 'watch --out' || mode === 'codes get --out' ? fileComplete(file, quantity) || charged.every((id) => printed.has(id)) : charged.every((id) => printed.has(id));
  const left = pendingIntents(configDir).length;
  rmSync(configDir, { recursive: true, force: true });
  return { charges: charged.length, lost: reached ? 0 : charged.length, double: Math.max(0, charged.length - 1), left, kills };
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
  const ctx = { template, ledger: async () => (await (await fetch(`${server.url}/_admin/ledger`)).json()).orders };
  const totals = { rounds: 0, charges: 0, lost: 0, double: 0, left: 0, kills: 0, noCharge: 0, seed };
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
          totals.charges += r.charges;
          totals.lost += r.lost;
          totals.double += r.double;
          totals.left += r.left;
          totals.kills += r.kills;
          if (r.charges === 0) totals.noCharge++;
          byMode[mode]++;
          if (r.lost || r.double || r.left) log(`round ${i} (${mode}): charges ${r.charges}, lost ${r.lost}, pending ${r.left}`);
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
    `chaos: ${result.rounds} rounds, ${result.kills} kills, ${result.charges} charges, ${result.double} double charges, ${result.lost} lost, ${result.left} left pending, ${result.noCharge} rounds without a charge (seed ${result.seed}, ${Math.round((Date.now() - started) / 1000)} s)`,
  );
  console.log(`modes: ${Object.entries(result.byMode).map(([m, n]) => `${m} ${n}`).join(', ')}`);
  process.exit(result.lost || result.double || result.left ? 1 : 0);
}
