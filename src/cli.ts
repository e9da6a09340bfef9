// Builds the commander program, runs it, and is the only place that maps errors to text and exits.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { setMaxListeners } from 'node:events';
import { createApp, type App } from './commands/app.js';
import { hintsOf } from './completion/hints.js';
import { finishHelp, forEachCommand, helpConfiguration, helpTopic } from './commands/help.js';
import { TEXT_WIDTH } from './commands/help-text.js';
import { commandWord, registerCommands, valueFlags } from './commands/index.js';
import { environmentArg, integer, LOGOUT_ENVIRONMENTS, nonEmpty, profileName, seconds } from './commands/parse.js';
import { ExitCode, InterruptedError, isCliError, type CliError } from './errors.js';
import { DEFAULT_REQUEST_TIMEOUT_S, DEFAULT_RETRIES } from './factory.js';
import { finishJournal } from './journal/at-exit.js';
import { Io, stdoutFailed } from './output/io.js';
import { pinnedHint, type RunPlace } from './output/pinned-hint.js';
import { nearestIds } from './near.js';
import { KEY_ENVIRONMENTS } from './secrets.js';
import { VERSION } from './version.js';

/** For scripts/gen-man.mjs: the help topics and the environment variables go into the man page. */
export { HELP_TOPICS } from './commands/help.js';
export { ENVIRONMENT_VARIABLES } from './commands/environment.js';

