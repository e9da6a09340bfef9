// Journal.find reads the intent files not at their key's own name (a person's copies) once for each listing of the
// journal, not once a key: a plan run after a few killed runs, their intents left as files, took 5 s before its
// first row, every file read for every row (a person's day).
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { renameSync, writeFileSync } from 'node:fs';
import { sha256 } from '../../src/journal/intent.js';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { letGoOfKept } from '../../src/journal/lock.js';
import { currentOwner } from '../../src/journal/owner.js';
import { deadPid } from '../helpers/e2e.js';
import { journal, spec } from '../helpers/journal.js';

const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');
const original = fs.readFileSync;
afterEach(() => {
  fs.readFileSync = original;
  syncBuiltinESMExports();
});

/** How many files under `dir` fn reads. */
function readsIn(dir: string, fn: () => void): number {
  let reads = 0;
  fs.readFileSync = ((...args: Parameters<typeof original>) => {
    if (String(args[0]).startsWith(dir)) reads++;
    return original(...args);
  }) as typeof original;
  syncBuiltinESMExports();
  try {
    fn();
  } finally {
    fs.readFileSync = original;
    syncBuiltinESMExports();
  }
  return reads;
}

describe('Journal.find and the intent files of other keys', () => {
  it('reads them once for the keys looked up from one listing, and still finds a copy made by hand', async () => {
    const j = journal();
    const dead = { pid: deadPid(), boot: currentOwner().boot };
    for (let i = 0; i < 30; i++) {
      const { intent } = await j.begin({ ...spec, key: `row-${i}` });
      writeFileSync(join(j.dir, `copy-${i}.json`), JSON.stringify({ ...intent, key: `hand-${i}`, owner: dead }));
    }
    letGoOfKept();
    const missing = Array.from({ length: 20 }, (_, i) => `absent-${i}`);
    const reads = readsIn(j.dir, () => j.sameListing(() => missing.forEach((key) => j.find(key))));
    // Each absent key's own file is asked for (not there: not read); the 60 files once in all, not 20 times.
    expect(reads).toBeLessThanOrEqual(60 + 5);
    expect(reads).toBeGreaterThanOrEqual(30);
    expect(j.find('hand-7')?.key).toBe('hand-7');
    // A copy made since is found: the listing changed.
    const { intent } = await j.begin({ ...spec, key: 'row-x' });
    letGoOfKept();
    writeFileSync(join(j.dir, 'later.json'), JSON.stringify({ ...intent, key: 'hand-later', owner: dead }));
    expect(j.find('hand-later')?.key).toBe('hand-later');
    // A listing of as many names, one of them another: read again (a copy renamed and given another key by hand).
    letGoOfKept();
    renameSync(join(j.dir, 'copy-0.json'), join(j.dir, 'renamed-0.json'));
    writeFileSync(join(j.dir, 'renamed-0.json'), JSON.stringify({ ...intent, key: 'hand-renamed', owner: dead }));
    expect(j.find('hand-renamed')?.key).toBe('hand-renamed');
    expect(j.find('hand-0')).toBeUndefined();
    // A copy written again in place, under the same name: read again (a review).
    writeFileSync(join(j.dir, 'renamed-0.json'), JSON.stringify({ ...intent, key: 'hand-again', owner: dead }));
    expect(j.find('hand-again')?.key).toBe('hand-again');
    // A file at its key's own name, moved by hand under another name, as many names as before: found there (the
    // listing's names changed, though no file it kept did).
    const ownName = `${sha256('hand-own').slice(0, 40)}.json`;
    writeFileSync(join(j.dir, ownName), JSON.stringify({ ...intent, key: 'hand-own', owner: dead }));
    expect(j.find('hand-own')?.key).toBe('hand-own');
    expect(j.find('absent-again')).toBeUndefined();
    renameSync(join(j.dir, ownName), join(j.dir, 'moved-own.json'));
    expect(j.find('hand-own')?.key).toBe('hand-own');
    // One read half-copied (not an intent), then whole: found once whole.
    writeFileSync(join(j.dir, 'copy-1.json'), '{"key":');
    expect(j.find('hand-half')).toBeUndefined();
    writeFileSync(join(j.dir, 'copy-1.json'), JSON.stringify({ ...intent, key: 'hand-half', owner: dead }));
    expect(j.find('hand-half')?.key).toBe('hand-half');
  });
});
