import { Argument, type Command } from 'commander';
import { DYNAMIC_SOURCES, SHELLS, type DynamicSource, type Shell } from '../completion/names.js';
import { UsageError } from '../errors.js';
import { examples, type App } from './app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    // The choices are kept for help and for completing `completion <TAB>`; shellName refuses in words of its own.
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS).argParser(shellName))
    .action(async (shell: Shell, _flags: object, cmd: Command) => {
      // --json promises one JSON document on stdout, and a script is none.
      const { json, query } = cmd.optsWithGlobals<{ json?: boolean; query?: string }>();
      if (json || query !== undefined)
        throw new UsageError('completion prints a shell script, not JSON', {
          hint: `leave out --json: giftcodes completion ${shell}`,
        });
      const { completionScript } = await import('../completion/index.js');
      app.io.out(completionScript(shell, root(cmd)));
    });
  examples(command, [
    'source <(giftcodes completion bash)',
    'giftcodes completion zsh > ~/.zfunc/_giftcodes   # a directory on $fpath',
    'giftcodes completion fish > ~/.config/fish/completions/giftcodes.fish',
  ]);

  // What the scripts call on TAB for values that live in the user's files; hidden from help.
  parent
    .command('__complete', { hidden: true })
    .description('print completion values from local files (profiles, cached product ids)')
    .addArgument(new Argument('<source>').choices(DYNAMIC_SOURCES))
    // The command line being completed, after `--` (its flags are not this command's): whose values to offer.
    .addArgument(new Argument('[words...]'))
    .action(async (source: DynamicSource, words: string[]) => {
      const { dynamicValues } = await import('../completion/dynamic.js');
      const values = await dynamicValues(source, app.io.env, words);
      if (values.length > 0) app.io.out(values.join('\n'));
    });
}

/**
 * A shell there is a script for; any other is refused (exit 2) naming those there are, rather than in commander's
 * `command-argument value 'tcsh' is invalid for argument 'shell'`.
 */
function shellName(value: string): Shell {
  const shell = SHELLS.find((s) => s === value);
  if (shell) return shell;
  const names = `${SHELLS.slice(0, -1).join(', ')} and ${SHELLS[SHELLS.length - 1]}`;
  throw new UsageError(`no completion script for "${value}": giftcodes has them for ${names}`, {
    code: 'unknown_shell',
    hint: `name one of them, e.g. giftcodes completion ${SHELLS[0]}`,
  });
}

function root(command: Command): Command {
  let current = command;
  while (current.parent) current = current.parent;
  return current;
}