/** With `argv`, only the branch of the command it names is built (see registerCommands); without, the whole tree. */
export function buildProgram(app: App, argv?: readonly string[]): Command {
  // The command this run names, known once the program's options are: logout's --env takes all too, and says so.
  const run: { command?: string | undefined } = {};
  const program = new Command('giftcodes')
    .description(
      'Order gift codes from the reseller API: check a key, browse the catalog, place orders exactly once, watch them and export their codes.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureHelp(helpConfiguration)
    .showSuggestionAfterError(true)
    .addOption(new Option('--profile <name>', 'config profile to use (env: GIFTCODES_PROFILE)').argParser(profileName))
    .addOption(
      new Option(`--env <${KEY_ENVIRONMENTS.join('|')}>`, "which of the profile's keys to use").argParser((value) =>
        environmentArg(value, run.command === 'logout' ? LOGOUT_ENVIRONMENTS : KEY_ENVIRONMENTS),
      ),
    )
    .addOption(
      new Option(
        '--api-key <key>',
        "use this key instead of the profile's (prefer GIFTCODES_API_KEY: flags show in ps)",
      ).argParser(nonEmpty('--api-key', 1024)),
    )
    .addOption(
      new Option(
        '--base-url <url>',
        "API base URL (env: GIFTCODES_BASE_URL; default: the profile's, else http://127.0.0.1:4010)",
      ).argParser(nonEmpty('--base-url', 2048)),
    )
    .option('--json', 'machine output: one JSON document on stdout; errors as JSON on stderr')
    .option('-q, --quiet', 'no spinner, progress or notices: only data and errors')
    .option('-v, --verbose', 'one stderr line per HTTP attempt (the key redacted)')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .addOption(
      new Option('--request-timeout <seconds>', 'deadline for one HTTP attempt')
        .argParser(seconds(0.05, 3600))
        .default(DEFAULT_REQUEST_TIMEOUT_S),
    )
    .addOption(
      new Option('--retries <n>', 'retries of a retryable failure').argParser(integer(0, 20)).default(DEFAULT_RETRIES),
    )
    .addOption(
      new Option(
        '--ca-file <path>',
        "PEM certificates trusted in addition to Node's own (env: GIFTCODES_CA_FILE)",
      ).argParser(nonEmpty('--ca-file', 4096)),
    )
    .option('-y, --yes', 'answer yes to confirmations (required for live orders when not interactive)')
    .option('--query <expr>', 'JMESPath expression applied to the --json document (implies --json)')
    .option('--raw', 'with --query: a result that is one string is printed as it is, without quotes (as jq -r)')
    .addOption(new Option('--jq <expr>').hideHelp().argParser(refuseJq))
    .option('--no-pager', 'never send long output through a pager (also GIFTCODES_PAGER=cat)');
  // --query is compiled while the arguments are checked: a bad expression exits 2 before anything is sent.
  program.hook('preAction', async (_program, action) => {
    const {
      query: expression,
      pager,
      raw,
    } = action.optsWithGlobals<{ query?: string; pager?: boolean; raw?: boolean }>();
    if (pager === false) app.io.pager = false;
    if (raw) app.io.raw = true;
    // Said, not ignored: `--json --raw` printed quoted JSON without a word (a person's day).
    if (raw && expression === undefined)
      app.io.warn("--raw does nothing without --query (it prints a query's one-string answer without quotes)");
    if (expression === undefined) return;
    const { useQuery } = await import('./output/exporter.js');
    await useQuery(app.io, expression);
  });
  run.command = argv ? commandWord(program, argv.slice(2)) : undefined;
  registerCommands(program, app, run.command);
  finishHelp(program);
  return program;
}

/**
 * gh's --jq takes jq syntax, which JMESPath does not read: accepting it would run a different language under a
 * familiar name. Refused while parsing (exit 2), pointing at --query and --raw.
 */
function refuseJq(): never {
  throw new InvalidArgumentError(
    "giftcodes filters JSON with --query (JMESPath, as the AWS CLI), not jq: for example --query '[0].orderId' --raw",
  );
}

export async function main(argv: readonly string[] = process.argv): Promise<never> {
  const io = Io.system();
  const controller = new AbortController();
  // Every request and wait in flight listens to it: a plan at --concurrency 32 holds more than Node's default
  // ten, whose "possible memory leak" warning would land on a user's stderr. Each removes its listener when done.
  setMaxListeners(256, controller.signal);
  const app = createApp(io, controller.signal);
  installSignalHandlers(controller, io, argv.slice(2));
  io.stopPromptsOn(controller.signal);
  const program = buildProgram(app, argv);
  argv = helpWords(program, argv);
  // Laid out for the terminal it is read on; a pipe or a file gets commander's 80 columns, as --help does.
  // Its flags aside (`help exit-codes --json` read "no command given"): a topic has no JSON form, its text is printed.
  const topicWords = argv.slice(3).filter((word) => !word.startsWith('-'));
  const topic =
    argv[2] === 'help' && topicWords.length === 1
      ? helpTopic(topicWords[0] ?? '', io.stdoutIsTTY ? io.columns : TEXT_WIDTH)
      : undefined;
  // Help that stdout cannot take is exit 8, as the launcher's --version and --help are (bin/giftcodes): help on
  // /dev/full said nothing and exited 0.
  const helpWrites: Promise<NodeJS.ErrnoException | undefined>[] = [];
  const writeHelp = (text: string): boolean => {
    helpWrites.push(
      new Promise((resolve) => {
        io.stdout.once('error', () => undefined);
        try {
          io.stdout.write(text, (error) => resolve(error ?? undefined));
        } catch (error) {
          resolve(error as NodeJS.ErrnoException);
        }
      }),
    );
    return true;
  };
  const helpFailed = async (): Promise<CliError | undefined> => {
    // A reader that went away (`giftcodes order place --help | head -1`) read what it wanted: quiet, exit 0, as catalog
    // list's reader going away is; it said "could not write the help", exit 8, every time (a person's day).
    const failure = (await Promise.all(helpWrites)).find((error) => error !== undefined && error.code !== 'EPIPE');
    return failure === undefined ? undefined : stdoutFailed(failure, 'the help');
  };
  if (topic !== undefined) {
    writeHelp(topic.endsWith('\n') ? topic : `${topic}\n`);
    const failed = await helpFailed();
    if (failed) printError(io, failed);
    return exit(failed ? failed.exitCode : ExitCode.ok);
  }
  let commanderMessage = '';
  program.exitOverride();
  program.configureOutput({
    writeOut: writeHelp,
    // Only help shown for a missing command comes here (`giftcodes`, `giftcodes order`): on stdout, exit 0, as gh
    // prints it, so `giftcodes | less` or `| grep` reads it (it went to stderr and the pager got nothing: a person's
    // day). With --json, its JSON error says it instead (report). Wrapped for stdout, where it goes.
    writeErr: (text) => (io.json ? true : writeHelp(text)),
    getErrHelpWidth: () => (io.stdoutIsTTY ? (process.stdout.columns ?? 80) : 80),
    outputError: (text) => {
      commanderMessage = text;
    },
  });
  forEachCommand(program, (command) => {
    command.exitOverride();
    command.configureOutput(program.configureOutput());
  });

  // A flag parsing error comes before any verb sets the output mode; --json must still get a JSON error.
  if (jsonFlagGiven(program, argv.slice(2))) io.json = true;

  let code: number = ExitCode.ok;
  try {
    await program.parseAsync(argv as string[]);
    // Output that never arrived is not success (exit 8), for every command.
    await io.flushOut();
  } catch (thrown) {
    const error = (thrown instanceof CommanderError && (await helpFailed())) || thrown;
    if (readerGoneFromListing(error, commandWords(program, argv.slice(2)))) return exit(ExitCode.ok);
    const flags = program.opts<{ profile?: string; env?: string; baseUrl?: string }>();
    // A GIFTCODES_PROFILE that is no profile name is the error itself: no hint names it.
    const profile = flags.profile ?? (await namedProfile(io.env));
    const words = commandWords(program, argv.slice(2));
    code = report(
      io,
      error,
      commanderMessage,
      controller.signal,
      words,
      // A command that reads no config (a completion script, the reference server) is run anywhere alike: its hints'
      // commands carry no GIFTCODES_CONFIG_DIR (a person's day read one in `completion tcsh`'s hint as needed).
      PLACELESS.has(words[0] ?? '')
        ? {}
        : {
            configDir: io.env.GIFTCODES_CONFIG_DIR,
            profile,
            envProfile: flags.profile === undefined ? profile : undefined,
            env: flags.env,
            // A --base-url refused as it is is no server for a hint's command to go to (it carried a password).
            baseUrl: isCliError(error) && error.code === 'invalid_base_url' ? undefined : flags.baseUrl,
            envBaseUrl: envBaseUrl(io.env),
            keyFromEnv: !program.opts<{ apiKey?: string }>().apiKey && Boolean(io.env.GIFTCODES_API_KEY?.trim()),
          },
      program,
    );
  }
  // Intents this run leaves unended become intent files now, rather than wait in its log for the next run.
  await finishJournal();
  // Not app.close(): the process ends here, and the kernel closes its sockets as undici would (a FIN each),
  // without the ~3 ms of waiting for every socket's close event first.
  return exit(code);
}

/**
 * `giftcodes help order place` is `giftcodes order place --help` (commander's help command reads one word), and so
 * is `giftcodes order help place`. A word that names no command (`help ordr`, `help order plcae`) is the unknown
 * command it is: exit 2 with a suggestion, not the help of the command above it.
 */
function helpWords(program: Command, argv: readonly string[]): readonly string[] {
  const args = argv.slice(2);
  // The command words before `help`: none for `giftcodes help …`, `order` for `giftcodes order help …`.
  let command = program;
  let at = 0;
  for (; args[at] !== 'help'; at++) {
    const sub = subcommand(command, args[at]);
    if (!sub) return argv;
    command = sub;
  }
  // Flags beside the words (`help order --json`) are no command words: they stay, after them (the help was read as
  // `order --json`, "giftcodes order needs a command", exit 2: a support review).
  const flags = args.slice(at + 1).filter((word) => word.startsWith('-'));
  const words = args.slice(at + 1).filter((word) => !word.startsWith('-'));
  if (words.length === 0 || (at === 0 && words.length === 1 && helpTopic(words[0] ?? '') !== undefined)) return argv;
  // Down the tree while the words name commands: one that has commands and names none of them is unknown.
  let named: Command = command;
  for (const word of words) {
    if (named.commands.length === 0) break;
    const sub = subcommand(named, word);
    if (!sub) return [...argv.slice(0, 2), ...args.slice(0, at), ...words, ...flags];
    named = sub;
  }
  return [...argv.slice(0, 2), ...args.slice(0, at), ...words, ...flags, '--help'];
}

/** The command `word` names under `command` (by name or alias), if any. */
function subcommand(command: Command, word: string | undefined): Command | undefined {
  return word === undefined
    ? undefined
    : command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
}

/**
 * Whether --json is given as a flag, read as commander reads the program's own options: not after a `--`
 * terminator, and neither `--json` nor `--` counts as the value of a global option (`--api-key --json`,
 * `--env --`). A verb's options are unknown at that level, so they never take `--json` as their value.
 */
function jsonFlagGiven(program: Command, args: readonly string[]): boolean {
  const takesValue = valueFlags(program);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return false;
    if (arg === '--json' || arg === '--query' || arg?.startsWith('--query=')) return true;
    if (arg !== undefined && takesValue.has(arg)) i++;
  }
  return false;
}

