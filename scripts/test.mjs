// `npm test`: build, then the whole suite on Node 22 and the end-to-end subset on Node 24 and 26 at once. Every Node comes
// from the npm registry's `node` package (npx caches them after the first fetch), never from this machine, whose
// own Node may be one giftcodes refuses; Node 20 is fetched too, for the launcher's refusal test
// (test/e2e/node-lines.test.ts). A Node that cannot be fetched is a failure, never a skip. Ends with
// "N passed, N failed".
//
// Why the whole suite on 22: it is the oldest line `engines` accepts and the one the bundle is built for
// (esbuild's target), so it is where code that leans on something newer fails. The newer lines add more than
// they take away; what differs between them (HTTP, TTY prompts, the journal's fs and fsync, the compile cache,
// the packed install) is what the subset covers.
//
//   node scripts/test.mjs                 everything (what CI runs)
//   node scripts/test.mjs --node 26       only the end-to-end subset on Node 26 (built with Node 26)
//   node scripts/test.mjs --node 24 --all-e2e   every end-to-end file on Node 24, not only the subset
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packForRuns } from './pack-install.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const WHOLE_SUITE = 22;
const OTHER_LTS = [24, 26];
const REFUSED = 20;

// On the other Node lines, the end-to-end files that cover what differs between Node versions (HTTP
// client and server, TTY prompts, fs and fsync of the journal, the packed install, zlib's decoding of gzipped
// pages and the detaching of their buffers: src/api/transport.ts) and finish fast. The
// long soak and chaos files run on Node 22 only, and so do help and completion: text the program makes the same
// on every line (completion's terminal, tmux and bash, is tty.test.ts's too; completion alone took 54 s on 22), to
// keep `npm test` near its budget of 6 minutes on two cores. So does order-endings (the words an order's end is
// said in, and a 5 s wait for a run that does not stop): 20 s alone, 70 s on each line beside the whole suite, and
// what of it differs between lines (signals, the HTTP client) hostile, tty and order cover there.
const E2E_SUBSET = [
  'test/e2e/ping.test.ts',
  'test/e2e/order.test.ts',
  'test/e2e/hostile.test.ts',
  'test/e2e/webhook.test.ts',
  'test/e2e/tty.test.ts',
  'test/e2e/package.test.ts',
  'test/e2e/demo.test.ts',
  'test/e2e/node-lines.test.ts',
  'test/e2e/gzip-export.test.ts',
];

const args = process.argv.slice(2);
const onlyNode = args.includes('--node') ? Number(args[args.indexOf('--node') + 1]) : undefined;
const allE2e = args.includes('--all-e2e');
const reports = mkdtempSync(join(tmpdir(), 'giftcodes-test-'));
const results = [];
let reportCount = 0;

ensureTools();
// Every line is fetched at once (a first fetch downloads each); the build and the whole suite wait only for theirs.
const lines = onlyNode === undefined ? [WHOLE_SUITE, ...OTHER_LTS] : [onlyNode];
const fetches = new Map([...lines, REFUSED].map((major) => [major, nodeBinary(major)]));
const first = await fetches.get(lines[0]);
const refused = await fetches.get(REFUSED);
for (const node of [first, refused]) report(node);
if (!first.path) {
  finish();
} else {
  if (refused.path) process.env.GIFTCODES_TEST_NODE20 = refused.path;
  // Built with the Node that runs the suite: the build runs the program (help, man page, undici's code cache).
  results.push(await run(`build (Node ${first.version})`, first.path, [join(ROOT, 'scripts', 'build.mjs')]));
  // The tarball and its global install, made once for every run (test/e2e/package.test.ts waits for them there):
  // npm is the same on each, and each runs the installed package on its own Node (scripts/pack-install.mjs).
  const packDir = join(reports, 'pack');
  process.env.GIFTCODES_TEST_PACKED = packDir;
  const packing = packForRuns(ROOT, packDir, process.env);
  // The fuzz suites run at 0.3 of their counts here (`npm run fuzz` runs them whole): the suite's time budget is 6
  // minutes of two cores. Their seeds are fixed, so the cases drawn are the same each run (and still reach every exit
  // code each suite asks for).
  process.env.GIFTCODES_FUZZ_SCALE ??= '0.3';
  // The whole suite and the subsets run at once: the suite's files spend part of their time waiting (on servers,
  // terminals, fulfilment) and its tail runs its last files alone, so the cores are not always busy; the subsets,
  // one file at a time each, fill them. A run whose output would meet another's prints it whole when it ends.
  const runs = [];
  if (onlyNode === undefined) runs.push(vitest(`the whole suite on Node ${first.version}`, first.path, []));
  for (const major of onlyNode === undefined ? OTHER_LTS : [onlyNode]) {
    const node = await fetches.get(major);
    if (major !== lines[0]) report(node);
    if (node.path)
      runs.push(
        vitest(
          `end-to-end ${allE2e ? 'suite' : 'subset'} on Node ${node.version}`,
          node.path,
          [...(allE2e ? ['test/e2e'] : E2E_SUBSET), ...(onlyNode === undefined ? ['--maxWorkers=1'] : [])],
          { whole: onlyNode === undefined },
        ),
      );
  }
  results.push(...(await Promise.all(runs)));
  await packing;
  finish();
}

function report(node) {
  console.log(`\n▶ ${node.result.name}`);
  process.stderr.write(node.stderr);
  if (!node.result.ok) console.error(`✗ ${node.result.why}`);
  results.push(node.result);
}

