// Secrets: a key never in output, logs, errors, --verbose, crash output, the journal or any file but the
// config; --api-key warns that argv is visible; a key never leaves for a non-loopback plain-http host, not
// even as a DNS lookup; and the config and codes files stay private under any umask.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  BIN,
  DEMO_KEYS,
  ROOT,
  loggedIn,
  runCli,
  servedApi,
  spawnCli,
  tempDir,
  unstamped,
  type RunOptions,
  type RunResult,
} from '../helpers/e2e.js';
import { recordOutput } from '../helpers/leaks.js';

const KEY = DEMO_KEYS.test;
const LIVE = DEMO_KEYS.live;
/** A key also leaks in part: its secret middle, without the prefix and the last four that masking shows. */
const FRAGMENTS = [KEY, LIVE, KEY.slice(8, -4), LIVE.slice(8, -4)];

const served = servedApi(['--fulfil-after', '300']);
/** Commits each order, then drops the connection: the order stays pending in the journal. */
const dropping = servedApi(['--fulfil-after', '0', '--drop-after-commit', '1']);

function leaks(text: string): string[] {
  return FRAGMENTS.filter((fragment) => text.includes(fragment)).map((fragment) => `${fragment.slice(0, 12)}…`);
}

/** Every file under a directory, as relative path → content. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path, 'latin1');
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

describe('--api-key on the command line', () => {
  test('warns once on stderr, pointing at GIFTCODES_API_KEY and login --api-key-stdin', async () => {
    const result = await runCli(['ping', '--api-key', KEY], { baseUrl: served.url });
    expect(result.code).toBe(0);
    // A non-terminal stderr stamps each notice with its ISO 8601 time (cron logs).
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.includes('--api-key puts the key'))
      .map((line) => line.replace(/^\S+Z /, ''));
    expect(warnings).toEqual([
      'warning: --api-key puts the key in your shell history and in ps output; set GIFTCODES_API_KEY instead, or save it once with: giftcodes login (it asks for the key; a script pipes it to giftcodes login --api-key-stdin)',
    ]);
    // login with --api-key too (the key still went through argv).
    const login = await runCli(['login', '--api-key', KEY], { baseUrl: served.url });
    expect(login.code).toBe(0);
    expect(login.stderr.match(/--api-key puts the key/g)).toHaveLength(1);
  });

  test('says nothing for GIFTCODES_API_KEY, a saved key, or in --json mode', async () => {
    const { server } = served;
    const env = await runCli(['ping'], { baseUrl: server.url, env: { GIFTCODES_API_KEY: KEY } });
    expect(env.code).toBe(0);
    expect(env.stderr).toBe('');
    const saved = await runCli(['ping'], { configDir: await loggedIn(server) });
    expect(saved.stderr).toBe('');
    const json = await runCli(['ping', '--json', '--api-key', KEY], { baseUrl: server.url });
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
  });
});

describe('a known key through every command, with --verbose', () => {
  test('appears in no output and in no file but config.json: not the journal, the catalog cache or codes files', async () => {
    const { server: dropper } = dropping;
    const configDir = tempDir('giftcodes-secrets-');
    const cwd = tempDir('giftcodes-secrets-cwd-');
    const outputs: RunResult[] = [];
    const journalSeen: Record<string, string> = {};
    const run = async (args: string[], o: RunOptions & { expectCode?: number } = {}): Promise<RunResult> => {
      const result = await runCli([...args, '--verbose'], { configDir, cwd, baseUrl: served.url, ...o });
      outputs.push(result);
      expect(result.code, `giftcodes ${args.join(' ')}: ${result.stderr}`).toBe(o.expectCode ?? 0);
      // The journal as it stands after every command, so a key written and later removed is caught too.
      Object.assign(journalSeen, files(join(configDir, 'journal')));
      return result;
    };

    await run(['login', '--api-key-stdin'], { input: KEY });
    await run(['login', '--api-key-stdin'], { input: LIVE });
    await run(['config', 'show']);
    await run(['config', 'show', '--json']);
    await run(['config', 'list']);
    await run(['config', 'list', '--json']);
    await run(['config', 'set', 'default-env', 'test']);
    await run(['config', 'use', 'default']);
    await run(['ping']);
    await run(['ping', '--json', '--env', 'live']);
    await run(['ping', '--api-key', KEY]);
    await run(['catalog', 'list']);
    await run(['catalog', 'list', '--json']);
    const placed = JSON.parse(
      (await run(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--json'])).stdout,
    ) as { id: string };
    await run(['order', 'show', placed.id]);
    await run(['order', 'watch', placed.id, '--interval', '0.1', '--timeout', '240']);
    await run([
      'order',
      'place',
      '--product',
      'amazon-us-25',
      '--quantity',
      '3',
      '--out',
      'codes.csv',
      '--interval',
      '0.1',
    ]);
    await run(['codes', 'get', placed.id, '--out', 'codes.json']);
    await run(['codes', 'get', placed.id, '--format', 'jsonl']);
    // Orders whose answer never came: pending, resumed, abandoned.
    await run(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--retries', '0'], {
      baseUrl: dropper.url,
      expectCode: 5,
    });
    const [pending] = JSON.parse((await run(['order', 'pending', '--json'])).stdout) as { key: string }[];
    await run(['order', 'pending']);
    await run(['order', 'resume', pending!.key]);
    await run(['order', 'place', '--product', 'amazon-us-25', '--quantity', '1', '--retries', '0'], {
      baseUrl: dropper.url,
      expectCode: 5,
    });
    const [again] = JSON.parse((await run(['order', 'pending', '--json'])).stdout) as { key: string }[];
    await run(['order', 'abandon', again!.key]);
    // Failures print the key's surroundings: the URL, the status, the hint.
    await run(['order', 'show', 'ord_missing'], { expectCode: 4 });
    await run(['ping', '--retries', '0'], { baseUrl: 'http://127.0.0.1:1', expectCode: 5 });
    await run(['ping', '--api-key', 'sc_test_not_a_real_key_0000'], { expectCode: 3 });
    await run(['completion', 'bash']);
    const listener = spawnCli(['webhook', 'listen', '--port', '0', '--secret', 'whsec_secrets_test', '--verbose'], {
      configDir,
      cwd,
      env: { GIFTCODES_API_KEY: KEY },
    });
    listener.proc.stdin?.end();
    setTimeout(() => listener.proc.kill('SIGTERM'), 800);
    outputs.push(await listener.result);
    await run(['logout', '--env', 'live']);

    for (const result of outputs) expect(leaks(`${result.stdout}\n${result.stderr}`)).toEqual([]);
    // --verbose did print its attempt lines (so they were checked), and the key's masked form is what shows.
    expect(outputs.some((r) => /^POST \/v1\/orders 201 \d+ms attempt 1\/\d+$/m.test(unstamped(r.stderr)))).toBe(true);
    expect(outputs.some((r) => r.stdout.includes('sc_test_…7e2d'))).toBe(true);

    const stored = files(configDir);
    expect(Object.keys(stored)).toEqual(
      expect.arrayContaining(['config.json', expect.stringMatching(/^catalog-cache-[0-9a-f]{8}\.json$/)]),
    );
    for (const [path, content] of Object.entries({ ...stored, ...journalSeen })) {
      if (path === 'config.json') continue;
      expect(leaks(content), path).toEqual([]);
    }
    expect(Object.keys(journalSeen).length).toBeGreaterThan(0);
    // config.json holds the key by design, and only the test key is left after logout --env live.
    expect(stored['config.json']).toContain(KEY);
    expect(stored['config.json']).not.toContain(LIVE);
    const written = files(cwd);
    expect(Object.keys(written).sort()).toEqual(['codes.csv', 'codes.json']);
    for (const [path, content] of Object.entries(written)) expect(leaks(content), path).toEqual([]);
  }, 300_000);
});

describe('crash output', () => {
  test('an internal error, with GIFTCODES_DEBUG=1 stack output, shows the key masked', async () => {
    // Forced from outside: a preload makes Date#toISOString throw with the key in its message once the
    // order journal is about to write an intent, which no CliError covers (exit 1, a bug by definition).
    const preload = join(tempDir(), 'crash.mjs');
    writeFileSync(
      preload,
      'Date.prototype.toISOString = function () { throw new Error(`clock broke while holding ${process.env.GIFTCODES_API_KEY}`); };\n',
    );
    const result = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--verbose'], {
      baseUrl: served.url,
      env: { GIFTCODES_API_KEY: KEY, GIFTCODES_DEBUG: '1', NODE_OPTIONS: `--import=${preload}` },
    });
    expect(result.code).toBe(1);
    // Stamped or not: the stamps are written from the date's fields (io.ts isoTime), not by the toISOString that broke.
    expect(result.stderr).toMatch(
      /^(?:\S+Z )?error: unexpected internal error: clock broke while holding sc_test_…7e2d$/m,
    );
    // The stack is there (GIFTCODES_DEBUG), and redacted too.
    expect(result.stderr).toMatch(/^\s+at /m);
    expect(leaks(result.stderr + result.stdout)).toEqual([]);
  });
});

describe('plain http to another host', () => {
  /** Records every DNS lookup and socket connect of the CLI process into a file. */
  function tracer(): { env: NodeJS.ProcessEnv; trace: () => string[] } {
    const dir = tempDir();
    const traceFile = join(dir, 'trace.log');
    const preload = join(dir, 'trace.mjs');
    writeFileSync(traceFile, '');
    writeFileSync(
      preload,
      [
        "import dns from 'node:dns';",
        "import net from 'node:net';",
        "import { appendFileSync } from 'node:fs';",
        'const log = (line) => appendFileSync(process.env.TRACE_FILE, `${line}\\n`);',
        'const lookup = dns.lookup;',
        'dns.lookup = function (host, ...rest) { log(`lookup ${host}`); return lookup.call(this, host, ...rest); };',
        'const promisesLookup = dns.promises.lookup;',
        'dns.promises.lookup = function (host, ...rest) { log(`lookup ${host}`); return promisesLookup.call(this, host, ...rest); };',
        'const connect = net.Socket.prototype.connect;',
        'net.Socket.prototype.connect = function (...args) { log(`connect ${JSON.stringify(args[0]?.host ?? args[0]?.path ?? args[1] ?? args[0])}`); return connect.apply(this, args); };',
      ].join('\n'),
    );
    return {
      env: { NODE_OPTIONS: `--import=${preload}`, TRACE_FILE: traceFile },
      trace: () =>
        readFileSync(traceFile, 'utf8')
          .split('\n')
          .filter((line) => line !== ''),
    };
  }

  test('the tracer sees lookups and connects (control: localhost)', async () => {
    const { env, trace } = tracer();
    const result = await runCli(['ping', '--retries', '0'], {
      baseUrl: served.url.replace('127.0.0.1', 'localhost'),
      env: { ...env, GIFTCODES_API_KEY: KEY },
    });
    expect(result.code).toBe(0);
    expect(trace()).toEqual(expect.arrayContaining(['lookup localhost']));
    expect(trace().some((line) => line.startsWith('connect'))).toBe(true);
  });

  test.each([
    ['GIFTCODES_API_KEY, ping', ['ping', '--verbose'], { GIFTCODES_API_KEY: LIVE }],
    [
      'GIFTCODES_API_KEY, a live order',
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--yes', '--verbose'],
      { GIFTCODES_API_KEY: LIVE },
    ],
    ["the profile's live key, catalog", ['catalog', 'list', '--env', 'live', '--verbose'], {}],
  ] as const)(
    'a live key is refused for http://giftcodes.invalid before any lookup or connect (%s)',
    async (_name, args, env) => {
      const { env: traceEnv, trace } = tracer();
      const configDir = await loggedIn(served.server, LIVE);
      const result = await runCli([...args, '--base-url', 'http://giftcodes.invalid'], {
        configDir,
        env: { ...env, ...traceEnv },
      });
      expect(result.code).toBe(3);
      expect(result.stderr).toContain('refusing to send an API key over plain http to giftcodes.invalid');
      expect(result.stderr).not.toMatch(/^(GET|POST) /m);
      expect(trace()).toEqual([]);
      // Nothing was journaled for the refused order either.
      expect(Object.keys(files(join(configDir, 'journal')))).toEqual([]);
    },
  );
});

