// Edges of the command line: help words, empty or hostile flag values, a reader that goes away, the
// shape of --json errors, and hints that survive --quiet.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, servedApi, spawnCli, tempDir, unstamped, type RunResult } from '../helpers/e2e.js';

const served = servedApi([], { login: true });

/** `giftcodes order plcae`, run once for the tests that compare with it: the same words, whatever asks. */
let typedOnce: Promise<RunResult> | undefined;
const typed = (): Promise<RunResult> => (typedOnce ??= runCli(['order', 'plcae']));

describe('help words', () => {
  it('help of an unknown command is a usage error with a suggestion', async () => {
    const result = await runCli(['help', 'ordr']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/hint: did you mean order\?/);
  });

  // Broke: both printed the whole `order` help, exit 0, as if `plcae` were a word of it (a reviewer).
  it.each([[['help', 'order', 'plcae']], [['order', 'help', 'plcae']]])(
    'giftcodes %s is the unknown verb, as giftcodes order plcae says it',
    async (args) => {
      const [result, typedResult] = await Promise.all([runCli(args), typed()]);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(unstamped(result.stderr)).toBe("error: unknown command 'plcae'\nhint: did you mean place?\n");
      expect(unstamped(result.stderr)).toBe(unstamped(typedResult.stderr));
    },
  );

  // A support review: `help order --json` read "giftcodes order needs a command" (exit 2), and `help exit-codes --json`
  // "no command given": a flag beside the words was taken for one of them.
  it('a flag beside help words is no word: the help or the topic, exit 0', async () => {
    const [noun, verb, topic] = await Promise.all([
      runCli(['help', 'order', '--json']),
      runCli(['help', 'order', 'place', '--json']),
      runCli(['help', 'exit-codes', '--json']),
    ]);
    expect([noun.code, verb.code, topic.code]).toEqual([0, 0, 0]);
    expect(noun.stdout).toContain('Usage: giftcodes order [options] [command]');
    expect(verb.stdout).toContain('Usage: giftcodes order place');
    expect(topic.stdout).toMatch(/^Exit codes:/);
    expect((await runCli(['help', 'ordr', '--json'])).code).toBe(2);
  });

  // One run of each: help order place is read here for itself and as what order help place must print.
  it('help <noun> <verb> shows the verb; order help place shows it too, as help order place does', async () => {
    const [result, viaHelp] = await Promise.all([
      runCli(['order', 'help', 'place']),
      runCli(['help', 'order', 'place']),
    ]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('Usage: giftcodes order place');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: giftcodes order place');
    expect(result.stdout).toBe(viaHelp.stdout);
  });
});

describe('flag values', () => {
  it('an empty --api-key, --base-url or --profile is an error, not a silent fallback', async () => {
    const { configDir } = served;
    for (const args of [
      ['--api-key', ''],
      ['--base-url', ''],
      ['--profile', ''],
    ]) {
      const result = await runCli([...args, 'ping'], { configDir });
      expect(result.code, args.join(' ')).toBe(2);
    }
  });

  // A person's day: `giftcodes order show "$ORDER"` with ORDER unset said "command-argument value '' is invalid for
  // argument 'ref'. order reference must not be empty"; an order place with --product and no --quantity was told to
  // "give both", its product dropped from the command; ftp:// and a password in the URL had no hint, and the
  // password's hint would have named it again.
  it('usage errors a person makes: in plain words, each with a hint that keeps what was typed', async () => {
    const { configDir } = served;
    const lines = async (args: string[]) => {
      const result = await runCli(args, { configDir });
      expect(result.code, args.join(' ')).toBe(2);
      return unstamped(result.stderr).trimEnd().split('\n');
    };
    expect(await lines(['order', 'show', ''])).toEqual([
      'error: order reference must not be empty',
      'hint: it was given as "" (a shell variable unset or empty?); see giftcodes order show --help',
    ]);
    expect((await lines(['order', 'place', '--product', '', '--quantity', '1']))[0]).toBe(
      'error: --product: product id must not be empty',
    );
    expect((await lines(['order', 'place', '--product', 'amazon-us-25']))[1]).toMatch(
      /^hint: add --quantity \(or a plan .*giftcodes order place --product amazon-us-25 --quantity N$/,
    );
    expect((await lines(['order', 'place', '--quantity', '3']))[1]).toMatch(
      /^hint: add --product .*--product PRODUCT_ID --quantity 3$/,
    );
    expect((await lines(['ping', '--base-url', 'ftp://example.com']))[1]).toBe(
      'hint: the API speaks HTTPS: for example --base-url https://api.example.com',
    );
    const password = await lines(['ping', '--base-url', 'https://user:s3cret@example.com']);
    expect(password[1]).toMatch(/^hint: leave out the user and password/);
    expect(password.join('\n')).not.toContain('s3cret');
    // A missing argument names the command's usage, and the values it takes (a person's day: `completion` alone
    // said "see: giftcodes completion --help").
    expect(await lines(['completion'])).toEqual([
      "error: missing required argument 'shell'",
      'hint: usage: giftcodes completion [options] <shell> (bash, zsh or fish); see: giftcodes completion --help',
    ]);
    // Its command is the same from any config directory: none is pinned to it.
    expect(await lines(['completion', 'tcsh'])).toEqual([
      'error: no completion script for "tcsh": giftcodes has them for bash, zsh and fish',
      'hint: name one of them, e.g. giftcodes completion bash',
    ]);
    expect((await lines(['order', 'show']))[1]).toBe(
      'hint: usage: giftcodes order show [options] <ref>; see: giftcodes order show --help',
    );
  });

  it('a profile name that is not a plain word is refused', async () => {
    for (const name of ['__proto__', 'a b', '../etc', 'x'.repeat(65)]) {
      const result = await runCli(['login', '--api-key-stdin', '--profile', name], {
        configDir: tempDir(),
        input: 'sc_test_demo_4f3c9a1b7e2d',
      });
      expect(result.code, name).toBe(2);
    }
  });

  it('a repeated --quantity on a command that moves money is refused', async () => {
    const { configDir } = served;
    const result = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--quantity', '2'], {
      configDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('more than once');
  });

  // A reviewer: `codes get … --out $'a\nb.csv'` wrote the file, and its ✓ line and the log's done: line were two lines.
  it('an --out name with a control character is refused, shown escaped on one line, and nothing is written', async () => {
    const { configDir } = served;
    for (const args of [
      ['codes', 'get', 'ord_none', '--out', 'a\nb.csv'],
      ['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--out', 'a\nb.csv'],
    ]) {
      const cwd = tempDir();
      const result = await runCli(args, { configDir, cwd });
      expect(result.code, args.join(' ')).toBe(2);
      const lines = unstamped(result.stderr).trimEnd().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(/^error: .*"a\\nb\.csv" holds a control character/),
        expect.stringMatching(/^hint: /),
      ]);
      expect(readdirSync(cwd)).toEqual([]);
    }
  });
});