function finish() {
  rmSync(reports, { recursive: true, force: true });

  let passed = 0;
  let failed = 0;
  console.log('\nnpm test:');
  for (const result of results) {
    passed += result.passed;
    failed += result.failed;
    console.log(
      `  ${result.ok ? 'ok  ' : 'FAIL'} ${result.name}${result.counted ? `: ${result.passed} passed, ${result.failed} failed` : ''}${result.why ? ` (${result.why})` : ''}`,
    );
  }
  const ok = results.every((result) => result.ok);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(ok ? 0 : 1);
}

/** Runs a command to its end: its output goes straight to this terminal, or with `whole` all at once when it ends. */
function run(name, command, commandArgs, o = {}) {
  if (!o.whole) console.log(`\n▶ ${name}`);
  const child = spawn(command, commandArgs, { cwd: ROOT, stdio: o.whole ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  const output = [];
  child.stdout?.on('data', (chunk) => output.push(chunk));
  child.stderr?.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    let error;
    child.on('error', (e) => (error = e));
    child.on('close', (code, signal) => {
      if (o.whole) {
        console.log(`\n▶ ${name}`);
        process.stdout.write(Buffer.concat(output));
      }
      const ok = code === 0;
      const why = error ? error.message : ok ? '' : `exit ${code ?? signal}`;
      resolve({ name, ok, why, passed: 0, failed: 0, counted: false });
    });
  });
}

async function vitest(name, node, files, o = {}) {
  const report = join(reports, `${++reportCount}.json`);
  const result = await run(
    name,
    node,
    [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...files],
    o,
  );
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    // A file that fails outside its tests (a beforeAll, an import) counts as one failure.
    const brokenFiles = json.testResults.filter(
      (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
    );
    result.passed = json.numPassedTests;
    result.failed = json.numFailedTests + brokenFiles.length;
    result.counted = true;
    if (json.numTotalTests === 0) Object.assign(result, { ok: false, why: 'no test ran' });
  } catch {
    Object.assign(result, { ok: false, why: result.why || 'vitest wrote no report' });
  }
  return result;
}

/** The node binary of an LTS line from the npm registry, with its result line and what npx printed on stderr; a failure to get it fails the run, loudly. */
function nodeBinary(major) {
  const name = `fetch Node ${major} (npx -p node@${major})`;
  const child = spawn(
    'npx',
    ['--yes', '--package', `node@${major}`, '--', 'node', '-p', 'process.execPath + "\\n" + process.versions.node'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  return new Promise((resolve) => {
    let error;
    child.on('error', (e) => (error = e));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const [path, version] = stdout.trim().split('\n');
      if (code !== 0 || !path || !version?.startsWith(`${major}.`)) {
        const why = error?.message ?? `exit ${code ?? signal}, printed ${JSON.stringify(stdout)}`;
        resolve({
          stderr,
          result: {
            name,
            ok: false,
            why: `could not get Node ${major} from the npm registry: ${why}`,
            passed: 0,
            failed: 0,
            counted: false,
          },
        });
        return;
      }
      resolve({
        path,
        version,
        stderr,
        result: { name: `${name}: ${version}`, ok: true, why: '', passed: 0, failed: 0, counted: false },
      });
    });
  });
}

/**
 * The terminal tests drive tmux and bash, the keyring tests a Secret Service, the man page test mandoc, the
 * encrypted codes tests age. A fresh machine may lack them: as root with apt-get (CI here), install them from Debian's packages; otherwise the
 * tests that need them fail or skip and say why.
 */
function ensureTools() {
  // A tool is a command on PATH, or a check to run (Python's openpyxl is a module of Debian's own python3).
  const CHECKS = { openpyxl: '/usr/bin/python3 -c "import openpyxl"' };
  const has = (tool) => spawnSync('sh', ['-c', CHECKS[tool] ?? `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
  // tool → Debian package, and what goes untested without it. Installed here, before any test file runs: two files
  // that install the same package at once would meet on dpkg's lock.
  const wanted = [
    ['tmux', 'tmux', 'the terminal tests (test/e2e/tty.test.ts, completion.test.ts) will fail'],
    ['dbus-run-session', 'dbus', 'the Secret Service tests (test/e2e/keyring.test.ts) will be skipped'],
    ['dbus-send', 'dbus', 'the Secret Service tests (test/e2e/keyring.test.ts) will be skipped'],
    ['gnome-keyring-daemon', 'gnome-keyring', 'the Secret Service tests (test/e2e/keyring.test.ts) will be skipped'],
    ['secret-tool', 'libsecret-tools', 'the Secret Service tests (test/e2e/keyring.test.ts) will be skipped'],
    ['mandoc', 'mandoc', 'the man page lint (test/e2e/man.test.ts) will be skipped'],
    ['age', 'age', 'the encrypted codes tests (test/e2e/age.test.ts, failpoints.test.ts) will fail'],
    ['age-keygen', 'age', 'the encrypted codes tests (test/e2e/age.test.ts, failpoints.test.ts) will fail'],
    [
      'openpyxl',
      'python3-openpyxl',
      'the workbook tests (test/e2e/xlsx.test.ts, failpoints.test.ts, delivery-capture.test.ts) will fail',
    ],
  ];
  const missing = wanted.filter(([tool]) => !has(tool));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map(([, pkg]) => pkg))];
  if (process.getuid?.() === 0 && has('apt-get')) {
    console.log(`\n▶ missing ${missing.map(([tool]) => tool).join(', ')}: apt-get install ${packages.join(' ')}`);
    const install = () =>
      spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit' }).status === 0;
    if (install() || (spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' }).status === 0 && install())) return;
  }
  for (const [tool, pkg, effect] of missing)
    console.error(
      `✗ ${tool} is not installed and cannot be installed here (Debian package ${pkg}; needs root and apt-get): ${effect}`,
    );
}
