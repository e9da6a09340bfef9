// Fuzz: every command of the tree with random flags, values and arguments (unicode, control characters, huge
// numbers, empty strings, flag-looking values), run as the built CLI against a real reference server.
// Each run must end with a contract exit code and one clean error line, and a usage error (exit 2) must
// leave the config, the journal and the working directory exactly as they were.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { BOTH_KEYS, configCopy, DEMO_KEYS, type RunResult, servedApi, spawnCli, tempDir } from '../helpers/e2e.js';
import {
  draw,
  endingProblems,
  exitCodeCounts,
  failureLines,
  fuzzSettings,
  runFuzz,
  sha256File,
  snapshot,
  spawnServe,
  catchesTerm,
  listening,
  trouble,
} from './check.js';
import { commandTree } from '../helpers/program.js';

interface Leaf {
  path: string[];
  options: Option[];
  args: { name: string; required: boolean; variadic: boolean }[];
}

/** The command tree as the CLI builds it: every command that runs something. */
function leaves(): Leaf[] {
  const program = commandTree();
  const found: Leaf[] = [];
  const visit = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const here = [...path, sub.name()];
      if (sub.commands.length === 0) {
        found.push({
          path: here,
          options: [...sub.options],
          args: sub.registeredArguments.map((a) => ({ name: a.name(), required: a.required, variadic: a.variadic })),
        });
      }
      visit(sub, here);
    }
  };
  visit(program, []);
  return found;
}

const served = servedApi(['--fulfil-after', '0'], { login: BOTH_KEYS });
let tree: Leaf[];
let globalOptions: Option[];

beforeAll(() => {
  tree = leaves();
  globalOptions = [...commandTree().options].filter((o) => o.long !== '--version' && o.long !== '--help');
}, 300_000);

/** Values worth trying for an option, beside the random trouble. */
function valuesFor(name: string): fc.Arbitrary<string> {
  const urls = () => [
    served.url,
    'http://giftcodes.invalid',
    'http://127.0.0.1:1',
    'ftp://example.invalid',
    'http://user:pw@127.0.0.1:1',
    'not a url',
    '',
  ];
  switch (name) {
    case 'base-url':
      return fc.constantFrom(...urls());
    case 'forward-to':
    case 'webhook-url':
      return fc.constantFrom('http://127.0.0.1:1/hook', 'ftp://example.invalid', 'nope', '');
    case 'host':
      // A host name would mean a DNS lookup and a listener off this machine: loopback only.
      return fc.constant('127.0.0.1');
    case 'product':
      return trouble(['amazon-us-10', 'amazon-us-25', 'nope', 'netflix-us-30']);
    case 'quantity':
      // 1000001 is past the bound; 1,000,000 itself is now a real order whose export (--out) takes seconds,
      // so the valid side of the bound is left to test/server/orders.test.ts.
      return trouble(['1', '2', '0', '100000', '1000001']);
    case 'api-key':
      return trouble([
        DEMO_KEYS.test,
        DEMO_KEYS.live,
        'sc_test_short',
        'sk_live_1234567890abcdef',
        'sc_live_not_a_real_key_0000',
      ]);
    case 'env':
      return trouble(['test', 'live', 'all', 'LIVE']);
    case 'profile':
      return trouble(['default', 'other']);
    case 'out':
      return trouble(['existing.csv', 'new.csv', 'new.json', 'codes.jsonl', '-', 'dir-here']);
    case 'format':
      return trouble(['csv', 'json', 'jsonl', 'ndjson', 'xml']);
    case 'seed':
      return trouble(['missing.json', 'bad.json', 'dir-here']);
    case 'interval':
    case 'timeout':
    case 'request-timeout':
      return trouble(['0.05', '0.2', '1', '3601']);
    case 'retries':
      return trouble(['0', '1', '21']);
    case 'field':
      return trouble(['base-url', 'default-env', 'api-key']);
    case 'value':
      return trouble(['live', 'test', 'https://api.example.invalid', 'http://giftcodes.invalid']);
    case 'shell':
      return trouble(['bash', 'zsh', 'fish', 'powershell']);
    case 'id':
    case 'order-id':
      return trouble(['ord_nope', 'ord_0000000000']);
    default:
      return name.endsWith('port') ? trouble(['0', '-1', '65536', 'http']).map(noRealPort) : trouble();
  }
}

