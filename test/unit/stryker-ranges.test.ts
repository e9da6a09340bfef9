// npm run mutation mutates parts of some files by line range (stryker.config.json); a range that drifted as its
// file moved mutates the wrong code and leaves the named code untested, silently (found 2026-11-30: five of
// seven ranges had moved). Each range must start at the code it names and end at a closing brace.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/e2e.js';

/** What each ranged file's ranges start with, in the order stryker.config.json lists them. */
const STARTS: Record<string, RegExp[]> = {
  'src/output/io.ts': [/^ {2}out\(text: string\)/, /^export function stdoutFailed\(/],
  'src/export/write.ts': [/await pump\(o, writer, undefined/, /^async function commit\(/],
  'src/api/client.ts': [/^ {2}async send\(/],
  'src/api/transport.ts': [/^ {2}async requestWhole\(/],
};

describe('the mutation ranges of stryker.config.json', () => {
  it('each starts at the code it names and ends at a closing brace', () => {
    const config = JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as { mutate: string[] };
    const ranged = config.mutate.filter((entry) => /:\d+-\d+$/.test(entry));
    const seen: Record<string, number> = {};
    for (const entry of ranged) {
      const [, file, from, to] = /^(.+):(\d+)-(\d+)$/.exec(entry)!;
      const lines = readFileSync(join(ROOT, file!), 'utf8').split('\n');
      const index = (seen[file!] = (seen[file!] ?? -1) + 1);
      const start = STARTS[file!]?.[index];
      expect(start, `${entry}: a range this test does not know`).toBeDefined();
      expect(lines[Number(from) - 1], entry).toMatch(start!);
      expect(lines[Number(to) - 1], entry).toMatch(/^\s*}\s*$/);
    }
    expect(ranged).toHaveLength(Object.values(STARTS).flat().length);
  });
});
