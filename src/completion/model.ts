// The command tree as plain data for the script renderers: one walk of commander, so a new verb
// completes the day it is registered. Value rules live here, in one table, and never call the network.
import type { Argument, Command, Option } from 'commander';
import { EXPORT_FORMATS } from '../export/format.js';
import { hintsOf } from './hints.js';
import { helpTopicNames } from '../commands/help.js';
import type { DynamicSource } from './names.js';

/** What completes a value: fixed words, file paths, a dynamic source read from the config dir, or nothing. */
export type ValueSource =
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'files' }
  | { kind: 'dynamic'; source: DynamicSource }
  | { kind: 'none' };

export interface FlagSpec {
  /** `--env`, `-q`: every spelling of the option. */
  names: readonly string[];
  description: string;
  /** Undefined for a boolean flag. */
  value?: ValueSource;
  /** Where the option is defined: a flag of an ancestor is accepted below it too (commander's default). */
  definedAt: string;
}

export interface CommandSpec {
  /** Words from the root, e.g. ['order', 'place']; [] for the program itself. */
  path: readonly string[];
  name: string;
  description: string;
  subcommands: readonly CommandSpec[];
  /** Every flag accepted here: the command's own and its ancestors'. */
  flags: readonly FlagSpec[];
  /** Positional arguments in order; the last repeats when variadic. */
  args: readonly ValueSource[];
  /** An argument completed by the word before it (config set's value by its field), where that word has a source. */
  argsByPrevious: readonly ArgByPrevious[];
  variadic: boolean;
}

export interface ArgByPrevious {
  index: number;
  previous: string;
  source: ValueSource;
}

const NONE: ValueSource = { kind: 'none' };
const FILES: ValueSource = { kind: 'files' };
const dynamic = (source: DynamicSource): ValueSource => ({ kind: 'dynamic', source });
const words = (list: readonly string[]): ValueSource => ({ kind: 'words', words: list });

/**
 * Conventions by name: an option's long name (`--product`, `--out`) or an argument's (`<ref>`, `<key>`). `key` is
 * the `<key>` argument of order resume and abandon, an idempotency key from the journal; no option is looked up by it.
 */
const BY_NAME: Readonly<Record<string, ValueSource>> = {
  profile: dynamic('profiles'),
  product: dynamic('products'),
  'product-id': dynamic('products'),
  // An order ref (order show/watch, codes get) from the local record; an intent key (order resume/abandon) from the journal.
  ref: dynamic('orders'),
  key: dynamic('intents'),
  'idempotency-key': dynamic('intents'),
  // The export formats' --format parses its value itself (aliases too): no choices to read, so the list.
  format: words(EXPORT_FORMATS),
  out: FILES,
  plan: FILES,
  seed: FILES,
  file: FILES,
  path: FILES,
  dir: FILES,
};

/**
 * Conventions by an option's placeholder (`--ca-file <path>`, `--identity <file>`): paths only. A placeholder
 * says what kind of value a flag takes, never where to find one: `<key>` is an idempotency key at
 * `--idempotency-key` and the API key at `--api-key`, a secret that is completed from nothing.
 */
const BY_PLACEHOLDER: Readonly<Record<string, ValueSource>> = {
  file: FILES,
  path: FILES,
  dir: FILES,
  // serve --tls-cert <pem>, --tls-key <pem>: PEM files.
  pem: FILES,
};

export function buildModel(program: Command): CommandSpec {
  return walk(program, [], []);
}

