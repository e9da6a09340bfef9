// `npm run demo`: the CLI end to end against an embedded reference server, in a throwaway config dir.
// Each step is one line at the bottom of this file; a failing step stops the demo with a non-zero exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'giftcodes');
const STEP_TIMEOUT_MS = 60_000;
const configDir = mkdtempSync(join(tmpdir(), 'giftcodes-demo-'));
// The codes file outlives the demo, so it can be opened afterwards.
const codesFile = join(mkdtempSync(join(tmpdir(), 'giftcodes-demo-codes-')), 'codes.csv');
const env = { ...process.env, GIFTCODES_CONFIG_DIR: configDir };
for (const name of ['GIFTCODES_API_KEY', 'GIFTCODES_PROFILE', 'GIFTCODES_BASE_URL']) delete env[name];
const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${text}\x1b[22m` : text);

/** Starts `giftcodes serve --port 0` and reads its URL and rs_demo's test key from the lines it prints. */
async function startServer() {
  const proc = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines = createInterface({ input: proc.stdout });
  const found = await new Promise((resolvePromise, reject) => {
    const seen = {};
    const timer = setTimeout(
      () => reject(new Error(`the reference server did not start within 10 s\n${stderr}`)),
      10_000,
    );
    proc.once('exit', (code) => reject(new Error(`the reference server exited with ${code}\n${stderr}`)));
    lines.on('line', (line) => {
      seen.url ??= /listening on (http:\/\/\S+)/.exec(line)?.[1];
      seen.testKey ??= /^\s+rs_demo\s+test\s+(sc_test_\S+)$/.exec(line)?.[1];
      if (seen.url && seen.testKey) {
        clearTimeout(timer);
        resolvePromise(seen);
      }
    });
  });
  return {
    ...found,
    stop: () =>
      new Promise((resolvePromise) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolvePromise();
        proc.once('exit', () => resolvePromise());
        proc.kill('SIGTERM');
      }),
  };
}

/**
 * Runs one `giftcodes` command, showing it and its output; resolves to its stdout (so a later step can use
 * an id from it), rejects when it exits non-zero. `args` is a string split on spaces, or an array.
 */
function giftcodes(args, { input } = {}) {
  const argv = Array.isArray(args) ? args : args.split(' ').filter(Boolean);
  process.stdout.write(`\n${bold(`$ giftcodes ${argv.join(' ')}`)}${input === undefined ? '' : '   (key on stdin)'}\n`);
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, [BIN, ...argv], { env, stdio: ['pipe', 'pipe', 'inherit'] });
    let stdout = '';
    proc.stdout.on('data', (chunk) => {
      stdout += chunk;
      process.stdout.write(chunk);
    });
    const timer = setTimeout(() => proc.kill('SIGTERM'), STEP_TIMEOUT_MS);
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(stdout);
      else reject(new Error(`giftcodes ${argv.join(' ')} failed (${signal ?? `exit ${code}`})`));
    });
    proc.stdin.end(input ?? '');
  });
}

const server = await startServer();
process.stdout.write(`giftcodes demo: reference server on ${server.url}, config in ${configDir}\n`);
const cleanUp = async () => {
  await server.stop();
  rmSync(configDir, { recursive: true, force: true });
};
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

let exitCode = 0;
try {
  await giftcodes(`login --api-key-stdin --base-url ${server.url}`, { input: server.testKey });
  await giftcodes('ping');
  await giftcodes('catalog list');
  const order = JSON.parse(await giftcodes('order place --product amazon-us-25 --quantity 5 --json'));
  await giftcodes(`order watch ${order.id} --interval 0.5`);
  await giftcodes(`codes get ${order.id} --out ${codesFile}`);
  await giftcodes('order pending');
  process.stdout.write(
    `\n${bold('demo finished: every step succeeded')}\nthe codes of order ${order.id} are in ${codesFile}\n`,
  );
} catch (error) {
  process.stderr.write(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
