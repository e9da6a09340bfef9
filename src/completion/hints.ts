// What a command takes that commander does not hold, said where the command is registered, so that TAB offers
// what the command accepts (model.ts reads it). Tiny, so the command tree imports it without the renderers.
import type { Command } from 'commander';

export interface CompletionHints {
  /** Words a flag takes at this command instead of those of its definition: logout's --env takes all too. */
  readonly flagWords?: Readonly<Record<string, readonly string[]>>;
  /** Words of the argument at `index` by the word of the one before it: config set's value by its field. */
  readonly argWords?: {
    readonly index: number;
    readonly byPrevious: Readonly<Partial<Record<string, readonly string[]>>>;
  };
}

const HINTS = new WeakMap<Command, CompletionHints>();

/** Tells the completion model what `command` takes; returns the command, to chain. */
export function completionHints(command: Command, hints: CompletionHints): Command {
  HINTS.set(command, { ...HINTS.get(command), ...hints });
  return command;
}

export function hintsOf(command: Command): CompletionHints {
  return HINTS.get(command) ?? {};
}