/** A real port number would take a port another test may count on being closed (127.0.0.1:1): 0 instead. */
function noRealPort(value: string): string {
  const trimmed = value.trim();
  return /^\+?\d+$/.test(trimmed) && Number(trimmed) >= 1 && Number(trimmed) <= 65535 ? '0' : value;
}

/** Each option is given with chance `share`, so a case is not always a wall of flags that fails at the first. */
function optionArgs(options: readonly Option[], share: number): fc.Arbitrary<string[]> {
  return fc
    .tuple(
      ...options.map((option) => {
        const flag = option.long ?? option.short ?? '';
        const name = flag.replace(/^-+/, '');
        const takesValue = option.required || option.optional;
        const value = takesValue
          ? option.argChoices
            ? fc.oneof(fc.constantFrom(...option.argChoices), valuesFor(name))
            : valuesFor(name)
          : fc.constant(undefined);
        const spelled = option.short && option.long ? fc.constantFrom(option.short, option.long) : fc.constant(flag);
        const given = fc.oneof(
          { weight: Math.round(100 - share * 100), arbitrary: fc.constant(null) },
          { weight: Math.round(share * 100), arbitrary: fc.tuple(spelled, value, fc.boolean()) },
        );
        return given.map((picked) => {
          if (picked === null) return [];
          const [spelling, v, joined] = picked;
          if (v === undefined) return [spelling];
          return joined && spelling.startsWith('--') ? [`${spelling}=${v}`] : [spelling, v];
        });
      }),
    )
    .map((groups) => groups.flat());
}

interface Case {
  argv: string[];
  stdin: string;
  command: string;
}

function caseArbitrary(): fc.Arbitrary<Case> {
  return fc.constantFrom(...tree).chain(leafCase);
}

/** A case of one command: its arguments, its own and the global flags, and what stdin holds. */
function leafCase(leaf: Leaf): fc.Arbitrary<Case> {
  const positional = fc.tuple(
    ...leaf.args.map((arg) =>
      fc.option(fc.array(valuesFor(arg.name), { minLength: 1, maxLength: arg.variadic ? 3 : 1 }), {
        freq: arg.required ? 8 : 2,
      }),
    ),
  );
  return fc
    .record({
      globalsFirst: optionArgs(globalOptions, 0.12),
      globalsAfter: optionArgs(globalOptions, 0.08),
      own: optionArgs(leaf.options, 0.4),
      positional,
      extra: fc.oneof(
        { weight: 9, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom(['--no-such-flag'], ['surplus-argument'], ['-Z'], ['--quantity']) },
      ),
      stdin: fc.oneof(fc.constant(''), fc.constant(DEMO_KEYS.test), trouble()),
    })
    .map((r) => {
      const args = r.positional.flatMap((values) => values ?? []);
      return {
        argv: [...r.globalsFirst, ...leaf.path, ...args, ...r.own, ...r.globalsAfter, ...(r.extra ?? [])],
        stdin: r.stdin,
        command: leaf.path.join(' '),
      };
    });
}

/**
 * --json as commander reads it: the program parses its own options first, anywhere in argv, knowing only
 * them; so --json is the flag unless it follows `--` or is the value of a global option (`--env --json`).
 */
function jsonGiven(argv: readonly string[]): boolean {
  const takesValue = new Set<string>();
  for (const option of globalOptions) {
    if (!option.required) continue;
    if (option.long) takesValue.add(option.long);
    if (option.short) takesValue.add(option.short);
  }
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return false;
    // --query implies --json (src/cli.ts reads it the same way).
    if (argv[i] === '--json' || argv[i] === '--query' || argv[i]!.startsWith('--query=')) return true;
    if (takesValue.has(argv[i]!)) i++;
  }
  return false;
}

