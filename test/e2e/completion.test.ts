import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  DEMO_KEYS,
  journalIntents,
  loggedIn,
  ROOT,
  runCli,
  servedApi,
  tempDir,
  type RunResult,
} from '../helpers/e2e.js';
import { openTerminal, type Terminal } from '../helpers/tmux.js';

const SCRIPTS = {
  bash: 'completions/giftcodes.bash',
  zsh: 'completions/_giftcodes',
  fish: 'completions/giftcodes.fish',
} as const;
const BASH_SCRIPT = join(ROOT, SCRIPTS.bash);

const served = servedApi([], { login: true });
let productIds: string[];
/** A PATH whose `giftcodes` is this build, as a global install would put it. */
let pathWithGiftcodes: string;

const hook = pathToFileURL(join(ROOT, 'test', 'helpers', 'record-loads.mjs')).href;
/** Runs of the CLI in served's config directory with nothing on stdin, by their words: see runRecordingLoads. */
const recordedRuns = new Map<string, Promise<{ result: RunResult; loads: string[] }>>();

/**
 * Runs the CLI with every module it loads recorded (test/helpers/record-loads.mjs): the run's result and the
 * URLs of the modules. A CLI process costs CPU the suite is short of, so a test that reads a run's output and
 * one that reads its loads (the start-up tests below) share the run of the same words, whichever comes first;
 * each still runs alone.
 */
function runRecordingLoads(
  args: string[],
  input?: string,
  configDir = served.configDir,
): Promise<{ result: RunResult; loads: string[] }> {
  const shared = input === undefined && configDir === served.configDir;
  const key = args.join('\0');
  const before = shared ? recordedRuns.get(key) : undefined;
  if (before !== undefined) return before;
  const run = (async () => {
    const loads = join(tempDir(), 'loads.txt');
    const result = await runCli(args, {
      configDir,
      input,
      env: {
        GIFTCODES_LOADS: loads,
        NODE_OPTIONS: `--import=data:text/javascript,import{register}from'node:module';register('${hook}')`,
      },
    });
    return { result, loads: readFileSync(loads, 'utf8').split('\n') };
  })();
  if (shared) recordedRuns.set(key, run);
  return run;
}

beforeAll(async () => {
  // The catalog cache that TAB reads is written by `catalog list`.
  const list = await runCli(['catalog', 'list', '--json'], { configDir: served.configDir });
  expect(list.code).toBe(0);
  productIds = (JSON.parse(list.stdout) as { id: string }[]).map((product) => product.id);
  const binDir = tempDir('giftcodes-bin-');
  symlinkSync(BIN, join(binDir, 'giftcodes'));
  pathWithGiftcodes = [binDir, dirname(process.execPath), '/usr/bin', '/bin'].join(':');
});

