// Every `--query` expression this project shows a person (a command's examples in its help, README and docs/)
// must compile: support staff copy them as they are. support-desk.md's and `order list`'s example once wrote a
// JMESPath literal without JSON quotes (`delivered` in backticks), which the parser refuses (exit 2, bad_query).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { examplesOf } from '../../src/commands/app.js';
import { forEachCommand } from '../../src/commands/help.js';
import { compileQuery } from '../../src/output/exporter.js';
import { ROOT } from '../helpers/e2e.js';
import { commandTree } from '../helpers/program.js';

/** The expressions of `--query '…'` and `--query "…"` (shell quotes; in double quotes, no `$` or backtick) in a text. */
function queries(text: string): string[] {
  return [...text.matchAll(/--query (?:'([^']*)'|"([^"$`\\]*)")/g)].map((match) => match[1] ?? match[2]!);
}

function helpExamples(): string[] {
  const lines: string[] = [];
  forEachCommand(commandTree(), (command) => lines.push(...(examplesOf(command) ?? [])));
  return lines;
}

function documents(): { file: string; text: string }[] {
  const docs = readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
}

describe('--query examples', () => {
  it('every example in the commands’ help compiles', async () => {
    const found = helpExamples().flatMap(queries);
    expect(found.length).toBeGreaterThan(0);
    for (const expression of found) await expect(compileQuery(expression), expression).resolves.toBeDefined();
  });

  it('every example in README.md and docs/ compiles', async () => {
    const found = documents().flatMap(({ file, text }) => queries(text).map((expression) => ({ file, expression })));
    expect(found.length).toBeGreaterThan(3);
    for (const { file, expression } of found)
      await expect(compileQuery(expression), `${file}: ${expression}`).resolves.toBeDefined();
  });
});