/** Runs one case in its own copy of the logged-in config and its own working directory. */
async function runCase(c: Case): Promise<{ c: Case; result: RunResult; problems: string[] }> {
  const configDir = configCopy(served.configDir, 'giftcodes-fuzz-args-');
  const cwd = tempDir('giftcodes-fuzz-cwd-');
  writeFileSync(join(cwd, 'existing.csv'), 'order_id,code\nord_1,KEEP-ME\n', { mode: 0o600 });
  writeFileSync(join(cwd, 'bad.json'), '{"resellers": [', { mode: 0o600 });
  mkdirSync(join(cwd, 'dir-here'));
  const beforeConfig = snapshot(configDir);
  const beforeCwd = snapshot(cwd);
  const existing = sha256File(join(cwd, 'existing.csv'));
  let result: RunResult;
  if (c.command === 'serve') {
    result = await spawnServe(c.argv, { configDir, cwd, timeoutMs: 120_000 });
  } else {
    const { proc, result: pending } = spawnCli(c.argv, { configDir, cwd, timeoutMs: 120_000 });
    proc.stdin?.end(c.stdin);
    // A listener would run until stopped: stop it as a person would once it listens (read from /proc: on a loaded
    // machine the process may still be loading its modules seconds after its spawn, and a signal then would end it
    // by Node's default action or by the handler conf's atomic writer installs as it loads, before giftcodes' own;
    // a person's Ctrl-C meets neither in practice). It binds its port after its handler is in. The 15 s are a
    // safety net for a listener that neither listens nor ends.
    let stopper: NodeJS.Timeout | undefined;
    if (c.command === 'webhook listen') {
      const started = Date.now();
      const poll = (): void => {
        if ((catchesTerm(proc.pid) && listening(proc.pid)) || Date.now() - started > 15_000) proc.kill('SIGTERM');
        else stopper = setTimeout(poll, 25);
      };
      poll();
    }
    result = await pending.finally(() => clearTimeout(stopper));
  }
  const json = jsonGiven(c.argv);
  const problems = endingProblems(result, { json });
  if (c.command === 'serve' && /sc_(test|live)_/.test(result.stderr)) problems.push('serve printed a key on stderr');
  if (result.code === 2) {
    if (JSON.stringify(snapshot(configDir)) !== JSON.stringify(beforeConfig))
      problems.push('a usage error changed the config directory');
    if (JSON.stringify(snapshot(cwd)) !== JSON.stringify(beforeCwd))
      problems.push('a usage error changed the working directory');
  }
  const forced = c.argv.some((a) => a === '--force' || a.startsWith('--force='));
  if (!(forced && result.code === 0) && sha256File(join(cwd, 'existing.csv')) !== existing)
    problems.push('existing.csv changed without --force');
  rmSync(configDir, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
  return { c, result, problems };
}

describe('fuzz: command-line arguments', () => {
  test('every command, random flags and values: a contract exit code and one clean error line', async () => {
    // One case of every command first, then random ones: npm test's scaled-down count (0.3) still reaches every
    // command, where 72 random draws would miss some; `npm run fuzz` draws all 240.
    const settings = fuzzSettings(240);
    const [everyCommand] = draw(fc.tuple(...tree.map(leafCase)), { seed: settings.seed, runs: 1 });
    const { cases, outcomes } = await runFuzz(
      'cli-args',
      caseArbitrary(),
      { ...settings, runs: Math.max(1, settings.runs - tree.length) },
      runCase,
      { concurrency: 3, note: `${tree.length} commands, one case of each first`, first: everyCommand },
    );
    const covered = new Set(cases.map((c) => c.command));
    expect(
      failureLines(outcomes, (o) => `giftcodes ${JSON.stringify(o.c.argv)}`)
        .slice(0, 10)
        .join('\n'),
    ).toBe('');
    // The draw reached every command of the tree, and both success and failure.
    expect([...covered].sort()).toEqual(tree.map((leaf) => leaf.path.join(' ')).sort());
    const codes = exitCodeCounts('cli-args', outcomes);
    for (const code of ['0', '2', '3', '4']) expect(codes[code], `no case ended with exit ${code}`).toBeGreaterThan(0);
  }, 900_000);
});
