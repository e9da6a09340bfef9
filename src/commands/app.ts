// What every verb's registration receives: the Io and a way to build its dependencies from the parsed flags.
import type { Command } from 'commander';
import { Factory, type GlobalOptions } from '../factory.js';
import type { Io } from '../output/io.js';
import type { Deps } from './deps.js';

/** A run's resolved global flags, and the lazy dependencies built from them. */
export interface Context {
  readonly globals: GlobalOptions;
  /** The output mode: --json, or --query (which implies it). */
  readonly json: boolean;
  readonly deps: Deps;
}

export interface App {
  readonly io: Io;
  readonly signal: AbortSignal;
  /** Reads the command's flags and the global ones, sets the output mode, and builds the lazy dependencies. */
  context(command: Command): Context;
  /** Closes what the factories opened (keep-alive sockets), so the process can end. */
  close(): Promise<void>;
}

export function createApp(io: Io, signal: AbortSignal): App {
  const factories: Factory[] = [];
  return {
    io,
    signal,
    context(command) {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const json = globals.json === true || globals.query !== undefined;
      io.setMode({
        json,
        quiet: globals.quiet === true,
        verbose: globals.verbose === true,
        color: globals.color === false ? false : undefined,
      });
      const factory = new Factory(io, globals, signal);
      factories.push(factory);
      return { globals, json, deps: factory };
    },
    async close() {
      await Promise.all(factories.map((factory) => factory.close()));
    },
  };
}

/** What a verb shows in its noun's help: its one line, and the examples under its own. */
export interface VerbHelp {
  readonly description: string;
  readonly examples: readonly string[];
}

/**
 * Adds a verb without flags of its own: `action` runs it with the run's context and the verb's arguments,
 * which the caller adds to the returned command (each checked where it is parsed).
 */
export function addVerb(
  parent: Command,
  app: App,
  name: string,
  help: VerbHelp,
  action: (context: Context, ...args: string[]) => Promise<void>,
): Command {
  const command = parent.command(name).description(help.description);
  command.action(async () => action(app.context(command), ...(command.processedArgs as string[])));
  return examples(command, help.examples);
}

const EXAMPLES = new WeakMap<Command, readonly string[]>();

/** Adds an Examples section to a command's --help. */
export function examples(command: Command, lines: readonly string[]): Command {
  EXAMPLES.set(command, lines);
  return command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}

/** The examples given to a command, if any (a noun's help shows its verbs' first ones). */
export function examplesOf(command: Command): readonly string[] | undefined {
  return EXAMPLES.get(command);
}
