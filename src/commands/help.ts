// What --help looks like everywhere: no "(default: false)" noise, a help command that says what it
// does, and an Examples section on every command (a noun shows its verbs' first examples).
import { Help, type Command, type HelpConfiguration } from 'commander';
import { examples, examplesOf } from './app.js';
import { environmentHelp } from './environment.js';
import { definitionList, itemList, paragraph, TEXT_WIDTH } from './help-text.js';

/** Given to the program before any command is added: commander copies it to each subcommand. */
export const helpConfiguration: HelpConfiguration = {
  // A verb's help shows its own options and points at the global ones (giftcodes help options) in one line,
  // instead of repeating seventeen of them under every verb.
  showGlobalOptions: false,
  formatHelp(command, helper) {
    const text = Help.prototype.formatHelp.call(this, command, helper);
    // The program's help lists what to run before how to tune it: its commands come before its options.
    if (command.parent) return text;
    const sections = text.split('\n\n');
    const options = sections.findIndex((section) => section.startsWith('Options:'));
    const lastCommands = sections.findLastIndex(
      (section) =>
        /^[A-Z][\w ]*:\n {2}\S/.test(section) && !section.startsWith('Options:') && !section.startsWith('Usage:'),
    );
    if (options < 0 || lastCommands < options) return text;
    const [moved] = sections.splice(options, 1);
    sections.splice(lastCommands, 0, moved!);
    return `${sections.map((section) => section.replace(/\n+$/, '')).join('\n\n')}\n`;
  },
  optionDescription(option) {
    const text = Help.prototype.optionDescription.call(this, option);
    // A boolean flag is off unless given: saying so is noise.
    return option.isBoolean() ? text.replace(/ \(default: (?:true|false)\)$/, '') : text;
  },
};

/** The program's own examples: what a reseller does, in order. Lines whose command is missing are left out. */
const PROGRAM_EXAMPLES = [
  'giftcodes login',
  'giftcodes catalog list',
  'giftcodes order place --product amazon-us-25 --quantity 10 --out codes.csv',
  'giftcodes codes get ord_123 --out codes.csv',
  'giftcodes order pending',
];

/** The exit codes and what each means (docs/exit-codes.md), for `help exit-codes`, the manual and docs. */
const EXIT_CODES: readonly { term: string; meaning: string }[] = [
  { term: '0', meaning: 'success' },
  { term: '1', meaning: 'unexpected internal error (a bug)' },
  {
    term: '2',
    meaning: 'usage or invalid input, caught before anything was sent (a product id the catalog cache lacks too)',
  },
  {
    term: '3',
    meaning:
      'authentication or configuration: no key, key rejected (401/403), environment mismatch, plain http to a non-loopback host with a key',
  },
  {
    term: '4',
    meaning:
      'the API refused the request: 4xx other than auth (idempotency_key_reused, unknown product where no catalog is cached, not found, codes not ready…)',
  },
  {
    term: '5',
    meaning:
      'the API could not be reached, kept failing after retries (network errors, timeouts, 5xx, 429), or answered with a body that cannot be understood',
  },
  { term: '6', meaning: 'the order ended in a terminal state other than completed' },
  { term: '7', meaning: 'gave up waiting (--timeout)' },
  {
    term: '8',
    meaning:
      'a local resource failed: the journal, config, a codes file, a plan, a --ca-file (or SSL_CERT_FILE, SSL_CERT_DIR), a --secret-file, a file to codes decrypt or its --identity file that is there (a missing one is 2) or stdout cannot be read or written (disk full, read-only, permission, a directory where a file should be, a config directory that is a file), or the config directory or file, a CA file or a secret file belongs to another user or is writable by others, or the credential store of the operating system that holds the key cannot be reached (no D-Bus session under cron: the hint says GIFTCODES_API_KEY or login --insecure-storage)',
  },
  { term: '130', meaning: 'interrupted (SIGINT/SIGTERM/SIGHUP); the message says how to resume' },
];

function exitCodesHelp(width: number): string {
  return `Exit codes:\n\n${definitionList(EXIT_CODES, 3, width)}\n`;
}

/** `giftcodes help <topic>`: pages that are not commands, each laid out for a width (`options` is added once the program is built). */
const TOPICS: Record<string, (width: number) => string> = {
  environment: environmentHelp,
  'exit-codes': exitCodesHelp,
};

/** The topics as text is read off a terminal (scripts/gen-docs.mjs and gen-man.mjs read the exit codes here). */
export const HELP_TOPICS: Record<string, string> = {
  environment: environmentHelp(TEXT_WIDTH),
  'exit-codes': exitCodesHelp(TEXT_WIDTH),
};

/** The topics' names (`options` among them once the program is built): what `help <TAB>` offers beside commands. */
export function helpTopicNames(): string[] {
  return Object.keys(TOPICS);
}

