// What --help looks like everywhere: no "(default: false)" noise, a help command that says what it
// does, and an Examples section on every command (a noun shows its verbs' first examples).
import { Help, type Command, type HelpConfiguration } from 'commander';
import { examples, examplesOf } from './app.js';

/** Given to the program before any command is added: commander copies it to each subcommand. */
export const helpConfiguration: HelpConfiguration = {
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

/** Run after every command is registered. */
export function finishHelp(program: Command): void {
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
