// `giftcodes <command> …` builds only that command's branch (registerCommands' `only`): the branch must be
// the same as in the whole tree, every top-level command must be reachable that way, and the command word
// must be found past the program's own options.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandWord } from '../../src/commands/index.js';
import { commandTree } from '../helpers/program.js';

const program = commandTree;

/** A command's whole shape: its name, arguments, options (flags, defaults) and sub-commands, recursively. */
function shape(command: Command): unknown {
  return {
    name: command.name(),
    aliases: command.aliases(),
    description: command.description(),
    arguments: command.registeredArguments.map(
      (argument) => `${argument.name()}:${argument.required}:${argument.variadic}`,
    ),
    options: command.options.map((option) => `${option.flags}=${JSON.stringify(option.defaultValue)}`),
    commands: command.commands.map(shape),
  };
}

const whole = program();
const topLevel = whole.commands
  .map((command) => command.name())
  .filter((name) => name !== 'help' && name !== '__complete');

describe('one branch of the command tree', () => {
  it('covers the tree: the top-level commands', () => {
    expect(topLevel).toEqual([
      'login',
      'logout',
      'config',
      'status',
      'ping',
      'doctor',
      'catalog',
      'order',
      'codes',
      'webhook',
      'serve',
      'completion',
      'version',
    ]);
  });

  it.each(topLevel.filter((name) => name !== 'completion'))(
    '`giftcodes %s …` builds that command alone, exactly as in the whole tree',
    (name) => {
      const branch = program(['node', 'giftcodes', '--profile', 'work', name, '--json']);
      const built = branch.commands.filter((command) => command.name() !== 'help' && command.name() !== '__complete');
      expect(built.map((command) => command.name())).toEqual([name]);
      expect(shape(built[0] as Command)).toEqual(
        shape(whole.commands.find((command) => command.name() === name) as Command),
      );
      expect(branch.options.map((option) => option.flags)).toEqual(whole.options.map((option) => option.flags));
    },
  );

  // completion's scripts are made from the whole tree (completion.test.ts compares them with completions/).
  it.each([
    [['help', 'order']],
    [['__complete', 'order', '']],
    [['completion', 'bash']],
    [['pign']],
    [[]],
    [['--', 'ping']],
    [['--json']],
  ])('builds the whole tree for %j', (args) => {
    expect(program(['node', 'giftcodes', ...args]).commands.map((command) => command.name())).toEqual(
      whole.commands.map((command) => command.name()),
    );
  });
});

describe('commandWord', () => {
  const options = whole;
  it.each([
    [['ping'], 'ping'],
    [['--profile', 'work', 'ping'], 'ping'],
    [['--profile=work', 'order', 'place'], 'order'],
    [['--profile', 'ping', 'catalog'], 'catalog'],
    [['-q', '-v', '--json', 'codes', 'get'], 'codes'],
    [['--env', 'live', '--request-timeout', '5', 'order'], 'order'],
    [['--query', 'status', 'ping'], 'ping'],
    [['--', 'ping'], undefined],
    [['--json'], undefined],
    [[], undefined],
  ])('%j names %s', (args, word) => {
    expect(commandWord(options, args)).toBe(word);
  });
});
