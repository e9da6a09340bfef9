// A command's one-line description says what it does, as gh's and git's do (`list …`, `show …`): `giftcodes order
// --help` listed `list  the local order record: …` and `pending  orders in the local journal …`, and `giftcodes
// --help` `status  every profile and key: …`, nouns a person had to turn into what the command would do.
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { commandTree } from '../helpers/program.js';

/** Every command of the tree with its path (`order list`). */
function commands(command: Command, path: string[] = []): [string, Command][] {
  return command.commands.flatMap((sub) => [
    [[...path, sub.name()].join(' '), sub] as [string, Command],
    ...commands(sub, [...path, sub.name()]),
  ]);
}

/** What a description may start with: an imperative verb of the command's own doing. */
const VERBS = new Set(
  'browse check decrypt fetch finish inspect list make place print read receive remove run show stop store wait write change'.split(
    ' ',
  ),
);

describe('command descriptions', () => {
  it('each begins with the verb of what the command does', () => {
    const tree = commandTree();
    const odd = commands(tree)
      .filter(([, command]) => command.name() !== 'help')
      .map(
        ([path, command]) =>
          [
            path,
            command
              .description()
              .split(' ')[0]!
              .replace(/[,:;]$/, ''),
          ] as const,
      )
      .filter(([, first]) => !VERBS.has(first));
    expect(odd).toEqual([]);
  });

  it('order list, order pending and status say they list and show', () => {
    const tree = commandTree();
    const of = (path: string): string =>
      commands(tree)
        .find(([p]) => p === path)![1]
        .description();
    expect(of('order list')).toMatch(/^list every order placed or tried from here \(the local order record\)/);
    expect(of('order pending')).toMatch(/^list the orders whose outcome never reached you/);
    expect(of('status')).toMatch(/^show every profile and key/);
    expect(of('order show')).toMatch(/and what this machine did with it/);
  });
});