describe('an address that cannot be listened on', () => {
  // A reviewer: webhook listen --host 8.8.8.8 was told to choose another --port; serve's hint is the same words.
  it('serve on an address this machine does not have: exit 2, the hint names --host, not another port', async () => {
    const result = await runCli(['serve', '--port', '0', '--host', '192.0.2.1'], { timeoutMs: 120_000 });
    expect(result.code).toBe(2);
    expect(unstamped(result.stderr)).toContain('hint: choose a --host this machine has');
  });

  // A newcomer starting the quickstart's server a second time read `cannot listen on 127.0.0.1:4010: EADDRINUSE`;
  // the webhook receivers say it in words, and so does serve now (test/fuzz/regressions: a seed file it cannot read).
  it('serve on a port taken: said in words, exit 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const result = await runCli(['serve', '--port', String(port)], { timeoutMs: 120_000 });
      expect(result.code).toBe(2);
      expect(unstamped(result.stderr)).toBe(
        `error: cannot start the server: port ${port} on 127.0.0.1 is already in use\nhint: choose another --port (0 picks a free one)\n`,
      );
    } finally {
      taken.close();
    }
  });
});

describe('serve whose stdout cannot take where it listens', () => {
  // With --port 0 that line is the only way to learn the port: the server stops with exit 8 and one line,
  // rather than die of an unhandled EPIPE or ENOSPC with a stack trace (exit 1).
  for (const how of ['closed pipe', '/dev/full'] as const) {
    it(`stdout on a ${how}: exit 8 and one line, no stack trace`, async () => {
      const { proc, result } = spawnCli(['serve', '--port', '0'], {
        stdoutFull: how === '/dev/full',
        timeoutMs: 120_000,
      });
      proc.stdin?.end();
      proc.stdout?.destroy();
      const ended = await result;
      expect(ended.code, ended.stderr).toBe(8);
      const why = how === '/dev/full' ? 'no space left on the device' : 'the reader closed the pipe';
      expect(unstamped(ended.stderr).trimEnd().split('\n')).toEqual([
        `error: could not write the server's address to standard output (${why})`,
        expect.stringMatching(/^hint: /),
      ]);
    });
  }
});

describe("the launcher's own answer that stdout cannot take", () => {
  // `--version` is answered by bin/giftcodes without the program: its one line of failure starts with its time off
  // a terminal, as every stderr line of the program does there (a cron log).
  it('--version on /dev/full: exit 8, one stamped line', async () => {
    const ended = await runCli(['--version'], { stdoutFull: true });
    expect(ended.code).toBe(8);
    expect(ended.stderr).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z error: could not write the version to standard output \(ENOSPC\)\n$/,
    );
  });

  // A reviewer: each of these exited 0 on /dev/full, as if the help had been read.
  it.each([[['help']], [['--help']], [['order', 'place', '--help']], [['help', 'environment']]])(
    'giftcodes %s on /dev/full: exit 8, the error and its hint, as --version',
    async (args) => {
      const ended = await runCli(args, { stdoutFull: true });
      expect(ended.code).toBe(8);
      expect(unstamped(ended.stderr).trimEnd().split('\n')).toEqual([
        'error: could not write the help to standard output (no space left on the device)',
        expect.stringMatching(/^hint: free some space/),
      ]);
    },
  );
});