function walk(command: Command, path: readonly string[], inherited: readonly FlagSpec[]): CommandSpec {
  const help = command.createHelp();
  const visible = help.visibleOptions(command);
  const at = path.join(' ');
  const { flagWords = {} } = hintsOf(command);
  const own = visible.map((option) => hinted(flagSpec(option, at), flagWords, at));
  const ownNames = new Set(own.flatMap((flag) => flag.names));
  // A subcommand's own definition of a flag wins over an ancestor's.
  const flags = [
    ...inherited
      .filter((flag) => !flag.names.some((name) => ownNames.has(name)))
      .map((flag) => hinted(flag, flagWords, at)),
    ...own,
  ];
  // Below a command, its registered options still apply; its --help and --version are its own.
  const passedDown = flags.filter((flag) => !own.includes(flag) || isInherited(visible[own.indexOf(flag)]!, command));
  const children = help.visibleCommands(command);
  const commands = new Map(
    children
      .filter((child) => !isImplicitHelp(child, command))
      .map((child) => [child, walk(child, [...path, child.name()], passedDown)]),
  );
  const subcommands = children.map((child) => {
    const walked = commands.get(child);
    if (walked) return walked;
    // commander's implicit `help [command]`, which cli.ts lets name a command at any depth (`help order place`):
    // its words are those of its siblings and theirs, a tree of names.
    const helpPath = [...path, child.name()];
    return {
      ...namesOnly(child.name(), help.subcommandDescription(child), helpPath),
      flags: passedDown,
      subcommands: [
        ...[...commands.values()].map((sibling) => helpTree(sibling, helpPath)),
        // The topics that are not commands (`help exit-codes`), at the top only, as cli.ts reads them.
        ...(path.length === 0
          ? helpTopicNames().map((topic) => namesOnly(topic, `help topic: ${topic}`, [...helpPath, topic]))
          : []),
      ],
    } satisfies CommandSpec;
  });
  const args = command.registeredArguments.map(argumentSource);
  const { argWords } = hintsOf(command);
  const argsByPrevious = Object.entries(argWords?.byPrevious ?? {}).flatMap(([previous, list]) =>
    argWords && list ? [{ index: argWords.index, previous, source: words(list) }] : [],
  );
  return {
    path,
    name: command.name(),
    description: path.length === 0 ? command.description() : firstLine(command.summary() || command.description()),
    subcommands,
    flags,
    args,
    argsByPrevious,
    variadic: command.registeredArguments.at(-1)?.variadic === true,
  };
}

/**
 * A flag with the words a command says it takes (logout's --env: all too), as if defined there: the words
 * apply at that command and below it, and the definition's elsewhere.
 */
function hinted(flag: FlagSpec, flagWords: Readonly<Record<string, readonly string[]>>, at: string): FlagSpec {
  const list = flag.names.map((name) => flagWords[name]).find((found) => found !== undefined);
  return list && flag.value ? { ...flag, value: words(list), definedAt: at } : flag;
}

function isImplicitHelp(child: Command, parent: Command): boolean {
  return child.name() === 'help' && !parent.commands.includes(child);
}

/** A command as a word under help: its subcommands' words below it, and no flags or arguments of its own. */
function helpTree(spec: CommandSpec, helpPath: readonly string[]): CommandSpec {
  const path = [...helpPath, spec.name];
  return {
    ...namesOnly(spec.name, spec.description, path),
    subcommands: spec.subcommands.filter((sub) => sub.name !== 'help').map((sub) => helpTree(sub, path)),
  };
}

function namesOnly(name: string, description: string, path: readonly string[]): CommandSpec {
  return { path, name, description, subcommands: [], flags: [], args: [], argsByPrevious: [], variadic: false };
}

function isInherited(option: Option, command: Command): boolean {
  return command.options.includes(option) && option.long !== '--version';
}

function flagSpec(option: Option, definedAt: string): FlagSpec {
  const names = [option.long, option.short].filter((name): name is string => Boolean(name));
  const spec: FlagSpec = { names, description: firstLine(option.description), definedAt };
  if (option.required || option.optional) spec.value = optionSource(option);
  return spec;
}

function optionSource(option: Option): ValueSource {
  if (option.argChoices?.length) return words(option.argChoices);
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
  const listed = alternatives(placeholder);
  if (listed) return words(listed);
  const long = option.long?.replace(/^--/, '') ?? '';
  return BY_NAME[long] ?? BY_PLACEHOLDER[placeholder] ?? NONE;
}

function argumentSource(argument: Argument): ValueSource {
  if (argument.argChoices?.length) return words(argument.argChoices);
  // `.argument('<field>', 'base-url | default-env')`: a description that is only a list of words is the list.
  const listed = alternatives(argument.name()) ?? alternatives(argument.description.replace(/\s*\|\s*/g, '|'));
  if (listed) return words(listed);
  return BY_NAME[argument.name()] ?? NONE;
}

/**
 * Words a placeholder uses to name a kind of value (`--since <date|duration>`), never a value to type: such a list
 * offers nothing (TAB offered the words `date` and `duration`).
 */
const KINDS = new Set(['date', 'duration', 'time', 'n', 'number', 'seconds', 'ms', 'path', 'file', 'url', 'text']);

/** `test|live` → ['test', 'live']; anything that is not a plain list of words, or names kinds of value → undefined. */
function alternatives(text: string): string[] | undefined {
  if (!/^[\w.-]+(\|[\w.-]+)+$/.test(text)) return undefined;
  const listed = text.split('|');
  return listed.every((word) => KINDS.has(word)) ? undefined : listed;
}

function firstLine(text: string): string {
  return text.split('\n')[0]?.trim() ?? '';
}

/** Every command of the model, depth first, the program first. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.subcommands.flatMap(allCommands)];
}
