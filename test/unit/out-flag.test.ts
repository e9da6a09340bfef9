// Every verb's --out is checked where it is parsed (exit 2, before anything is sent): an empty one named the
// current directory, and `order place --out ""` was refused as a directory (exit 8) only after the order was sent.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandTree } from '../helpers/program.js';

const VERBS = [
  ['codes', 'get'],
  ['codes', 'decrypt'],
  ['order', 'watch'],
  ['order', 'place'],
] as const;

/** The --out option's parser of `giftcodes <noun> <verb>`, as the CLI builds it. */
function parseOut(words: readonly string[]): (value: string) => unknown {
  let command: Command | undefined = commandTree([...words]);
  for (const word of words) command = command?.commands.find((sub) => sub.name() === word);
  const out = command?.options.find((option) => option.long === '--out');
  if (out?.parseArg === undefined) throw new Error(`${words.join(' ')} has no parsed --out`);
  const parse = out.parseArg;
  return (value) => parse(value, undefined);
}

describe('--out', () => {
  it.each(VERBS)('%s %s refuses an empty file name', (...words) => {
    const parse = parseOut(words);
    expect(() => parse('')).toThrow(/must not be empty/);
    expect(() => parse('  ')).toThrow(/must not be empty/);
    expect(parse('codes.csv')).toBe('codes.csv');
    expect(parse('-')).toBe('-');
  });

  it.each(VERBS)('%s %s refuses a name with a control character, shown escaped', (...words) => {
    const parse = parseOut(words);
    expect(() => parse('a\nb.csv')).toThrow('the file name "a\\nb.csv" holds a control character');
    expect(() => parse('a\u007fb.csv')).toThrow(/control character/);
  });
});