/** A topic laid out for `width` columns (a terminal's), or undefined for a name that is none. */
export function helpTopic(name: string, width: number = TEXT_WIDTH): string | undefined {
  return Object.hasOwn(TOPICS, name) ? TOPICS[name]!(width) : undefined;
}

/** Run after every command is registered. */
export function finishHelp(program: Command): void {
  TOPICS.options = (width) => globalOptionsHelp(program, width);
  HELP_TOPICS.options = globalOptionsHelp(program, TEXT_WIDTH);
  program.addHelpText(
    'after',
    // No line break at its end: commander ends each text with one, and the examples after it start with a blank line.
    // Wrapped to the help's width (80 off a terminal): on one line it was 90 columns.
    ({ error, command }) => {
      const output = command.configureOutput();
      const width = (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? TEXT_WIDTH;
      const topics = ['options', 'environment', 'exit-codes'].map((topic) => `giftcodes help ${topic}`);
      return `\n${itemList('Help topics:', topics, width)}`;
    },
  );
  // `help` sits with the last group of commands (the tools), not alone under "Commands:".
  const group = program.commands.at(-1)?.helpGroup() ?? '';
  program.addHelpCommand(helpCommand(program).helpGroup(group));
  examples(
    program,
    PROGRAM_EXAMPLES.filter((line) => exists(program, line.split(' ').slice(1))),
  );
  forEachCommand(program, (command) => {
    if (command.commands.length > 0) {
      command.addHelpCommand(helpCommand(command));
      const picked: string[] = [];
      for (const verb of examplesOf(command) ? [] : command.commands) {
        const line = examplesOf(verb)?.find((example) => !picked.includes(example));
        if (line) picked.push(line);
      }
      if (picked.length > 0) examples(command, picked);
    }
    const uses = GLOBALS_USED[commandPath(command)];
    command.addHelpText('after', ({ error }) => {
      const head = `${examplesOf(command) ? '' : '\n'}`;
      if (!uses) return `${head}Global options (--profile, --env, --json, --query, …): giftcodes help options\n`;
      const output = command.configureOutput();
      const width = (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? TEXT_WIDTH;
      return `${head}${usedGlobals(program, uses, width)}\n`;
    });
  });
}

/**
 * The global options a command is most often run with, listed in its own help as gh lists inherited flags (a
 * person's day, stop 78: `login --help` never showed --base-url or --env, which every hint and the quickstart pass
 * it; `order place --help` never showed --yes, which a live order off a terminal needs). The rest: help options.
 */
const GLOBALS_USED: Record<string, readonly string[]> = {
  login: ['--profile', '--env', '--base-url'],
  logout: ['--profile', '--env'],
  ping: ['--profile', '--env', '--base-url', '--json'],
  'order place': ['--env', '--yes', '--profile', '--json', '--query'],
  'order resume': ['--env', '--yes', '--profile', '--json'],
  'codes get': ['--env', '--profile', '--json', '--query'],
};

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

function usedGlobals(program: Command, names: readonly string[], width: number): string {
  const helper = program.createHelp();
  Object.assign(helper, helpConfiguration);
  const items = names.flatMap((name) => {
    const option = program.options.find((o) => o.long === name);
    return option ? [{ term: helper.optionTerm(option), meaning: helper.optionDescription(option) }] : [];
  });
  const termWidth = Math.max(...items.map((item) => item.term.length));
  return `Global options it is run with (all of them: giftcodes help options):\n${definitionList(items, termWidth, width)}`;
}

/** `giftcodes help options`: the options every command takes, once. */
function globalOptionsHelp(program: Command, width: number): string {
  const helper = program.createHelp();
  Object.assign(helper, helpConfiguration);
  const options = helper
    .visibleOptions(program)
    .filter((option) => option.long !== '--help' && option.long !== '--version');
  const items = options.map((option) => ({
    term: helper.optionTerm(option),
    meaning: helper.optionDescription(option),
  }));
  const termWidth = Math.max(...items.map((item) => item.term.length));
  return `${paragraph('Global options (every command takes them, before or after its name):', width)}\n\n${definitionList(items, termWidth, width)}\n`;
}

function helpCommand(parent: Command): Command {
  return parent
    .createCommand('help')
    .argument('[command]', 'the command to explain')
    .description('show help for a command')
    .helpOption(false);
}

/** Whether the words name a command (`order place …` → giftcodes has order, order has place). */
function exists(program: Command, words: readonly string[]): boolean {
  let command: Command | undefined = program;
  for (const word of words) {
    if (word.startsWith('-') || !command || command.commands.length === 0) break;
    command = command.commands.find((sub) => sub.name() === word);
  }
  return command !== undefined;
}

export function forEachCommand(command: Command, visit: (command: Command) => void): void {
  for (const sub of command.commands) {
    visit(sub);
    forEachCommand(sub, visit);
  }
}