describe('completions/ is generated from the command tree', () => {
  for (const [shell, file] of Object.entries(SCRIPTS)) {
    it(`giftcodes completion ${shell} equals ${file}`, async () => {
      // The start-up tests below run `completion bash` too: one run serves both.
      const result =
        shell === 'bash'
          ? (await runRecordingLoads(['completion', shell])).result
          : await runCli(['completion', shell]);
      expect(result.code).toBe(0);
      const committed = existsSync(join(ROOT, file)) ? readFileSync(join(ROOT, file), 'utf8') : '(missing)';
      expect(
        result.stdout === committed,
        `${file} differs from the command tree: run \`npm run completions\` and commit completions/`,
      ).toBe(true);
    });
  }

  it('completes no flag that takes a secret (an API key, a webhook secret) from anything', () => {
    const script = readFileSync(BASH_SCRIPT, 'utf8');
    const secretFlags = [...script.matchAll(/\|(--[\w-]+)'\) REPLY='([^']*)'/g)].filter(([, flag]) =>
      /api-key|secret|token|password/.test(flag!),
    );
    expect(secretFlags.map(([, flag]) => flag)).toEqual(expect.arrayContaining(['--api-key', '--webhook-secret']));
    for (const [, flag, source] of secretFlags) expect(source, flag).toMatch(/^(none|files)$/);
  });

  // Broke: commander's `command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are …`.
  it('rejects an unknown shell with a usage error in one line naming the shells there are', async () => {
    const result = await runCli(['completion', 'tcsh']);
    expect(result.code).toBe(2);
    // The hint's command is pinned to the test's config directory (src/output/pinned-hint.ts).
    expect(result.stderr.replace(/^\S+Z /gm, '').replace(/GIFTCODES_CONFIG_DIR=\S+ /, '')).toBe(
      'error: no completion script for "tcsh": giftcodes has them for bash, zsh and fish\n' +
        'hint: name one of them, e.g. giftcodes completion bash\n',
    );
    const json = await runCli(['completion', 'powershell', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'unknown_shell', exitCode: 2 } });
  });
});

/** Calls the bash completion function as bash's readline would for `line` (cursor at its end). */
function bashComplete(line: string, env: Record<string, string> = {}): string[] {
  // Words as bash splits them: at blanks, and around "=" (COMP_WORDBREAKS).
  const words = line.split(' ').flatMap((word) => {
    const at = word.indexOf('=');
    if (!word.startsWith('-') || at < 0) return [word];
    const value = word.slice(at + 1);
    return value === '' ? [word.slice(0, at), '='] : [word.slice(0, at), '=', value];
  });
  const program = `
    source "$1"; shift
    COMP_WORDS=("$@")
    COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
    _giftcodes
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program, 'bash', BASH_SCRIPT, ...words], {
    encoding: 'utf8',
    env: { PATH: pathWithGiftcodes, HOME: served.configDir, GIFTCODES_CONFIG_DIR: served.configDir, ...env },
  });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter((word) => word !== '');
}

/** Whether this machine has a shell: zsh and fish are tested where they are installed. */
const has = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

/**
 * Calls the zsh completion function for `line` (cursor at its end) outside the line editor: compadd, _describe and
 * _files stand in for zsh's own, and print the words they are given that begin with what is typed, one a line.
 */
function zshComplete(line: string, env: Record<string, string> = {}): string[] {
  const program = `
    compdef() { : }
    compset() { [[ $1 == -P ]] && PREFIX=\${PREFIX#*=} }
    _giftcodes_offer() { local w; for w in "$@"; do [[ $w == "$PREFIX"* ]] && print -r -- "$w"; done }
    compadd() { [[ $1 == -- ]] && shift; _giftcodes_offer "$@" }
    _describe() { local list=\${@[-1]}; _giftcodes_offer "\${(@)\${(@P)list}%%:*}" }
    _files() { print -r -- '(files)' }
    _message() { : }
    source "$1"; shift
    words=("$@"); CURRENT=$#words; PREFIX=\${words[CURRENT]}
    _giftcodes`;
  const result = spawnSync('zsh', ['-f', '-c', program, 'zsh', join(ROOT, SCRIPTS.zsh), ...line.split(' ')], {
    encoding: 'utf8',
    env: { PATH: pathWithGiftcodes, HOME: served.configDir, GIFTCODES_CONFIG_DIR: served.configDir, ...env },
  });
  expect(result.stderr).toBe('');
  return result.stdout.split('\n').filter((word) => word !== '');
}

/** What fish offers for `line` (cursor at its end), candidates only. */
function fishComplete(line: string, env: Record<string, string> = {}): string[] {
  return execFileSync('fish', ['--no-config', '-c', `source ${join(ROOT, SCRIPTS.fish)}; complete -C'${line}'`], {
    encoding: 'utf8',
    env: { PATH: pathWithGiftcodes, HOME: served.configDir, GIFTCODES_CONFIG_DIR: served.configDir, ...env },
  })
    .split('\n')
    .filter(Boolean)
    .map((row) => row.split('\t')[0]!);
}

/** The shells whose scripts run here: bash always, zsh and fish where installed. */
const SHELL_RUNS = [
  { shell: 'bash', complete: bashComplete },
  { shell: 'zsh', complete: zshComplete, skip: !has('zsh') },
  { shell: 'fish', complete: fishComplete, skip: !has('fish') },
];

describe('bash completion function', () => {
  it('completes commands, nested subcommands and the help command', () => {
    expect(bashComplete('giftcodes con')).toEqual(['config']);
    expect(bashComplete('giftcodes config ').sort()).toEqual(['help', 'list', 'set', 'show', 'unset', 'use']);
    expect(bashComplete('giftcodes help cat')).toEqual(['catalog']);
    expect(bashComplete('giftcodes --json --profile x con')).toEqual(['config']);
    expect(bashComplete('giftcodes __')).toEqual([]);
    expect(bashComplete('giftcodes doc')).toEqual(['doctor']);
    expect(bashComplete('giftcodes doctor --')).toEqual(
      expect.arrayContaining(['--json', '--quiet', '--env', '--retries']),
    );
  });

  it('completes the flags of a command with the global ones', () => {
    const flags = bashComplete('giftcodes catalog list --');
    expect(flags).toEqual(expect.arrayContaining(['--json', '--env', '--profile', '--help', '--base-url']));
    expect(flags).not.toContain('--version');
    expect(bashComplete('giftcodes serve --fail')).toEqual(expect.arrayContaining(['--fail-rate', '--fail-orders']));
  });

  it('completes flag values: environments, shells, config fields, files', () => {
    expect(bashComplete('giftcodes --env ')).toEqual(['test', 'live']);
    expect(bashComplete('giftcodes ping --env l')).toEqual(['live']);
    expect(bashComplete('giftcodes ping --env=')).toEqual(['test', 'live']);
    expect(bashComplete('giftcodes completion ')).toEqual(['bash', 'zsh', 'fish']);
    // Every word of one word order list --status takes: the outcomes, the OUTCOME column's words (unfinished,
    // placed, saved…) and the server statuses docs/dialects.md names.
    expect(bashComplete('giftcodes order list --status ')).toEqual([
      ...['delivered', 'failed', 'refused', 'abandoned', 'pending', 'unfinished'],
      ...['processing', 'completed', 'complete', 'cancelled', 'canceled', 'rejected', 'expired', 'refunded', 'error'],
      ...['declined', 'placed', 'saved', 'printed', 'unreachable'],
    ]);
    expect(bashComplete('giftcodes order list --status pl')).toEqual(['placed']);
    expect(bashComplete('giftcodes config set ')).toEqual([
      'base-url',
      'default-env',
      'encrypt-to',
      'history-days',
      'proxy',
    ]);
    const dir = tempDir('giftcodes-files-');
    writeFileSync(join(dir, 'seed-resellers.json'), '{}');
    expect(bashComplete(`giftcodes serve --seed ${dir}/seed-`)).toEqual([`${dir}/seed-resellers.json`]);
  });

  it('offers profile names from the config, read without the network', async () => {
    const login = await runCli(['login', '--api-key-stdin', '--profile', 'shop-eu', '--base-url', served.url], {
      configDir: served.configDir,
      input: DEMO_KEYS.test,
    });
    expect(login.code).toBe(0);
    expect(bashComplete('giftcodes --profile ').sort()).toEqual(['default', 'shop-eu']);
    expect(bashComplete('giftcodes config use shop')).toEqual(['shop-eu']);
  });

  it('offers product ids from the catalog cache; nothing when there is no cache', () => {
    expect(productIds.length).toBeGreaterThan(1);
    expect(bashComplete('giftcodes order place --product ').sort()).toEqual([...productIds].sort());
    const steam = productIds.filter((id) => id.startsWith('steam'));
    expect(bashComplete('giftcodes order place --quantity 2 --product steam').sort()).toEqual(steam.sort());
    expect(bashComplete('giftcodes order place --product ', { GIFTCODES_CONFIG_DIR: tempDir() })).toEqual([]);
  });

  it("offers the product ids of the current profile and base URL only: another server's catalog is not offered", () => {
    expect(bashComplete('giftcodes order place --product ', { GIFTCODES_BASE_URL: 'http://127.0.0.1:1' })).toEqual([]);
    expect(bashComplete('giftcodes order place --product ', { GIFTCODES_PROFILE: 'nobody' })).toEqual([]);
    expect(bashComplete('giftcodes order place --product ', { GIFTCODES_BASE_URL: served.url }).sort()).toEqual(
      [...productIds].sort(),
    );
  });

  it('offers the order ids of the local record for an order ref, and the pending keys for resume and abandon', async () => {
    // Logged in as the served API's own login left its config directory (a copy, without a CLI run of its own).
    const configDir = await loggedIn(served.server);
    const placed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '1', '--json'], {
      configDir,
    });
    expect(placed.code, placed.stderr).toBe(0);
    const orderId = (JSON.parse(placed.stdout) as { id: string }).id;
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '2', '--json'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'request.sent=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    // The pending key as the journal's files hold it, read without a CLI run (a CLI process costs CPU the suite is
    // short of). What TAB offers from files a command has compacted is tested below, with files written by hand.
    const pending = journalIntents(configDir);
    expect(pending).toHaveLength(1);
    const env = { GIFTCODES_CONFIG_DIR: configDir };
    for (const verb of ['order show', 'order watch', 'codes get']) {
      expect(bashComplete(`giftcodes ${verb} ${orderId.slice(0, 6)}`, env), verb).toContain(orderId);
    }
    expect(bashComplete('giftcodes order resume ', env)).toEqual([pending[0]!.key]);
    expect(bashComplete('giftcodes order abandon ', env)).toEqual([pending[0]!.key]);
  }, 300_000);

  it('offers nothing after a flag whose value cannot be guessed', () => {
    expect(bashComplete('giftcodes order place --quantity ')).toEqual([]);
  });
});

describe('giftcodes __complete (what TAB runs)', () => {
  it('reads local files with plain fs: a config that conf would reject still lists profiles, and nothing is created', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ defaultProfile: 'ops', profiles: { 'shop-eu': { keys: 42 } } }),
    );
    const profiles = await runCli(['__complete', 'profiles'], { configDir: dir });
    expect(profiles.code).toBe(0);
    expect(profiles.stdout.split('\n').filter(Boolean)).toEqual(['ops', 'shop-eu']);
    const missing = join(dir, 'not-there');
    const products = await runCli(['__complete', 'products'], { configDir: missing });
    expect(products).toMatchObject({ code: 0, stdout: '' });
    expect(existsSync(missing)).toBe(false);
  });

  // A support review: a killed run's order, still in its run's log (no command had compacted it into files), was
  // offered by no TAB, though order list showed it.
  it("offers a killed run's order before any command has compacted its log", async () => {
    const configDir = await loggedIn(served.server);
    const killed = await runCli(['order', 'place', '--product', 'amazon-us-10', '--quantity', '3'], {
      configDir,
      env: { GIFTCODES_FAILPOINTS: 'order.accepted=kill' },
    });
    expect(killed.signal).toBe('SIGKILL');
    expect(readdirSync(join(configDir, 'journal')).some((name) => name.endsWith('.log'))).toBe(true);
    const intents = await runCli(['__complete', 'intents', '--', 'order', 'resume'], { configDir });
    const orders = await runCli(['__complete', 'orders', '--', 'order', 'show'], { configDir });
    // The killed run's intent as its log holds it, read from the journal's files (no command compacts the log).
    const pending = journalIntents(configDir);
    expect(pending).toHaveLength(1);
    expect(pending[0]!.orderId).toMatch(/\S/);
    expect(intents.stdout.split('\n').filter(Boolean)).toEqual([pending[0]!.key]);
    expect(orders.stdout.split('\n').filter(Boolean)).toEqual([pending[0]!.orderId]);
  });

  it('is hidden from help', async () => {
    // The start-up tests below run `--help` too: one run serves both.
    const { result: help } = await runRecordingLoads(['--help']);
    expect(help.stdout).not.toContain('__complete');
  });
});

describe('bash in a real terminal', () => {
  let terminal: Terminal;
  beforeAll(async () => {
    const home = tempDir('giftcodes-home-');
    mkdirSync(join(home, '.config'), { recursive: true });
    terminal = openTerminal(['bash', '--norc', '--noprofile'], {
      PATH: pathWithGiftcodes,
      HOME: home,
      GIFTCODES_CONFIG_DIR: served.configDir,
      PS1: '$ ',
    });
    terminal.answer(`source ${BASH_SCRIPT}; clear`);
    await terminal.waitFor(/^\$$/m);
  });
  afterAll(() => terminal?.close());

  /** Types a line, presses TAB, then a marker: the marker shows where the cursor was left. */
  const complete = (typed: string): Promise<string> => {
    terminal.press('C-u');
    terminal.type(typed);
    terminal.press('Tab');
    terminal.type('%');
    return terminal.waitFor(/%$/m);
  };

  it('giftcodes con<TAB> completes to config', async () => {
    expect(await complete('giftcodes con')).toMatch(/^\$ giftcodes config %$/m);
  });

  it('giftcodes or<TAB> completes to order', async () => {
    expect(await complete('giftcodes or')).toMatch(/^\$ giftcodes order %$/m);
  });

  it('giftcodes order place --product <TAB><TAB> lists the cached product ids', async () => {
    expect(await complete('giftcodes order place --product steam')).toMatch(
      /^\$ giftcodes order place --product steam-us-%$/m,
    );
    terminal.press('BSpace', 'Tab', 'Tab');
    const screen = await terminal.waitFor(/steam-us-20\s+steam-us-50/);
    for (const id of productIds.filter((id) => id.startsWith('steam'))) expect(screen).toContain(id);
    expect(screen).not.toContain('amazon-us-25');
    terminal.press('C-u', 'C-l');
    terminal.type('giftcodes order place --product ');
    terminal.press('Tab', 'Tab');
    const all = await terminal.waitFor(productIds[productIds.length - 1]!);
    for (const id of productIds) expect(all).toContain(id);
  });
});

describe('zsh and fish load their scripts', () => {
  it.skipIf(!has('zsh'))('zsh parses completions/_giftcodes', () => {
    execFileSync('zsh', ['-n', join(ROOT, SCRIPTS.zsh)]);
  });

  it.skipIf(!has('fish'))('fish completes commands, flag values and cached products', () => {
    expect(fishComplete('giftcodes con')).toEqual(['config']);
    expect(fishComplete('giftcodes --env ').sort()).toEqual(['live', 'test']);
    expect(fishComplete('giftcodes codes get --format j')).toEqual(['json', 'jsonl']);
    expect(fishComplete('giftcodes order place --product ').sort()).toEqual([...productIds].sort());
  });

  it.skipIf(!has('zsh'))('zsh completes commands, flag values and cached products', () => {
    expect(zshComplete('giftcodes con')).toEqual(['config']);
    expect(zshComplete('giftcodes --env ')).toEqual(['test', 'live']);
    expect(zshComplete('giftcodes codes get --format j')).toEqual(['json', 'jsonl']);
    expect(zshComplete('giftcodes order place --product ').sort()).toEqual([...productIds].sort());
    expect(zshComplete('giftcodes serve --seed ')).toEqual(['(files)']);
    expect(zshComplete('giftcodes serve --tls-cert ')).toEqual(['(files)']);
  });
});

describe.each(SHELL_RUNS)('$shell: what TAB offers, and what it must not', ({ shell, complete: run, skip }) => {
  /** Sorted, whatever the shell: fish sorts what it offers. */
  const complete = (line: string, env?: Record<string, string>): string[] => run(line, env).sort();
  it.skipIf(skip)('never offers anything for --api-key: a key is a secret, and no idempotency key is one', () => {
    const configDir = tempDir();
    mkdirSync(join(configDir, 'journal'));
    writeFileSync(
      join(configDir, 'journal', 'pending.json'),
      JSON.stringify({ key: 'pending-key-1', createdAt: '2026-01-01T00:00:00.000Z' }),
    );
    const env = { GIFTCODES_CONFIG_DIR: configDir };
    // The journal has a key to offer where one belongs.
    expect(complete('giftcodes order resume ', env)).toEqual(['pending-key-1']);
    expect(complete('giftcodes order place --idempotency-key ', env)).toEqual(['pending-key-1']);
    expect(complete('giftcodes --api-key ', env)).toEqual([]);
    expect(complete('giftcodes --api-key p', env)).toEqual([]);
    expect(complete('giftcodes order place --api-key ', env)).toEqual([]);
    if (shell !== 'fish') expect(complete('giftcodes ping --api-key=', env)).toEqual([]);
  });

  // `--since <date|duration>` names the kinds of value it takes, not two words to type: TAB offered 'date' and
  // 'duration' (a helper's note).
  // A person's day: `--profile eu order place --product <TAB>` offered the default profile's catalog, another
  // server's ids; the line's --profile, --base-url and --env choose, as they do for the command.
  it.skipIf(skip)("the line's --profile, --base-url and --env choose whose values TAB offers", () => {
    const all = [...productIds].sort();
    expect(complete('giftcodes --profile nobody order place --product ')).toEqual([]);
    expect(complete('giftcodes order place --base-url http://127.0.0.1:1 --product ')).toEqual([]);
    expect(complete('giftcodes --profile default order place --product ')).toEqual(all);
    // Over the environment's: the line's flag is the command's.
    expect(complete('giftcodes --profile default order place --product ', { GIFTCODES_PROFILE: 'nobody' })).toEqual(
      all,
    );
    if (shell !== 'fish') expect(complete('giftcodes --profile=nobody order place --product ')).toEqual([]);
    const configDir = tempDir();
    mkdirSync(join(configDir, 'history'));
    writeFileSync(
      join(configDir, 'history', 'ab.jsonl'),
      ['test', 'live']
        .map((environment) =>
          JSON.stringify({ key: `k-${environment}`, orderId: `ord_${environment}`, environment, profile: 'default' }),
        )
        .join('\n'),
    );
    const env = { GIFTCODES_CONFIG_DIR: configDir };
    expect(complete('giftcodes order show ', env)).toEqual(['ord_live', 'ord_test']);
    expect(complete('giftcodes order show --env live ', env)).toEqual(['ord_live']);
    expect(complete('giftcodes --profile other order show ', env)).toEqual([]);
  });

  it.skipIf(skip)('help offers its topics beside the commands, at the top only', () => {
    expect(complete('giftcodes help e')).toEqual(['environment', 'exit-codes']);
    expect(complete('giftcodes help op')).toEqual(['options']);
    expect(complete('giftcodes help order ex')).toEqual([]);
  });

  it.skipIf(skip)('a placeholder that names kinds of value (date|duration) offers no words', () => {
    expect(complete('giftcodes order list --since ')).toEqual([]);
    expect(complete('giftcodes order list --since d')).toEqual([]);
  });

  it.skipIf(skip)('completes --env with the words the command takes: all with logout only', () => {
    expect(complete('giftcodes logout --env ')).toEqual(['all', 'live', 'test']);
    expect(complete('giftcodes logout --profile shop-eu --env a')).toEqual(['all']);
    expect(complete('giftcodes ping --env ')).toEqual(['live', 'test']);
    expect(complete('giftcodes order list --env ')).toEqual(['live', 'test']);
    expect(complete('giftcodes --env ')).toEqual(['live', 'test']);
  });

  it.skipIf(skip)('completes config set: the field, then the value where the field takes a fixed set', () => {
    expect(complete('giftcodes config set ')).toEqual([
      'base-url',
      'default-env',
      'encrypt-to',
      'history-days',
      'proxy',
    ]);
    expect(complete('giftcodes config set default-env ')).toEqual(['live', 'test']);
    expect(complete('giftcodes config set default-env l')).toEqual(['live']);
    expect(complete('giftcodes config set --profile shop-eu default-env ')).toEqual(['live', 'test']);
    expect(complete('giftcodes --json config set default-env ')).toEqual(['live', 'test']);
    // A value that is a URL, an age key or a number is not guessed; nor is anything after the value.
    expect(complete('giftcodes config set history-days 9')).toEqual([]);
    expect(complete('giftcodes config set default-env live ')).not.toContain('test');
  });

  it.skipIf(skip)('completes help with a command, then its subcommands, as help reads them at any depth', () => {
    const orderVerbs = ['abandon', 'list', 'pending', 'place', 'resume', 'show', 'watch'];
    expect(complete('giftcodes help or')).toEqual(['order']);
    expect(complete('giftcodes help order ')).toEqual(orderVerbs);
    expect(complete('giftcodes help order pl')).toEqual(['place']);
    expect(complete('giftcodes help config s')).toEqual(['set', 'show']);
    expect(complete('giftcodes --json help codes ')).toEqual(['decrypt', 'get']);
    // A verb's own help: the same words, one level down.
    expect(complete('giftcodes order help ')).toEqual(orderVerbs);
    // Nothing past a command without subcommands, and no flags in the place of one.
    expect(complete('giftcodes help order place ')).toEqual([]);
    expect(complete('giftcodes help ping ')).toEqual([]);
  });
});

describe('start-up: --version, --help, completion and TAB load no schema or config library', () => {
  /**
   * The libraries by a string only their code holds, looked up in each bundle file a run loaded. The HTTP client
   * library, undici, is held out of these commands by test/e2e/startup.test.ts; the program's own API client
   * (src/api/client.ts) rides in the start chunk with the config store, for every command that talks to the API
   * (scripts/build.mjs API_PATH: ping loaded them as six more files), and costs these a millisecond or two.
   */
  const LIBRARIES = {
    'schemas (zod)': 'ZodError',
    'config library (conf)': 'projectSuffix',
  };

  async function librariesLoadedBy(
    args: string[],
    input?: string,
    configDir = served.configDir,
    loadsBundle = true,
  ): Promise<string[]> {
    const { result, loads } = await runRecordingLoads(args, input, configDir);
    expect(result.stderr).not.toMatch(/internal error|ERR_/);
    const files = loads.filter((url) => url.includes('/dist/'));
    // --version, and --help into a pipe, are answered by the launcher itself (bin/giftcodes), before any bundle file loads.
    if (loadsBundle) expect(files.length).toBeGreaterThan(0);
    else expect(files).toEqual([]);
    const code = files.map((url) => readFileSync(new URL(url), 'utf8')).join('\n');
    return Object.entries(LIBRARIES)
      .filter(([, marker]) => code.includes(marker))
      .map(([name]) => name);
  }

  it.each([
    [['--version']],
    [['--help']],
    [['order', 'place', '--help']],
    [['completion', 'bash']],
    [['__complete', 'products']],
    [['__complete', 'profiles']],
  ])('giftcodes %s', async (args) => {
    expect(
      await librariesLoadedBy(args, undefined, served.configDir, args[0] !== '--version' && args[0] !== '--help'),
    ).toEqual([]);
  });

  it('(the check sees them when a command does load them)', async () => {
    // login saves the key with conf, which only writing loads.
    expect(await librariesLoadedBy(['login', '--api-key-stdin', '--base-url', served.url], DEMO_KEYS.test)).toEqual([
      'config library (conf)',
    ]);
    // zod checks only a config file the quick check cannot vouch for (issue 23), for its messages.
    const damaged = tempDir();
    writeFileSync(join(damaged, 'config.json'), '{"profiles":{"default":{"historyDays":"ninety"}}}\n', { mode: 0o600 });
    expect(await librariesLoadedBy(['config', 'list'], undefined, damaged)).toEqual(['schemas (zod)']);
  });
});
