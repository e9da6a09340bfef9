// README's quickstart, run as written: a fresh copy of the built checkout is put on PATH with `npm link` (the
// install README gives), `giftcodes serve` is started from README's first block, and the second block runs in
// sh against it, from nothing to an order's codes in a file. The one change: serve gets --port 0 and the
// commands GIFTCODES_BASE_URL, so that the test never takes port 4010 from anything else on the machine.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/e2e.js';
import { MACHINE_EXTRA_CA_CERTS } from '../helpers/machine-env.js';

const run = promisify(execFile);
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced sh blocks of a README section, in order. */
function shBlocks(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}`);
  expect(start, `README has no "## ${heading}" section`).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  return [...readme.slice(start, end < 0 ? undefined : end).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

let home: string;
let prefix: string;
let server: ChildProcess | undefined;
let baseUrl: string;
/** Only what a fresh shell has: the linked giftcodes, node, the system's tools; nothing of the developer's. */
const shellEnv = (): NodeJS.ProcessEnv => ({
  PATH: [join(prefix, 'bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  HOME: home,
  GIFTCODES_CONFIG_DIR: join(home, 'config'),
  GIFTCODES_KEYRING: 'off',
  NO_COLOR: '1',
});

beforeAll(async () => {
  home = tempDir('giftcodes-readme-');
  // The checkout as a fresh clone would have it after `npm install && npm run build` (the build is the one
  // `npm test` made; the dependencies are this checkout's), then README's `npm link` into a prefix of its own.
  const checkout = join(home, 'checkout');
  for (const part of ['package.json', 'bin', 'dist', 'README.md', 'LICENSE'])
    cpSync(join(ROOT, part), join(checkout, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  prefix = join(home, 'prefix');
  const npmEnv = {
    ...process.env,
    npm_config_prefix: prefix,
    ...(MACHINE_EXTRA_CA_CERTS === undefined ? {} : { NODE_EXTRA_CA_CERTS: MACHINE_EXTRA_CA_CERTS }),
  };
  await run('npm', ['link', '--no-audit', '--no-fund', '--offline'], { cwd: checkout, env: npmEnv });
}, 300_000);

afterAll(async () => {
  if (server === undefined || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server!.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
});

describe("README's install and quickstart, as written", () => {
  it('npm link puts giftcodes on PATH', async () => {
    expect(readme).toContain('npm install && npm run build && npm link');
    const { stdout } = await run('sh', ['-c', 'command -v giftcodes && giftcodes --version'], { env: shellEnv() });
    expect(stdout.trim().split('\n')).toEqual([
      join(prefix, 'bin', 'giftcodes'),
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    ]);
  });

  it('goes from nothing to a placed order and its codes in a file', async () => {
    const [serve, client] = shBlocks('Quickstart');
    expect(serve!.trim()).toBe('giftcodes serve');
    server = spawn('sh', ['-c', `exec ${serve!.trim()} --port 0`], {
      env: shellEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('giftcodes serve printed no listening line')), 30_000);
      server!.once('exit', (code) => reject(new Error(`giftcodes serve exited ${code}`)));
      createInterface({ input: server!.stdout! }).on('line', (line) => {
        const listening = /listening on (http:\/\/\S+)/.exec(line);
        if (listening) {
          clearTimeout(timer);
          resolve(listening[1]!);
        }
      });
    });

    const work = join(home, 'work');
    mkdirSync(work);
    const quantity = Number(/--quantity (\d+) --out codes\.csv/.exec(client!)?.[1]);
    expect(quantity).toBeGreaterThan(0);
    const result = await run('sh', ['-e', '-c', client!], {
      cwd: work,
      env: { ...shellEnv(), GIFTCODES_BASE_URL: baseUrl },
      timeout: 120_000,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(result.stderr, 'the quickstart ended with an error').not.toMatch(/^error:/m);
    expect('code' in result ? result.code : 0).toBe(0);

    // The CSV: a header, then one row per ordered code; the JSON from codes get: the same codes.
    const rows = readFileSync(join(work, 'codes.csv'), 'utf8').trimEnd().split('\n');
    expect(rows[0]).toMatch(/^order_id,code,/);
    expect(rows.length - 1).toBe(quantity);
    const again = JSON.parse(readFileSync(join(work, 'codes.json'), 'utf8')) as { code: string }[];
    expect(again.map((record) => record.code).sort()).toEqual(
      rows
        .slice(1)
        .map((row) => row.split(',')[1])
        .sort(),
    );

    // The files the man page and docs/manual list under FILES are where they say, after a real run.
    for (const file of ['config.json', 'journal', 'history'])
      expect(existsSync(join(home, 'config', file)), file).toBe(true);
    expect(
      readdirSync(join(home, 'config')).filter((name) => /^catalog-cache-[0-9a-f]+\.json$/.test(name)),
      'catalog-cache-<hash>.json',
    ).toHaveLength(1);
  }, 300_000);
});
