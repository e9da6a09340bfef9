import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { forEachCommand } from '../../src/commands/help.js';
import { BIN, runCli } from '../helpers/e2e.js';
import { commandTree } from '../helpers/program.js';

/** Every visible command of the tree, as the words that run it ([] is giftcodes itself). */
function commandPaths(): string[][] {
  const program = commandTree();
  const paths: string[][] = [];
  const visit = (command: Command, path: string[]): void => {
    paths.push(path);
    for (const sub of command.createHelp().visibleCommands(command)) {
      if (sub.name() === 'help' && !command.commands.includes(sub)) continue;
      visit(sub, [...path, sub.name()]);
    }
  };
  visit(program, []);
  return paths;
}

const paths = commandPaths();

/**
 * `giftcodes <path> --help` parsed in this process, as the CLI parses it into a pipe (commander's 80 columns, no
 * colour): the help it writes to stdout, and the exit code commander gives it. A CLI process costs CPU the suite
 * is short of, and the text is the command tree's alone; the tests below that run the CLI check that its stdout is
 * this text, and the exit code and the launcher's own help.
 */
async function helpInProcess(path: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = [process.execPath, BIN, ...path, '--help'];
  const program = commandTree(argv);
  let stdout = '';
  let stderr = '';
  const output = {
    writeOut: (text: string) => (stdout += text),
    writeErr: (text: string) => (stderr += text),
    getOutHelpWidth: () => 80,
    getErrHelpWidth: () => 80,
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
  for (const command of [program, ...commandsOf(program)]) command.exitOverride().configureOutput(output);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (!(error instanceof CommanderError) || error.code !== 'commander.helpDisplayed') throw error;
    return { code: error.exitCode, stdout, stderr };
  }
  throw new Error(`giftcodes ${path.join(' ')} --help showed no help`);
}

/** Every command under `program`, at any depth: each gets the output and exit handling the CLI gives them all. */
function commandsOf(program: Command): Command[] {
  const commands: Command[] = [];
  forEachCommand(program, (command) => commands.push(command));
  return commands;
}

describe('--help on every command', () => {
  it('finds the whole tree', () => {
    expect(paths.length).toBeGreaterThan(10);
    expect(paths).toContainEqual(['config', 'set']);
    expect(paths).toContainEqual(['completion']);
    expect(paths.flat()).not.toContain('__complete');
  });

  it.each(paths.map((path) => [path.join(' ') || '(giftcodes)', path] as const))(
    '%s --help has a description, usage and examples',
    async (_name, path) => {
      const result = await helpInProcess(path);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      const usage = ['giftcodes', ...path].join(' ');
      expect(result.stdout).toContain(`Usage: ${usage}`);
      // The description is the paragraph after the usage line.
      expect(result.stdout.split('\n')[2]?.trim().length ?? 0, `${usage} has no description`).toBeGreaterThan(10);
      expect(result.stdout, `${usage} --help has no examples: add examples(command, [...]) in its register()`).toMatch(
        /\nExamples:\n {2}\$ .*giftcodes /,
      );
      expect(result.stdout).not.toContain('(default: false)');
      expect(result.stdout).not.toContain('display help for command');
      // One blank line between sections, never two (the top-level help had two before its examples).
      expect(result.stdout, `${usage} --help`).not.toMatch(/\n\n\n/);
    },
  );
});