describe('files stay private under umask 000', () => {
  /** The built CLI under `umask 000`, recorded for the key-leak check like every other run. */
  function underUmask(args: string[], o: { configDir: string; cwd: string; input?: string }): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        CI: 'true',
        NO_COLOR: '1',
        GIFTCODES_CONFIG_DIR: o.configDir,
        GIFTCODES_BASE_URL: served.url,
      };
      delete env.GIFTCODES_API_KEY;
      delete env.GIFTCODES_PROFILE;
      const proc = spawn('sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, BIN, ...args], {
        cwd: o.cwd ?? ROOT,
        env,
      });
      let stdout = '';
      let stderr = '';
      proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      proc.stdin.end(o.input ?? '');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      proc.on('error', reject);
      proc.on('close', (code, signal) => {
        clearTimeout(timer);
        recordOutput(`umask 000; giftcodes ${args.join(' ')}`, stdout, stderr);
        resolve({ code, signal, stdout, stderr, configDir: o.configDir });
      });
    });
  }

  test('the config directory is 0700; config, catalog cache, journal and codes files are 0600', async () => {
    const root = tempDir();
    const configDir = join(root, 'fresh-config');
    const cwd = tempDir();
    // The umask really is 000 in there.
    const probe = await new Promise<string>((resolve) => {
      const sh = spawn('sh', ['-c', 'umask 000; umask']);
      let out = '';
      sh.stdout.on('data', (c: Buffer) => (out += c.toString()));
      sh.on('close', () => resolve(out.trim()));
    });
    expect(probe).toMatch(/^0*$/);
    const steps: [string[], string?][] = [
      [['login', '--api-key-stdin'], KEY],
      [['catalog', 'list']],
      [['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--out', 'codes.csv', '--interval', '0.1']],
      [['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json']],
    ];
    let lastOrder = '';
    for (const [args, input] of steps) {
      const result = await underUmask(args, { configDir, cwd, ...(input ? { input } : {}) });
      expect(result.code, result.stderr).toBe(0);
      if (args.includes('--json')) lastOrder = (JSON.parse(result.stdout) as { id: string }).id;
    }
    const exported = await underUmask(
      ['codes', 'get', lastOrder, '--wait', '--interval', '0.1', '--out', 'later.jsonl'],
      { configDir, cwd },
    );
    expect(exported.code, exported.stderr).toBe(0);
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(configDir)).toBe(0o700);
    expect(mode(join(configDir, 'journal'))).toBe(0o700);
    expect(mode(join(configDir, 'config.json'))).toBe(0o600);
    for (const name of readdirSync(configDir).filter((n) => n.startsWith('catalog-cache')))
      expect(mode(join(configDir, name))).toBe(0o600);
    expect(mode(join(cwd, 'codes.csv'))).toBe(0o600);
    expect(mode(join(cwd, 'later.jsonl'))).toBe(0o600);
    // And no file anywhere under the config directory is readable by others.
    for (const path of Object.keys(files(configDir))) expect(mode(join(configDir, path)) & 0o077, path).toBe(0);
  }, 300_000);
});