/** The command words of a run (`order place` for `giftcodes --json order place --qty 2`). */
function commandWords(program: Command, args: readonly string[]): string[] {
  const words: string[] = [];
  let command: Command = program;
  for (const arg of args) {
    const sub = command.commands.find((c) => c.name() === arg);
    if (!sub) continue;
    words.push(arg);
    command = sub;
  }
  return words;
}

/** The help that explains a usage error: `giftcodes order place --help` for a flag of order place. */
function helpFor(words: readonly string[]): string {
  return `see: giftcodes ${[...words, '--help'].join(' ')}`;
}

/**
 * A required argument left out (`giftcodes completion`): the command's usage line and the values the argument takes,
 * then its help (a person's day: "see: giftcodes completion --help" alone, for a word of three).
 */
function missingArgumentHint(program: Command, words: readonly string[], message: string): string | undefined {
  let command: Command | undefined = program;
  for (const word of words) command = command?.commands.find((c) => c.name() === word);
  if (command === undefined || command === program) return undefined;
  const name = /^missing required argument '([^']+)'/.exec(message)?.[1];
  const choices = command.registeredArguments.find((a) => a.name() === name)?.argChoices;
  const values =
    choices && choices.length > 0
      ? ` (${choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`})`
      : '';
  return `usage: giftcodes ${[...words, command.usage()].join(' ')}${values}; ${helpFor(words)}`;
}

/**
 * A bad value of a global option (`--env prod`, `--retries x`), wherever it was typed: the help that lists it,
 * `help options`, since a verb's --help only points there (`ping --help` has no --env). Undefined for any other
 * message, for an option the verb has one of its own by that name, and for one whose words differ at the verb
 * (logout's --env takes all too, which its help says).
 */
function globalOptionHelp(program: Command, words: readonly string[], message: string): string | undefined {
  const flags = /^option '([^']+)' argument/.exec(message)?.[1];
  const long = program.options.find((option) => option.flags === flags)?.long;
  if (long === undefined) return undefined;
  let command: Command | undefined = program;
  for (const word of words) command = command?.commands.find((c) => c.name() === word);
  if (command !== program && command?.options.some((option) => option.long === long)) return undefined;
  if (command !== undefined && hintsOf(command).flagWords?.[long] !== undefined) return undefined;
  return 'see: giftcodes help options';
}

/**
 * commander's "(Did you mean logout?)", in the house's words (`did you mean …?`, as a product id's typo is said),
 * and only for a word near enough by the rule product ids and profiles follow (nearestIds): commander offered
 * `logout` for `bogus`, three edits away.
 */
function nearWords(typed: string | undefined, offered: string | undefined): string | undefined {
  if (typed === undefined || offered === undefined) return undefined;
  const dashes = (word: string): string => word.replace(/^--?/, '');
  const candidates = offered.replace(/^one of /, '').split(', ');
  const near = new Set(nearestIds(dashes(typed), candidates.map(dashes)));
  const kept = candidates.filter((candidate) => near.has(dashes(candidate)));
  return kept.length === 0 ? undefined : `did you mean ${kept.join(' or ')}?`;
}

const CATALOG_SEARCH = 'to search the catalog by any part of an id or name: giftcodes catalog list --filter TEXT';
const ORDER_SHOW = 'to read an order: giftcodes order show REF (an id or key, or a prefix of either)';
const ORDER_PLACE =
  'to place an order: giftcodes order place --product ID --quantity N (alone at a terminal, it guides you)';
const CODES_GET = "to write an order's codes: giftcodes codes get ORDER_ID --out FILE (.csv, .json, .jsonl or .xlsx)";
const ORDER_SEARCH =
  'to find an order: giftcodes order show REF (an id or key, or a prefix of either), or giftcodes order list --product ID --since DATE';

/**
 * Words people reach for that name nothing here, too far from the right one for commander's "did you mean" (or
 * nearer a wrong one: `config get` is one letter from `set`), by the command they were typed under.
 */
const REACHED_FOR: Readonly<Record<string, string>> = {
  'config get':
    "to change a setting: giftcodes config set FIELD VALUE; to read the profile's settings: giftcodes config show",
  'order place --qty': 'did you mean --quantity?',
  'order place --count': 'did you mean --quantity?',
  'order place --product-id': 'did you mean --product?',
  // `order place amazon-us-25 5`, or `-q 10` (quiet) meant as the quantity.
  'order place <arguments>': 'the product and quantity are flags: --product <id> --quantity <n> (-q is --quiet)',
  // `catalog list amazon`, as `gh search` takes its words (a person's day).
  'catalog list <arguments>': CATALOG_SEARCH,
  // `catalog search steam`, `order find …` (a person's day: the hint was only the group's --help).
  'catalog search': CATALOG_SEARCH,
  'catalog find': CATALOG_SEARCH,
  'order search': ORDER_SEARCH,
  'order find': ORDER_SEARCH,
  // The verbs of other tools for the same things (gh's view, Stripe's retrieve and create): a person's day typed
  // `order get ID` and was sent to the group's --help.
  ...Object.fromEntries(
    ['get', 'view', 'status', 'info', 'describe', 'retrieve'].map((verb) => [`order ${verb}`, ORDER_SHOW]),
  ),
  ...Object.fromEntries(['create', 'new', 'buy'].map((verb) => [`order ${verb}`, ORDER_PLACE])),
  ...Object.fromEntries(['list', 'export', 'download', 'fetch', 'show'].map((verb) => [`codes ${verb}`, CODES_GET])),
  // The API has no way to cancel an order (its documentation names none): said, with what abandon does and does not do.
  'order cancel':
    'the API offers no way to cancel an order; giftcodes order abandon KEY stops this machine resuming an order that never got an answer, and cancels nothing',
};

/** The hint for an unknown command or option the table above knows, under the command it was typed under. */
function reachedFor(words: readonly string[], message: string): string | undefined {
  const unknown = /^unknown (?:command|option) '([^']+)'/.exec(message)?.[1];
  const typed = unknown ?? (message.startsWith('too many arguments') ? '<arguments>' : undefined);
  return typed === undefined ? undefined : REACHED_FOR[[...words, typed].join(' ')];
}

function report(
  io: Io,
  error: unknown,
  commanderMessage: string,
  signal: AbortSignal,
  words: readonly string[],
  place: RunPlace,
  program: Command,
): number {
  if (error instanceof CommanderError) {
    if (
      error.exitCode === 0 ||
      error.code === 'commander.help' ||
      error.code === 'commander.helpDisplayed' ||
      error.code === 'commander.version'
    ) {
      // `giftcodes --json` or `giftcodes order --json`, no command to run: the help a person gets is no JSON document.
      if (io.json && error.code === 'commander.help' && error.exitCode !== 0) {
        printError(io, {
          code: 'usage',
          message: words.length === 0 ? 'no command given' : `giftcodes ${words.join(' ')} needs a command`,
          hint: helpFor(words),
          exitCode: ExitCode.usage,
        });
        return ExitCode.usage;
      }
      return ExitCode.ok;
    }
    const message = (commanderMessage || error.message).replace(/^error:\s*/i, '').trim();
    // commander's suggestion arrives as "(Did you mean order?)" on a line of its own: it is the hint, when near.
    // Any other line break came from a value the user typed, and stays in the message (escaped when printed).
    const suggestion = /\n\(Did you mean ([^\n]*)\?\)$/.exec(message);
    const said = suggestion ? message.slice(0, suggestion.index) : message;
    // An empty value (`giftcodes order show "$ORDER"` with ORDER unset) in plain words, and its likely cause: commander
    // said "command-argument value '' is invalid for argument 'ref'. order reference must not be empty" (a person's day).
    const empty =
      /^command-argument value '' is invalid for argument '([\w.-]+)'\. (.+)$/s.exec(said) ??
      /^option '(--[\w-]+)[^']*' argument '' is invalid\. (.+)$/s.exec(said);
    if (empty) {
      printError(io, {
        code: 'usage',
        message: empty[1]!.startsWith('--') ? `${empty[1]}: ${empty[2]!}` : empty[2]!,
        hint: `it was given as "" (a shell variable unset or empty?); ${helpFor(words).replace(/^see: /, 'see ')}`,
        exitCode: ExitCode.usage,
      });
      return ExitCode.usage;
    }
    // logout's --env takes all too: the option named as its help names it (commander names the program's option).
    const first = words.includes('logout')
      ? said.replace(/^option '--env <test\|live>'/, "option '--env <test|live|all>'")
      : said;
    const typed = /^unknown (?:command|option) '([^']+)'/.exec(first)?.[1];
    const hint =
      reachedFor(words, first) ??
      nearWords(typed, suggestion?.[1]) ??
      globalOptionHelp(program, words, first) ??
      (error.code === 'commander.missingArgument' ? missingArgumentHint(program, words, first) : undefined) ??
      helpFor(words);
    printError(io, { code: 'usage', message: plainInvalid(first), hint, exitCode: ExitCode.usage });
    return ExitCode.usage;
  }
  const cliError: CliError | undefined = isCliError(error)
    ? error
    : signal.aborted
      ? (signal.reason as CliError)
      : undefined;
  if (cliError) {
    printError(io, {
      code: cliError.code,
      message: cliError.message,
      hint: cliError.hint && pinnedHint(cliError.hint, place),
      status: cliError.status,
      exitCode: cliError.exitCode,
      orderId: cliError.orderId,
      hintLine: cliError.hintLine,
    });
    return cliError.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  printError(io, {
    code: 'internal_error',
    message: `unexpected internal error: ${message.split('\n')[0]}`,
    hint: 'this is a bug; please report it with the command you ran (set GIFTCODES_DEBUG=1 for details)',
    exitCode: ExitCode.internal,
  });
  if (io.env.GIFTCODES_DEBUG && error instanceof Error && error.stack) io.errRaw(`${error.stack}\n`);
  return ExitCode.internal;
}

interface PrintableError {
  code: string;
  message: string;
  hint?: string | undefined;
  status?: number | undefined;
  exitCode: number;
  /** The order the error concerns (CliError.orderId): a script learns which order was placed without reading prose. */
  orderId?: string | undefined;
  /** CliError.hintLine: the hint on a line of its own under --quiet too. */
  hintLine?: boolean;
}

function printError(io: Io, error: PrintableError): void {
  if (io.json) {
    const body = {
      code: error.code,
      message: error.message,
      status: error.status ?? null,
      exitCode: error.exitCode,
      ...(error.orderId !== undefined ? { orderId: error.orderId } : {}),
      ...(error.hint ? { hint: error.hint } : {}),
    };
    io.errRaw(`${JSON.stringify({ error: body })}\n`);
    return;
  }
  // The hint is part of the error (it says how to resume an interrupted order): --quiet keeps it, on the same line,
  // but for an error whose hint keeps a line of its own (CliErrorInit.hintLine in src/errors.ts).
  // Not on a terminal (a cron log), every stderr line starts with its time, errors too.
  const stamp = io.stamp();
  if (io.quiet && error.hint && !error.hintLine) {
    io.errRaw(
      `${stamp}${io.ce.red('error:')} ${io.fitted(io.redact(`${visible(error.message)} (${visible(error.hint)})`), 'error: ')}\n`,
    );
    return;
  }
  // At a terminal each is broken at its spaces to its width (Io.fitted): a log keeps one line each.
  io.errRaw(`${stamp}${io.ce.red('error:')} ${io.fitted(io.redact(visible(error.message)), 'error: ')}\n`);
  if (error.hint) io.errRaw(`${stamp}${io.ce.dim('hint:')} ${io.fitted(io.redact(visible(error.hint)), 'hint: ')}\n`);
}

/**
 * commander's "option '--quantity <n>' argument '10.5' is invalid. expected a whole number …, got "10.5"" said the
 * value twice, and started a sentence in lower case (a person's day): the flag, then what our parser said, which
 * quotes the value as given. Other messages are left as they are.
 */
function plainInvalid(message: string): string {
  const invalid = /^option '(--[\w-]+)[^']*' argument '[^]*' is invalid\. (expected [^]*, got "[^]*")$/.exec(message);
  return invalid ? `${invalid[1]!}: ${invalid[2]!}` : message;
}

/**
 * Messages echo what the user typed and what a server sent: a line break would split the one error line
 * (or forge a `hint:`), and an escape sequence would reach the terminal. Both are shown escaped instead.
 */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, (c) =>
    c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The first signal asks the running verb to stop (it keeps its journal and says how to resume); a second forces. */
function installSignalHandlers(controller: AbortController, io: Io, args: readonly string[]): void {
  let firstAt = 0;
  // A run that may have placed an order (order place, order resume): where its order is, when it is ended unheard.
  const placing = args.includes('place') || args.includes('resume');
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      // conf's atomic writer (when-exit) re-raises the first signal at once: that echo is not the user pressing again.
      if (Date.now() - firstAt < 500) return;
      io.errRaw(`\n${signal} again: exiting now\n`);
      process.exit(ExitCode.interrupted);
    }
    firstAt = Date.now();
    controller.abort(new InterruptedError(`interrupted by ${signal}`));
    // A verb that does not stop promptly is ended; the journal is already on disk. Said, as every interruption is:
    // ended unheard, a held request or a slow disk left exit 130 and not a word of the order (an adversarial review).
    setTimeout(() => {
      printError(io, {
        code: 'interrupted',
        message: `interrupted by ${signal}; it had not stopped 5 s later, so it was ended there`,
        hint: placing
          ? pinnedHint('an order it was placing is kept: see giftcodes order pending', {
              configDir: io.env.GIFTCODES_CONFIG_DIR,
            })
          : undefined,
        exitCode: ExitCode.interrupted,
      });
      process.exit(ExitCode.interrupted);
    }, 5_000).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A terminal closed or an SSH session dropped: the same interruption. Unhandled, the run died with exit 129, no
  // error line, and a plan's readied rows were left "may have been charged" (review F5). Node resets an ignored
  // SIGHUP at start, so nohup never kept a run alive either way (docs/exit-codes.md).
  process.on('SIGHUP', onSignal);
}

/**
 * Commands whose stdout is a listing or a script, never an order's outcome: a reader that went away before the end
 * (`| head`) read what it wanted, exit 0 and quiet, as help is (docs/exit-codes.md). `completion zsh | head -1` and a
 * large `catalog list | head` said "could not write the output", exit 8, once their output outgrew the pipe's buffer
 * (a person's day). An order's outcome, and codes, never: a closed pipe is not their delivery.
 */
/** Commands that read no config directory, profile or key: where they run changes nothing of what a hint says. */
const PLACELESS = new Set(['completion', 'serve', 'help', 'version']);

const LISTINGS = new Set(['completion', 'catalog list', 'order list', 'order pending', 'config list', 'config show']);

function readerGoneFromListing(error: unknown, words: readonly string[]): boolean {
  return (
    isCliError(error) &&
    error.code === 'output_failed' &&
    (error.cause as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' &&
    (LISTINGS.has(words.slice(0, 2).join(' ')) || LISTINGS.has(words[0] ?? ''))
  );
}

/** GIFTCODES_PROFILE where it is a profile name (resolve.ts envProfile); one that is not is the run's error itself. */
async function namedProfile(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!env.GIFTCODES_PROFILE) return undefined;
  // Loaded on this error path only: a run that ends well never needs it here.
  const { envProfile } = await import('./config/resolve.js');
  try {
    return envProfile(env);
  } catch {
    return undefined;
  }
}

/** Waits for stdout to drain (pipes are asynchronous on some platforms), then exits. */
function exit(code: number): Promise<never> {
  return new Promise<never>(() => {
    process.stdout.write('', () => process.exit(code));
  });
}

/**
 * GIFTCODES_BASE_URL where it is an http(s) URL, for the `order place` of a hint (pinned-hint.ts). One that is no URL
 * is the run's error itself, and no hint names it.
 */
function envBaseUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.GIFTCODES_BASE_URL?.trim();
  if (!value) return undefined;
  try {
    return /^https?:$/.test(new URL(value).protocol) ? value : undefined;
  } catch {
    return undefined;
  }
}
