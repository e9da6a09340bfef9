// What every verb's registration receives: the Io and a way to build its dependencies from the parsed flags.
import type { Command } from 'commander';
import { Factory, type GlobalOptions } from '../factory.js';
import type { Io } from '../output/io.js';

export interface App {
  readonly io: Io;
  readonly signal: AbortSignal;
  /** Builds the lazy factory from the command's flags and the global ones, and sets the output mode. */
  factory(command: Command): Factory;
  /** Closes what the factories opened (keep-alive sockets), so the process can end. */
  close(): Promise<void>;
}

export function createApp(io: Io, signal: AbortSignal): App {
  const factories: Factory[] = [];
  return {
    io,
    signal,
    factory(command) {
      const globals = command.optsWithGlobals<GlobalOptions>();
      io.setMode({ json: globals.json === true || globals.query !== undefined, quiet: globals.quiet === true, verbose: globals.verbose === true, color: globals.color === false ? false : undefined });
      const factory = new Factory(io, globals, signal);
      factories.push(factory);
      return factory;
    },
    async close() {
      await Promise.all(factories.map((factory) => factory.close()));
    },
  };
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
