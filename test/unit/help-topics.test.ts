// The help topics laid out for the width they are read at. Hard-wrapped for 100 columns, `help exit-codes` and
// `help environment` broke mid-word in a terminal of 80 (a review in tmux: "environm / ent mismatch").
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helpTopic } from '../../src/commands/help.js';
import { ENVIRONMENT_VARIABLES } from '../../src/commands/environment.js';

/** The topic's text with its layout undone: every run of spaces and line breaks one space. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

describe('help topics', () => {
  for (const width of [60, 80, 120]) {
    it(`fit ${width} columns, every meaning whole (words never split)`, () => {
      for (const name of ['exit-codes', 'environment']) {
        const text = helpTopic(name, width)!;
        for (const line of text.split('\n')) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(width);
        if (name === 'environment')
          for (const { names, meaning } of ENVIRONMENT_VARIABLES) {
            expect(text).toContain(`  ${names.join(', ')}`);
            expect(flat(text)).toContain(flat(meaning));
          }
      }
      expect(flat(helpTopic('exit-codes', width)!)).toContain(
        '3 authentication or configuration: no key, key rejected (401/403), environment mismatch, plain http to a non-loopback host with a key',
      );
    });
  }

  it('a meaning lines up under the first one, past the term', () => {
    const lines = helpTopic('exit-codes', 80)!.split('\n');
    const three = lines.findIndex((line) => line.startsWith('  3    authentication'));
    expect(three).toBeGreaterThan(0);
    expect(lines[three + 1]).toMatch(/^ {7}\S/);
  });

  it('is undefined for a name that is no topic', () => {
    expect(helpTopic('nope', 80)).toBeUndefined();
    expect(helpTopic('toString', 80)).toBeUndefined();
  });
});

describe('help exit-codes and docs/exit-codes.md', () => {
  // They had told two halves of exit 8: the help "a config directory others can write", the docs "a config
  // directory that is a file" (a usability review). Both are exit 8, and both say both.
  it('say the same of exit 8, every cause of it', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../../docs/exit-codes.md'), 'utf8');
    const row = /^\| 8 \| (.+) \|$/m.exec(docs)?.[1];
    const help = /^ {2}8 +(.+(?:\n {4,}.+)*)/m.exec(helpTopic('exit-codes', 120)!)?.[1];
    expect(row?.replaceAll('`', '')).toBe(flat(help ?? ''));
    expect(flat(help ?? '')).toContain('a directory where a file should be, a config directory that is a file');
    expect(flat(help ?? '')).toContain('writable by others');
  });
});
