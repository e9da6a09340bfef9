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
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'giftcodes');
const KEY = 'sc_test_demo_4f3c9a1b7e2d';
const LIVE_KEY = 'sc_live_demo_9b1e6d2c8a7f';
/** A second reseller, under a profile whose name holds key-shaped text (the journal must store it as given). */
const MISC = {
  profile: 'misc_test_shop',
  reseller: 'rs_misc',
  test: 'sc_test_misc_5c2e8a0f4b6d1397',
  live: 'sc_live_misc_0d4f6b8a2c1e3579',
};
/**
 * Every order of a run is one (product, quantity, environment, reseller) no other order uses: that is how the
 * ledger tells them apart. Two product ids hold key-shaped text (`misc_test_`, `misc_live_`).
 */
const PRODUCTS = [
  'amazon-us-10',
  'amazon-us-25',
  'amazon-us-50',
  'amazon-us-100',
  'apple-us-25',
  'misc_test_pack-10',
  'apple-us-50',
  'google-play-us-25',
  'steam-us-20',
  'misc_live_box-25',
  'steam-us-50',
  'zalando-de-25',
  'tesco-uk-20',
];
const CURRENCY = { 'zalando-de-25': 'EUR', 'tesco-uk-20': 'GBP' };
/** Every failpoint the client has (read from its source, so a new one is killed at too). */
const FAILPOINTS = failpointNames();
export const MODES = [
  'place --json',
  'place --wait',
  'place --out',
  'place --out --force',
  'resume <key>',
  'resume --all',
  'resume --all --json',
  'watch --out',
  'codes get --out',
  'plan',
  'plan test+live',
  'plan edited',
  'plan two profiles',
];
/** The modes that run a plan: a round of 'plan …' asks for three rows (edited: two, then the fixed one). */
const PLAN_MODES = MODES.filter((m) => m.startsWith('plan'));
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

/**
 * The history/ records beside the journal, as giftcodes reads them: one per key in its scope, the last line of it
 * in its line file (<xx>.jsonl) over an older version's file (.json); a line cut short is skipped.
 */
function historyRecords(configDir) {
  const dir = join(configDir, 'history');
  if (!existsSync(dir)) return [];
  const byIdentity = new Map();
  const add = (text) => {
    let record;
    try {
      record = JSON.parse(text);
    } catch {
      return;
    }
    byIdentity.set(JSON.stringify([record.key, record.baseUrl, record.environment, record.keyId ?? null]), record);
  };
  const names = readdirSync(dir);
  for (const n of names) if (n.endsWith('.json')) add(readFileSync(join(dir, n), 'utf8'));
  for (const n of names)
    if (n.endsWith('.jsonl')) for (const line of readFileSync(join(dir, n), 'utf8').split('\n')) if (line) add(line);
  return [...byIdentity.values()];
}

