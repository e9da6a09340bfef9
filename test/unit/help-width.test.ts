// Every command's --help read in a terminal of 80 columns: no line past the edge. Examples of 85 to 136 columns
// (webhook listen's, doctor's, login's) and the program's one-line `Help topics:` (90) wrapped mid-command there.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { forEachCommand } from '../../src/commands/help.js';
import { commandTree } from '../helpers/program.js';

/** The help `command --help` prints, as commander writes it for a terminal of `width` columns. */
function helpAt(command: Command, width: number): string {
  let text = '';
  command.configureOutput({
    writeOut: (chunk: string) => (text += chunk),
    getOutHelpWidth: () => width,
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text;
}

function nameOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

describe('--help at 80 columns', () => {
  it('every command: no line longer than 80, examples included', () => {
    const program = commandTree();
    const commands: Command[] = [program];
    forEachCommand(program, (command) => commands.push(command));
    expect(commands.length).toBeGreaterThan(20);
    for (const command of commands)
      for (const line of helpAt(command, 80).split('\n'))
        expect(line.length, `${nameOf(command)} --help: ${line}`).toBeLessThanOrEqual(80);
  });

  it('the help topics wrap between commands, never inside one', () => {
    const topics = (width: number) => helpAt(commandTree(), width).split('\nHelp topics:')[1]!.split('\n\n')[0]!;
    expect(topics(80)).toBe(
      ' giftcodes help options, giftcodes help environment,\n             giftcodes help exit-codes',
    );
    expect(topics(120)).toBe(' giftcodes help options, giftcodes help environment, giftcodes help exit-codes');
  });
});