describe('top-level help', () => {
  it('groups commands by what a reseller does, help with the tools', async () => {
    const { code, stdout } = await runCli(['--help']);
    // The launcher's own help (bin/giftcodes, rendered by the build) is the help the command tree makes.
    expect(code).toBe(0);
    expect(stdout).toBe((await helpInProcess([])).stdout);
    const headings = stdout.split('\n').filter((line) => /^\S.*:$/.test(line));
    // What to run comes before how to tune it (issue 30): the command groups, then the options.
    expect(headings).toEqual(['Set up:', 'Buy codes:', 'Tools:', 'Options:', 'Examples:']);
    const tools = stdout.slice(stdout.indexOf('Tools:'), stdout.indexOf('Options:'));
    expect(tools).toMatch(/^ {2}help \[command\] +show help for a command$/m);
    expect(stdout.slice(stdout.indexOf('Set up:'), stdout.indexOf('Buy codes:'))).toMatch(/^ {2}login /m);
  });

  it('giftcodes help <command> is <command> --help', async () => {
    const [viaHelp, viaFlag] = await Promise.all([runCli(['help', 'config']), runCli(['config', '--help'])]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    // And the CLI's help is the text the tests above read in this process.
    expect(viaFlag.code).toBe(0);
    expect(viaFlag.stdout).toBe((await helpInProcess(['config'])).stdout);
  });

  // A person's day (stop 78): order place --help never said that it guides an order at a terminal, nor that --out
  // waits for the order to complete, both of which the README's quickstart relies on.
  it('order place --help says it guides an order at a terminal, and that --out waits for the order', async () => {
    const help = (await helpInProcess(['order', 'place'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(
      'at a terminal, without --product or --quantity, it asks for what is missing (a guided order)',
    );
    expect(help).toMatch(/-o, --out <file> wait for the order to complete, then write its codes to this file/);
  });

  // The same review: login --help never showed --base-url or --env, which every hint and the quickstart pass it, nor
  // order place --help the --yes a live order off a terminal needs. Listed as gh lists inherited flags.
  it('the global options a command is run with are listed in its help, with their words', async () => {
    const login = (await helpInProcess(['login'])).stdout;
    expect(login).toContain('Global options it is run with (all of them: giftcodes help options):');
    expect(login).toMatch(/^ {2}--base-url <url> +API base URL/m);
    expect(login).toMatch(/^ {2}--env <test\|live> +which of the profile's keys to use/m);
    expect((await helpInProcess(['order', 'place'])).stdout).toMatch(/^ {2}-y, --yes +answer yes to confirmations/m);
    // Elsewhere the pointer to them all, as before.
    expect((await helpInProcess(['config', 'set'])).stdout).toContain(
      'Global options (--profile, --env, --json, --query, …): giftcodes help options',
    );
  });

  it("a subcommand's --help from the CLI is the help read in this process: stdout, exit 0", async () => {
    const result = await runCli(['config', 'set', '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe((await helpInProcess(['config', 'set'])).stdout);
  });
});

describe('unknown commands suggest the nearest', () => {
  it.each([
    [['ordr'], 'order'],
    [['confg'], 'config'],
    [['config', 'shw'], 'show'],
    [['ping', '--jsn'], '--json'],
    [['logot'], 'logout'],
    [['order', 'plac'], 'place'],
  ])('giftcodes %s', async (args, nearest) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^[\dT:.Z-]+ error: unknown (command|option) '/m);
    // In the words of every other hint (a product id's typo: `did you mean amazon-us-25?`), not commander's "Did".
    expect(result.stderr).toContain(`hint: did you mean ${nearest}?\n`);
  });

  // A reviewer's `giftcodes bogus` was offered `Did you mean logout?` (three edits away): a word that far is no typo.
  it.each([[['xyzzy']], [['bogus']], [['help', 'bogus']]])(
    'says where to look when nothing is near: giftcodes %s',
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/ hint: see: giftcodes --help\n$/);
      expect(result.stderr).not.toMatch(/did you mean/i);
    },
  );
});

// `giftcodes --env prod ping` pointed at `ping --help`, which does not list --env: a global option's bad value
// points at the help that lists the global options, wherever it was typed; a verb's own option at the verb's help.
describe('a bad value of a global option points at giftcodes help options', () => {
  it.each([
    [['--env', 'prod', 'ping']],
    [['ping', '--env', 'prod']],
    [['--retries', 'x', 'order', 'list']],
    [['ping', '--env']],
    [['--env', 'prod']],
  ])('giftcodes %s', async (args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    // The flag, then what it expects and what was given, once (a person's day: commander's words said the value twice).
    expect(result.stderr).toMatch(
      / error: (--(env|retries): expected .*, got "|option '--env <test\|live>' argument missing)/,
    );
    expect(result.stderr).toMatch(/ hint: see: giftcodes help options\n$/);
  });

  it("a verb's own option keeps the verb's help", async () => {
    const result = await runCli(['order', 'place', '--quantity', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/ hint: see: giftcodes order place --help\n$/);
  });

  // Broke: `logout --env bogus` said `expected test or live` and pointed at help options, where logout takes all too
  // (its help: --env test|live|all).
  it.each([[['logout', '--env', 'bogus']], [['--env', 'bogus', 'logout']], [['logout', '--env']]])(
    'logout, whose --env takes all too, answers with its own words and help: giftcodes %s',
    async (args) => {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      if (args.includes('bogus')) expect(result.stderr).toContain('expected test, live or all, got "bogus"');
      // The option as logout takes it (a person's-day review read `'--env <test|live>' … expected test, live or all`).
      if (args.includes('bogus'))
        expect(result.stderr).toContain('error: --env: expected test, live or all, got "bogus"');
      expect(result.stderr).not.toContain('<test|live>');
      expect(result.stderr).toMatch(/ hint: see: giftcodes logout --help\n$/);
    },
  );

  it('giftcodes help options lists them', async () => {
    const result = await runCli(['help', 'options']);
    expect(result.stdout).toMatch(/^ {2}--env <test\|live> /m);
    expect(result.stdout).toMatch(/^ {2}--retries <n> /m);
  });
});