function fileCodes(path, quantity) {
  try {
    const codes = JSON.parse(readFileSync(path, 'utf8'));
    return Array.isArray(codes) && codes.length === quantity && codes.every((c) => typeof c.code === 'string')
      ? codes.map((c) => c.code)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The reference server's world for chaos: the demo reseller, a second one (MISC), and every product a round uses. */
function seedFile(dir) {
  const wallet = { USD: 1e12, EUR: 1e12, GBP: 1e12 };
  const price = (id) => Number(/-(\d+)$/.exec(id)[1]) * 100;
  const seed = {
    resellers: [
      { id: 'rs_demo', keys: { test: [KEY], live: [LIVE_KEY] }, wallet, supply: {} },
      { id: MISC.reseller, keys: { test: [MISC.test], live: [MISC.live] }, wallet, supply: {} },
    ],
    products: PRODUCTS.map((id) => ({
      id,
      name: id,
      brand: id.split('-')[0],
      price: price(id),
      currency: CURRENCY[id] ?? 'USD',
      supply: 1e9,
    })),
  };
  const file = join(dir, 'seed.json');
  writeFileSync(file, JSON.stringify(seed));
  return file;
}

async function startServer(seed) {
  const proc = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--admin',
      '--seed',
      seed,
      '--fulfil-after',
      '150',
      '--drop-after-commit',
      '0.2',
      '--hold',
      '50',
    ],
    {
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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

/**
 * The orders a round asks for, each with the phase whose command asks for it, its environment and reseller:
 * one order, or a plan's rows. 'plan' has two rows with a file and one on stdout; 'plan test+live' and 'plan
 * two profiles' run the same stdout plan twice (under test then live, under the default profile then MISC's);
 * 'plan edited' runs a plan whose middle row names a product that does not exist, then the same plan with the
 * typo fixed (only that row may be ordered then). Every third round runs under MISC's profile, and every
 * other round's files sit in a folder named `sc_live_out`: key-shaped text the journal must keep as given.
 */
function ordersOf(i, mode, configDir) {
  const misc = mode !== 'plan two profiles' && i % 3 === 1;
  const who = { env: 'test', reseller: misc ? MISC.reseller : 'rs_demo' };
  const pair = (j) => ({
    product: PRODUCTS[(3 * i + j) % PRODUCTS.length],
    quantity: 1 + Math.floor((3 * i + j) / PRODUCTS.length),
    phase: 0,
    ...who,
  });
  const folder = i % 2 === 0 ? join(configDir, 'sc_live_out') : configDir;
  if (mode === 'plan' || mode === 'plan edited') {
    return [
      { ...pair(0), file: join(folder, 'row-a.json'), stdout: false },
      { ...pair(1), stdout: true, phase: mode === 'plan edited' ? 1 : 0 },
      { ...pair(2), file: join(folder, 'row-c.json'), stdout: false },
    ];
  }
  if (mode === 'plan test+live' || mode === 'plan two profiles') {
    const again = mode === 'plan test+live' ? { env: 'live' } : { reseller: MISC.reseller };
    const rows = [0, 1, 2].map((j) => ({ ...pair(j), stdout: true }));
    return [...rows, ...rows.map((o) => ({ ...o, ...again, phase: 1 }))];
  }
  const file = mode.includes('--out') ? join(folder, 'codes.json') : undefined;
  // watch and codes get write the file, but the order placed before them may reach stdout first.
  return [{ ...pair(0), file, stdout: !file || mode === 'watch --out' || mode === 'codes get --out' }];
}

/** The command of each phase of a round (the first asks for the phase-0 orders, the second for phase 1). */
function commandsOf(mode, orders, configDir, profile) {
  const [first] = orders;
  const poll = ['--interval', '0.05'];
  const as = profile ? ['--profile', profile] : [];
  if (PLAN_MODES.includes(mode)) {
    const plan = join(configDir, mode === 'plan two profiles' ? 'nightly plan.csv' : 'plan.csv');
    // 'plan edited' adds its middle row (phase 1) between the other two: every line after it moves.
    const out = (o) =>
      o.file ? (dirname(o.file) === configDir ? basename(o.file) : join('sc_live_out', basename(o.file))) : '';
    const write = (phase) => {
      const rows = orders.filter((o) => (mode === 'plan edited' ? o.phase <= phase : o.phase === 0));
      writeFileSync(
        plan,
        `product,quantity,out\n${rows.map((o) => [o.product, o.quantity, out(o)].join(',')).join('\n')}\n`,
      );
    };
    const place = ['order', 'place', '--plan', plan, '--json', '--retries', '8', ...poll];
    if (mode === 'plan') return [() => (write(0), [...place, ...as])];
    if (mode === 'plan edited')
      return [() => (write(0), [...place, ...as]), () => (write(1), [...place, ...as, '--yes'])];
    if (mode === 'plan test+live')
      return [() => (write(0), [...place, ...as]), () => [...place, ...as, '--env', 'live', '--yes']];
    return [() => (write(0), [...place]), () => [...place, '--profile', MISC.profile]];
  }
  const place = [
    'order',
    'place',
    '--product',
    first.product,
    '--quantity',
    String(first.quantity),
    '--retries',
    '8',
    ...as,
  ];
  if (mode === 'place --wait') return [() => [...place, '--wait', ...poll]];
  if (mode === 'place --out') return [() => [...place, '--out', first.file, ...poll]];
  if (mode === 'place --out --force') return [() => [...place, '--out', first.file, '--force', ...poll]];
  return [() => [...place, '--json']];
}

/** One round: a mode, random kills, recovery until every order reached the user; then everything counted. */
async function round(i, mode, random, ctx) {
  const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-chaos-'));
  cpSync(ctx.template, configDir, { recursive: true });
  mkdirSync(join(configDir, 'sc_live_out'));
  const orders = ordersOf(i, mode, configDir);
  const [first] = orders;
  const profile = first.reseller === MISC.reseller && mode !== 'plan two profiles' ? MISC.profile : undefined;
  const as = profile ? ['--profile', profile] : [];
  const commands = commandsOf(mode, orders, configDir, profile);
  const poll = ['--interval', '0.05'];
  const printed = new Set();
  if (mode === 'place --out --force') writeFileSync(first.file, '["an older file"]\n');
  let kills = 0;
  let last;
  const attempt = async (args, n, opts) => {
    const result = await run(args, configDir, opts);
    if (process.env.CHAOS_DEBUG)
      console.log(
        i,
        mode,
        args.slice(0, 3).join(' '),
        JSON.stringify(opts),
        result.code,
        result.signal,
        result.stderr.split('\n').slice(-3).join(' | '),
      );
    if (result.signal) kills++;
    for (const m of result.stdout.matchAll(/ord_[0-9a-f]+/g)) printed.add(m[0]);
    last = result;
    return result;
  };
  const randomKill = (n) => {
    if (random() >= (n < 3 ? 0.75 : 0.3)) return {};
    return random() < 0.5
      ? { failpoint: FAILPOINTS[Math.floor(random() * FAILPOINTS.length)] }
      : { killAfterMs: Math.floor(random() * (150 + n * 120)) };
  };
  const charged = async () => {
    const ledger = await ctx.ledger();
    return orders.map((o) =>
      ledger
        .filter(
          (e) =>
            e.product_id === o.product &&
            e.quantity === o.quantity &&
            e.environment === o.env &&
            e.reseller_id === o.reseller,
        )
        .map((e) => String(e.order_id)),
    );
  };
  // Reached: its id on stdout (where that is how the order reaches the user), or exactly its codes in its file.
  const reached = async (o, id) =>
    (o.stdout && printed.has(id)) || (o.file !== undefined && (await ctx.fileHolds(o, id)));
  const allReached = async (phase) => {
    const ids = await charged();
    for (const [k, o] of orders.entries())
      if (o.phase <= phase && !(await someAsync(ids[k], (id) => reached(o, id)))) return false;
    return true;
  };
  let stuck = 0;
  let finished = false;
  phases: for (const [phase, command] of commands.entries()) {
    const natural = command();
    // The first command: the phase's own; the recovery modes start from a place killed after its POST
    // (watch and codes get need the order id, so after the order was accepted).
    if (mode.startsWith('resume')) await attempt(natural, 0, { failpoint: 'request.sent' });
    else if (mode === 'watch --out' || mode === 'codes get --out')
      await attempt(natural, 0, { failpoint: 'order.accepted' });
    else await attempt(natural, 0, randomKill(0));
    for (let n = 1; !(await allReached(phase)); n++) {
      if (n > 60) {
        // Sixty commands a user could run and an order still has not reached them: the round is stuck.
        stuck = 1;
        break phases;
      }
      const intent = journalFiles(configDir).intents.find((x) => x.key !== undefined);
      let args;
      if (!intent) args = natural;
      else if (mode === 'resume <key>') args = ['order', 'resume', intent.key, '--json', ...poll];
      else if (mode === 'resume --all') args = ['order', 'resume', '--all', ...poll];
      else if (mode === 'resume --all --json') args = RESUME_ALL_JSON;
      else if ((mode === 'watch --out' || mode === 'codes get --out') && intent.orderId)
        args =
          mode === 'watch --out'
            ? ['order', 'watch', intent.orderId, '--out', first.file, ...poll, ...as]
            : ['codes', 'get', intent.orderId, '--wait', ...poll, '--out', first.file, ...as];
      else args = random() < 0.5 ? natural : RESUME_ALL_JSON;
      await attempt(args, n, randomKill(n));
    }
    // Every order of the phase reached the user. A command killed (or failed) at its end leaves what the next
    // one ends: the `order resume --all` a user runs after an interrupted run, never killed. Before the next
    // phase too: that one runs in another scope (live, another profile), whose runs leave this scope's notes alone.
    if (last.signal !== null || last.code !== 0) {
      finished = true;
      await attempt(RESUME_ALL_JSON, -1, {});
    }
  }
  const ids = await charged();
  const records = historyRecords(configDir);
  const totals = {
    orders: orders.length,
    charges: 0,
    lost: 0,
    double: 0,
    unrecorded: 0,
    noCharge: 0,
    stuck,
    kills,
    finished: finished ? 1 : 0,
  };
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
  // A codes file's temporary files (`.<name>.giftcodes-<pid>-<12 hex>.tmp`) left in the round's folders: the codes of
  // a killed write, which the next run of the path, or the order's end, removes (src/files/codes-temps.ts).
  const hidden = [configDir, join(configDir, 'sc_live_out')].flatMap((d) =>
    existsSync(d) ? readdirSync(d).filter((n) => /\.giftcodes-\d+-[0-9a-f]{12}\.tmp$/.test(n)) : [],
  );
  if (process.env.CHAOS_DEBUG && hidden.length > 0) console.log(i, mode, 'hidden temporary files:', hidden.join(' '));
  if (process.env.CHAOS_DEBUG && failed({ ...totals, left: intents.length })) console.log(i, mode, 'kept', configDir);
  else rmSync(configDir, { recursive: true, force: true });
  return { ...totals, left: intents.length, litter: litter.length, hidden: hidden.length };
}

async function someAsync(items, test) {
  for (const item of items) if (await test(item)) return true;
  return false;
}

/** What fails a round (and the script): litter and rounds that needed a finishing resume are only reported. */
export function failed(r) {
  return r.lost > 0 || r.double > 0 || r.left > 0 || r.unrecorded > 0 || r.noCharge > 0 || r.stuck > 0;
}

export async function runChaos({
  rounds = 300,
  concurrency = 4,
  seed = Date.now() % 1_000_000,
  log = () => undefined,
} = {}) {
  const random = rng(seed);
  const template = mkdtempSync(join(tmpdir(), 'giftcodes-chaos-template-'));
  const server = await startServer(seedFile(template));
  // The default profile holds the demo reseller's two keys, MISC's profile its reseller's two.
  for (const [profile, key] of [
    [undefined, KEY],
    [undefined, LIVE_KEY],
    [MISC.profile, MISC.test],
    [MISC.profile, MISC.live],
  ]) {
    const login = await new Promise((resolve) => {
      const proc = spawn(
        process.execPath,
        [BIN, 'login', '--api-key-stdin', '--base-url', server.url, ...(profile ? ['--profile', profile] : [])],
        {
          env: { ...process.env, GIFTCODES_CONFIG_DIR: template, CI: 'true' },
          stdio: ['pipe', 'ignore', 'pipe'],
        },
      );
      proc.stdin.end(key);
      proc.on('close', resolve);
    });
    if (login !== 0) throw new Error(`login failed (${profile ?? 'default'} profile)`);
  }
  rmSync(join(template, 'seed.json'));
  const api = (path, key = KEY) =>
    fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } }).then((r) => r.json());
  const keyOf = (o) => (o.reseller === MISC.reseller ? MISC[o.env] : o.env === 'live' ? LIVE_KEY : KEY);
  const ctx = {
    template,
    ledger: async () => (await api('/_admin/ledger')).orders,
    /** Whether the file holds exactly the codes the server has for that order. */
    fileHolds: async (o, id) => {
      const codes = fileCodes(o.file, o.quantity);
      if (!codes) return false;
      const page = await api(`/v1/orders/${id}/codes?limit=1000`, keyOf(o));
      const theirs = new Set((page.data ?? []).map((c) => c.code));
      return theirs.size === o.quantity && codes.every((c) => theirs.has(c));
    },
  };
  const totals = {
    rounds: 0,
    orders: 0,
    charges: 0,
    lost: 0,
    double: 0,
    left: 0,
    unrecorded: 0,
    noCharge: 0,
    stuck: 0,
    kills: 0,
    finished: 0,
    litter: 0,
    hidden: 0,
    seed,
  };
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
          for (const name of [
            'orders',
            'charges',
            'lost',
            'double',
            'left',
            'unrecorded',
            'noCharge',
            'stuck',
            'kills',
            'finished',
            'litter',
            'hidden',
          ])
            totals[name] += r[name];
          byMode[mode]++;
          if (failed(r))
            log(
              `round ${i} (${mode}): charges ${r.charges} of ${r.orders} orders, double ${r.double}, lost ${r.lost}, left ${r.left}, unrecorded ${r.unrecorded}${r.stuck ? ', stuck' : ''}`,
            );
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
  const arg = (name, fallback) =>
    process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback;
  const started = Date.now();
  const result = await runChaos({
    rounds: arg('--rounds', 300),
    concurrency: arg('--concurrency', 4),
    seed: arg('--seed', Date.now() % 1_000_000),
    log: (line) => console.log(line),
  });
  console.log(
    `chaos: ${result.rounds} rounds, ${result.orders} orders, ${result.kills} kills, ${result.charges} charges, ${result.double} double charges, ${result.lost} lost, ${result.left} left pending, ${result.unrecorded} charged without a record, ${result.noCharge} rounds without a charge, ${result.stuck} rounds stuck (seed ${result.seed}, ${Math.round((Date.now() - started) / 1000)} s)`,
  );
  console.log(
    `rounds finished by order resume --all after an interrupted last command: ${result.finished}; other files left in journal/: ${result.litter}; codes left in hidden temporary files: ${result.hidden}`,
  );
  console.log(
    `modes: ${Object.entries(result.byMode)
      .map(([m, n]) => `${m} ${n}`)
      .join(', ')}`,
  );
  process.exit(failed(result) ? 1 : 0);
}
