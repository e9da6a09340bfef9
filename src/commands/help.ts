// What --help looks like everywhere: no "(default: false)" noise, a help command that says what it
// does, and an Examples section on every command (a noun shows its verbs' first examples).
import { Help, type Command, type HelpConfiguration } from 'commander';
import { examples, examplesOf } from './app.js';

/** Given to the program before any command is added: commander copies it to each subcommand. */
export const helpConfiguration: HelpConfiguration = {
  // Every verb's help lists the options it inherits (--json, --query, --profile, …), as gh does.
  showGlobalOptions: true,
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

/** `giftcodes help <topic>`: pages that are not commands. */
export const HELP_TOPICS: Readonly<Record<string, string>> = {
  environment: `Environment variables read by giftcodes (a flag wins over its variable, a variable over the profile):

  GIFTCODES_PROFILE      config profile to use (--profile)
  GIFTCODES_API_KEY      use this key instead of the profile's (--api-key); its prefix decides the environment
  GIFTCODES_BASE_URL     API base URL (--base-url); default the profile's, else http://127.0.0.1:4010
  GIFTCODES_CONFIG_DIR   directory of the config, the order journal and the order record (tests and cron use it)
  GIFTCODES_CA_FILE      PEM certificates trusted in addition to Node's own (--ca-file)
  NODE_EXTRA_CA_CERTS    the same, read by Node itself
  SSL_CERT_FILE          a PEM bundle of CA certificates, trusted in addition to Node's own (read for https only)
  SSL_CERT_DIR           directories of PEM certificates (':'-separated), trusted the same way
  GIFTCODES_WEBHOOK_SECRET  the webhook secret for webhook listen and order watch --webhook-port
  GIFTCODES_PAGER        pager for long output on a terminal (wins over PAGER; "cat" or empty: none)
  PAGER                  pager for long output on a terminal (default: less -FRX)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and lower case)  a forward proxy; credentials are never printed
  NO_COLOR, FORCE_COLOR  colour control (--no-color)
  CI                     set: never prompt (as when stdin or stderr is not a terminal)
  GIFTCODES_DEBUG        set: an unexpected internal error prints its stack
`,
  'exit-codes': `Exit codes:

  0    success
  1    unexpected internal error (a bug)
  2    usage or invalid input, caught before anything was sent
  3    authentication or configuration: no key, key rejected (401/403), environment mismatch,
       plain http to a non-loopback host with a key
  4    the API refused the request: 4xx other than auth (idempotency_key_reused, unknown product,
       not found, codes not ready…)
  5    the API could not be reached, kept failing after retries (network errors, timeouts, 5xx, 429),
       or answered with a body that cannot be understood
  6    the order ended in a terminal state other than completed
  7    gave up waiting (--timeout)
  8    a local resource failed: the journal, config or output file cannot be written or read
       (disk full, read-only, permission), or a config directory others can write
  130  interrupted (SIGINT/SIGTERM); the message says how to resume
`,
};

export function helpTopic(name: string): string | undefined {
  return Object.hasOwn(HELP_TOPICS, name) ? HELP_TOPICS[name] : undefined;
}

/** Run after every command is registered. */
export function finishHelp(program: Command): void {
  program.addHelpText('afterAll', `\nHelp topics: giftcodes help environment, giftcodes help exit-codes\n`);
  // `help` sits with the last group of commands (the tools), not alone under "Commands:".
  const group = program.commands.at(-1)?.helpGroup() ?? '';
  program.addHelpCommand(helpCommand(program).helpGroup(group));
  examples(
    program,
    PROGRAM_EXAMPLES.filter((line) => exists(program, line.split(' ').slice(1))),
  );
  forEachCommand(program, (command) => {
    if (command.commands.length === 0) return;
    command.addHelpCommand(helpCommand(command));
    if (examplesOf(command)) return;
    const picked: string[] = [];
    for (const verb of command.commands) {
      const line = examplesOf(verb)?.find((example) => !picked.includes(example));
      if (line) picked.push(line);
    }
    if (picked.length > 0) examples(command, picked);
  });
}

function helpCommand(parent: Command): Command {
  return parent.createCommand('help').argument('[command]', 'the command to explain').description('show help for a command').helpOption(false);
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
