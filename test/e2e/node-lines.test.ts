// The Node lines giftcodes runs on (README, "Node versions and the compile cache"): an older Node gets an error line
// and a hint from the launcher, and a supported one keeps its compiled modules in giftcodes' cache directory.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, runCli, tempDir } from '../helpers/e2e.js';
import { keepingExit, openTerminal, type Terminal } from '../helpers/tmux.js';

/** A Node 20 binary: the one `npm test` fetched (GIFTCODES_TEST_NODE20), else from the npm registry's `node` package as npm test fetches it. */
function node20(): Promise<string> {
  const given = process.env.GIFTCODES_TEST_NODE20;
  if (given) return Promise.resolve(given);
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--yes', '--package', 'node@20', '--', 'node', '-p', 'process.execPath'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(out.trim())
        : reject(new Error(`could not get Node 20 from the npm registry (npx exit ${code})`)),
    );
  });
}

describe('a Node older than 22.1', () => {
  let node = '';
  beforeAll(async () => {
    node = await node20();
    expect(spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout).toMatch(/^20\./);
  }, 300_000);

  const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // An error line and its hint, as every other error (docs/exit-codes.md), so that the cron log's grep for errors
  // (docs/cron-and-plans.md, `^[^ ]+ error: `) finds it. The node's path too: under cron PATH often finds another
  // node than the person's shell does. Off a terminal (a cron log) each line starts with its time, as every other
  // stderr line does there. It names the page to read where the package is installed (docs/ ships with it:
  // package.json "files"), not a path of the repository's.
  const refusal = (o: { stamped?: boolean; root?: string } = {}): RegExp => {
    const stamp = o.stamped === false ? '' : '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z ';
    return new RegExp(
      `^${stamp}error: Node 20\\.\\d+\\.\\d+ \\(${escaped(node)}\\) is too old: giftcodes needs Node 22\\.1 or later \\(22, 24 or 26\\)\\n` +
        `${stamp}hint: a cron job or service may find another node on its PATH than your shell: see ${escaped(join(o.root ?? ROOT, 'docs', 'node-versions.md'))}\\n$`,
    );
  };

  it.each([[['--version']], [['ping']], [['order', 'place', 'x']]])(
    'giftcodes %s: an error line and a hint on stderr, nothing on stdout, exit 3',
    (args) => {
      const result = spawnSync(node, [BIN, ...args], {
        encoding: 'utf8',
        env: { ...process.env, GIFTCODES_CONFIG_DIR: tempDir() },
      });
      expect(result.status).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(refusal());
      // The grep docs/cron-and-plans.md gives for a cron log's errors finds it.
      expect(result.stderr.split('\n').filter((line) => /^[^ ]+ error: /.test(line))).toHaveLength(1);
    },
  );

  it('is refused before the program loads: a bundle Node could not even parse changes nothing', () => {
    const install = tempDir();
    cpSync(join(ROOT, 'bin'), join(install, 'bin'), { recursive: true });
    mkdirSync(join(install, 'dist'));
    writeFileSync(join(install, 'dist', 'start.js'), 'export const main = () => {{ this is not JavaScript');
    writeFileSync(join(install, 'package.json'), '{"type":"module"}');
    const result = spawnSync(node, [join(install, 'bin', 'giftcodes'), 'ping'], { encoding: 'utf8' });
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(refusal({ root: install }));
  });

  let terminal: Terminal | undefined;
  afterEach(() => terminal?.close());

  it('at a terminal: the line without a time, as every stderr line there', async () => {
    terminal = openTerminal(
      keepingExit([node, BIN, 'ping']),
      { PATH: '/usr/bin:/bin', HOME: tempDir() },
      {
        columns: 400,
        rows: 10,
      },
    );
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toContain('[exit 3]');
    expect(`${screen.split('\n').slice(0, 2).join('\n')}\n`).toMatch(refusal({ stamped: false }));
  });
});

describe("Node's compile cache, in giftcodes' cache directory", () => {
  /** A command that loads the program (cli.js and a verb) but needs no config or server. */
  const command = ['completion', 'bash'];
  const debug = { NODE_DEBUG_NATIVE: 'COMPILE_CACHE' };
  const versionDirs = (dir: string): string[] =>
    existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(`v${process.versions.node}-`)) : [];

  it('lives in $XDG_CACHE_HOME/giftcodes, made 0700, and the second run compiles the program from it', async () => {
    const xdg = tempDir();
    const first = await runCli(command, {
      env: { XDG_CACHE_HOME: xdg, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined },
    });
    expect(first.code).toBe(0);
    const dir = join(xdg, 'giftcodes');
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [kept] = versionDirs(dir);
    expect(kept).toBeDefined();
    expect(readdirSync(join(dir, kept!)).length).toBeGreaterThan(0);
    // Not in the shared <tmpdir>/node-compile-cache.
    const second = await runCli(command, {
      env: { XDG_CACHE_HOME: xdg, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, ...debug },
    });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Node's own debug lines (NODE_DEBUG_NATIVE), worded "cache for file://…" on 22, "V8 code cache for ESM file://…" later.
    expect(second.stderr).toMatch(/cache for (ESM )?file:\/\/\S*\/dist\/cli\.js was accepted/);
    expect(second.stderr).not.toContain('node-compile-cache');
  });

  it('an existing directory others can read is tightened to 0700', async () => {
    const xdg = tempDir();
    mkdirSync(join(xdg, 'giftcodes'), { mode: 0o755 });
    chmodSync(join(xdg, 'giftcodes'), 0o755);
    expect((await runCli(command, { env: { XDG_CACHE_HOME: xdg } })).code).toBe(0);
    expect(statSync(join(xdg, 'giftcodes')).mode & 0o777).toBe(0o700);
  });

  it('NODE_DISABLE_COMPILE_CACHE: no directory is made, nothing is said', async () => {
    const xdg = tempDir();
    const result = await runCli(command, { env: { XDG_CACHE_HOME: xdg, NODE_DISABLE_COMPILE_CACHE: '1', ...debug } });
    expect(result.code).toBe(0);
    expect(existsSync(join(xdg, 'giftcodes'))).toBe(false);
    expect(result.stderr).not.toMatch(/was accepted|writing cache/);
  });

  it('a cache directory that cannot be made: the command runs as without one, silently', async () => {
    const xdg = tempDir();
    // A file where the directory would go.
    writeFileSync(join(xdg, 'giftcodes'), '');
    const result = await runCli(command, { env: { XDG_CACHE_HOME: xdg } });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('giftcodes');
  });
});