describe('output', () => {
  it('a reader that goes away ends the run quietly (no EPIPE stack trace)', () => {
    const { configDir } = served;
    const script = `"${process.execPath}" "${BIN}" catalog list --json | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`;
    const result = spawnSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, GIFTCODES_CONFIG_DIR: configDir, CI: 'true', NO_COLOR: '1' },
    });
    expect(result.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(result.status).toBe(0);
  });

  // A person's day: `giftcodes completion zsh | head -1` said "could not write the output", exit 8 (its 67 KB outgrow
  // a pipe's buffer; bash's and fish's scripts do not). A listing or a script read in part is read: exit 0, quiet.
  it.each([['zsh'], ['bash'], ['fish']])('giftcodes completion %s | head -1: exit 0, nothing on stderr', (shell) => {
    const script = `"${process.execPath}" "${BIN}" completion ${shell} | head -1; exit \${PIPESTATUS[0]}`;
    const result = spawnSync('bash', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, GIFTCODES_CONFIG_DIR: served.configDir, CI: 'true', NO_COLOR: '1' },
    });
    expect(result.stdout.split('\n')).toHaveLength(2);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  // A person's day: `giftcodes order place --help | head -1` said "could not write the help", exit 8, every time.
  it.each([['order place --help'], ['help order place'], ['--help']])(
    'giftcodes %s | head -1: the first line, nothing on stderr, exit 0',
    (args) => {
      const script = `"${process.execPath}" "${BIN}" ${args} | head -1; exit \${PIPESTATUS[0]}`;
      const result = spawnSync('bash', ['-c', script], {
        encoding: 'utf8',
        env: { ...process.env, CI: 'true', NO_COLOR: '1' },
      });
      expect(result.stdout.split('\n')).toHaveLength(2);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );

  // The launcher's own --version and --help (src/start.ts) follow the same rule: a reader already gone is exit 0.
  it.each([['--version'], ['--help']])(
    'giftcodes %s to a pipe whose reader is gone: exit 0, nothing on stderr',
    (flag) => {
      const script = `"${process.execPath}" "${BIN}" ${flag} | (exec 0<&-; sleep 0.5); exit \${PIPESTATUS[0]}`;
      const result = spawnSync('bash', ['-c', script], { encoding: 'utf8', env: { ...process.env, CI: 'true' } });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );

  it('every --json error carries code, message, status (null when there is none) and exitCode', async () => {
    const { configDir } = served;
    const usage = await runCli(['--json', 'order', 'place', '--product', 'x', '--quantity', '0'], { configDir });
    expect(JSON.parse(usage.stderr)).toMatchObject({ error: { code: 'usage', status: null, exitCode: 2 } });
    const api = await runCli(['--json', 'order', 'show', 'ord_missing'], { configDir });
    expect(JSON.parse(api.stderr)).toMatchObject({ error: { status: 404, exitCode: 4 } });
  });

  // Broke: the help for a missing command went to stderr, and `giftcodes | less` paged nothing (a person's day).
  it.each([[[]], [['order']], [['codes']]])(
    'giftcodes %s: the help on stdout, nothing on stderr, exit 0',
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: giftcodes ${args.join(' ')}`.trimEnd()));
      expect(result.stderr).toBe('');
    },
  );

  // Broke: `giftcodes --json` printed the human help (exit 0), and `completion bash --json` the script, where a
  // script reading --json output expects one JSON document or a JSON error.
  it.each([
    [['--json'], 'no command given'],
    [['order', '--json'], 'giftcodes order needs a command'],
    [['completion', 'bash', '--json'], 'completion prints a shell script, not JSON'],
  ])('giftcodes %s: a JSON usage error on stderr, nothing on stdout, exit 2', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: { code: 'usage', message, status: null, exitCode: 2, hint: expect.stringMatching(/giftcodes /) },
    });
  });

  it('--quiet keeps the hint of an error, on the one error line', async () => {
    const result = await runCli(['--quiet', 'ping'], { configDir: tempDir() });
    expect(result.code).toBe(3);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^[\dT:.Z-]+ error: .*\(set GIFTCODES_API_KEY, or run: .*giftcodes login/);
  });
});

describe('a terminal that says it is 0 columns wide (a pty without a size: docker exec -t, script in CI)', () => {
  it('order place --wait ends, prints its order, and writes no endless escapes (the spinner divided by 0)', () => {
    const started = Date.now();
    const result = spawnSync(
      'script',
      [
        '-qec',
        `stty cols 0 rows 0; "${process.execPath}" "${BIN}" order place --product steam-us-20 --quantity 1 --yes --wait --interval 0.1`,
        '/dev/null',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, GIFTCODES_CONFIG_DIR: served.configDir, TERM: 'xterm' },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Before the fix it never ended: 27 MB of escapes in 20 s. A bound, not an expectation.
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(result.signal, `${Date.now() - started} ms`).toBeNull();
    expect(result.status, result.stdout.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/order +ord_\w+/);
    expect(result.stdout).toMatch(/status +.*completed/);
    expect(result.stdout.length).toBeLessThan(10_000);
  });
});
