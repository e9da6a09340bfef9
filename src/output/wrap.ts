// Our own lines (warnings, notices, errors and their hints on stderr; a sentence such as login's on stdout) broken at
// word boundaries to a terminal's width.
// The terminal broke them wherever the width ran out: `error: cannot reach http://127.0.0.1:4010 (GET /v1/ping:
// connection refused) aft` / `er 6 attempts` at 80 columns (a person's day). Only at a terminal: a pipe, a log and
// a cron mail keep one line per message, as scripts and `tail -n 2` read them.
import { stripVTControlCharacters } from 'node:util';
import { textWidth as plainWidth } from './width.js';

/** The columns a unit takes: its colours take none. */
const textWidth = (text: string): number => plainWidth(stripVTControlCharacters(text));

/** A token that starts a command a hint gives to copy: `giftcodes …`, or an environment assignment before it. */
const COMMAND_START = /^(?:[A-Z][A-Z0-9_]*=\S*|giftcodes)$/;

/**
 * The words of `text` in units that stay on one line: a word, or a command of ours (`giftcodes order resume 3f1c…`,
 * with the `GIFTCODES_CONFIG_DIR=…` before it) up to the word that ends its clause (`;`, `,`, `)`, `.`, `:`). A command
 * broken over two lines is pasted as two: the shell would run its first half.
 */
function unitsOf(text: string): { text: string; words?: string[] }[] {
  const words = text.split(' ');
  const units: { text: string; words?: string[] }[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const startsCommand =
      COMMAND_START.test(word) &&
      (word === 'giftcodes' || words.slice(i + 1).find((w) => !/^[A-Z][A-Z0-9_]*=\S*$/.test(w)) === 'giftcodes');
    if (!startsCommand) {
      units.push({ text: word });
      continue;
    }
    let end = i;
    while (end + 1 < words.length && !/[;,).:]$/.test(words[end]!) && !words[end + 1]!.startsWith('(')) end++;
    units.push({ text: words.slice(i, end + 1).join(' '), words: words.slice(i, end + 1) });
    i = end;
  }
  return units;
}

/**
 * How far a line of ours for stderr continues when broken: under its first word after a `✓ ` or `✗ ` mark (2), as a
 * `warning: ` continues under its first word; else at the margin. `✓ wrote 50,000 codes of … to /tmp/…/again.csv`
 * went on with `(csv, 0600)` at column 0 at 80 columns, under the mark (a person's day).
 */
export function markIndent(text: string): number {
  return /^[✓✗] /.test(stripVTControlCharacters(text.slice(0, 24))) ? 2 : 0;
}

/** The spaces a line starts with. */
function leading(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * `text` (one line, no escapes) broken into lines of at most `width` columns at its spaces: the first line has
 * `first` columns fewer (the `hint: ` before it), the others start with `indent` spaces. A command is kept on one
 * line where it fits one, else broken as a shell continues a line (` \`); a word wider than a line (a long path) is
 * left for the terminal to fold. A text that fits is returned as it is.
 */
export function wrapWords(text: string, width: number, first = 0, indent = 0): string {
  if (text.includes('\n')) {
    // A message of several lines: each is broken on its own, its continuations under its own first word.
    return text
      .split('\n')
      .map((line, i) => (i === 0 ? wrapWords(line, width, first, indent) : wrapWords(line, width, 0, leading(line))))
      .join('\n');
  }
  if (first + textWidth(text) <= width) return text;
  const lines: string[] = [];
  let line: string | undefined;
  let room = width - first;
  const add = (unit: string): void => {
    if (line === undefined) line = unit;
    else if (textWidth(line) + 1 + textWidth(unit) <= room) line += ` ${unit}`;
    else {
      lines.push(line.trimEnd());
      // The spaces a line was broken at are not carried to the next one.
      line = unit === '' ? undefined : unit;
      room = width - indent;
    }
  };
  for (const unit of unitsOf(text)) {
    if (!unit.words || textWidth(unit.text) <= width - indent) {
      add(unit.text);
      continue;
    }
    // A command wider than a line: broken at its spaces as a shell reads it on, each line but its last ending in
    // ` \` (pasted whole, it is still one command), begun on a line of its own.
    if (line !== undefined) {
      lines.push(line.trimEnd());
      line = undefined;
      room = width - indent;
    }
    for (const word of unit.words) {
      if (line !== undefined && textWidth(line) + 1 + textWidth(word) + 2 > room) {
        lines.push(`${line} \\`);
        line = undefined;
        room = width - indent;
      }
      line = line === undefined ? word : `${line} ${word}`;
    }
  }
  if (line !== undefined) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`)).join('\n');
}
