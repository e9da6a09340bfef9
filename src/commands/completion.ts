import { Argument, type Command } from 'commander';
import { DYNAMIC_SOURCES, SHELLS, type DynamicSource, type Shell } from '../completion/names.js';
import { examples, type App } from './app.js';

export function register(parent: Command, app: App): void {
  const command = parent
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action(async (shell: Shell, _flags: object, cmd: Command) => {
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
    .action(async (source: DynamicSource) => {
      const { dynamicValues } = await import('../completion/dynamic.js');
      const values = dynamicValues(source, app.io.env);
      if (values.length > 0) app.io.out(values.join('\n'));
    });
}

function root(command: Command): Command {
  let current = command;
  while (current.parent) current = current.parent;
  return current;
}
