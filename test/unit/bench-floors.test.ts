// The bench's floors set llhttp's V8 flags after their imports (scripts/bench/llhttp-baseline.mjs). Set before them,
// as a module imported for its effect did (ES imports run before the importing module's body), every module of
// Node's that undici loads was compiled from source, Node's code cache of it refused for the changed flags: the
// bare GET floor ran 427–461 M instructions instead of 337–350 M, and `ping`'s ratio to it read 0.58× where it was
// ~0.8× (BENCHMARKS.md, issue 33). The flag-setting is a function each floor calls first in its body.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = join(import.meta.dirname, '..', '..', 'scripts', 'bench');
const floors = readdirSync(dir).filter(
  (name) => name.endsWith('.mjs') && readFileSync(join(dir, name), 'utf8').includes("from './llhttp-baseline.mjs'"),
);

describe('the floors keep llhttp at baseline without spoiling Node’s code cache', () => {
  it('llhttp-baseline.mjs sets no flag as it loads, only when its function is called', () => {
    const text = readFileSync(join(dir, 'llhttp-baseline.mjs'), 'utf8');
    const body = text.slice(0, text.indexOf('export function keepLlhttpAtBaseline'));
    expect(text).toContain('export function keepLlhttpAtBaseline');
    expect(body.replace(/^\s*\/\/.*$/gm, '')).not.toContain('setFlagsFromString(');
  });

  it('every floor that uses it calls it first after its imports', () => {
    expect(floors.length).toBeGreaterThanOrEqual(5);
    for (const name of floors) {
      const lines = readFileSync(join(dir, name), 'utf8').split('\n');
      const lastImport = lines.findLastIndex((line) => line.startsWith('import '));
      const firstStatement = lines.findIndex(
        (line, i) => i > lastImport && line.trim() !== '' && !line.trim().startsWith('//'),
      );
      expect(lines[firstStatement], name).toBe('keepLlhttpAtBaseline();');
      expect(
        lines.filter((line) => /^import '\.\/llhttp-baseline\.mjs';/.test(line)),
        name,
      ).toEqual([]);
    }
  });
});
