// `order abandon` whose printout fails (a full disk, a closed pipe): the abandon is durable already, so the
// error says it WAS abandoned and that there is nothing to run again (the repeat would say the key is unknown).
import { scopeOf } from '../../src/journal/history.js';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/order/abandon.js';
import { capturedIo, freshJournal, testOrderSpec } from '../helpers/inprocess.js';

describe('order abandon whose printout fails', () => {
  it('says the intent WAS abandoned, exit 8, and hints at nothing to run again', async () => {
    const journal = freshJournal();
    const { intent } = await journal.begin(testOrderSpec('http://127.0.0.1:9'));
    const full = new Writable({
      write(_chunk, _e, callback) {
        callback(Object.assign(new Error('no space'), { code: 'ENOSPC' }));
      },
    });
    const { io } = capturedIo({ stdout: full });
    const error = await run({ key: intent.key }, { io, journal: () => Promise.resolve(journal) }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ exitCode: 8, code: 'output_failed' });
    expect((error as Error).message).toBe(
      `${intent.key} WAS abandoned; only printing it failed: could not write the output to standard output (no space left on the device)`,
    );
    expect((error as { hint: string }).hint).toMatch(/^nothing to run again/);
    expect(journal.find(intent.key)).toBeUndefined();
    expect(journal.history.get(intent.key, scopeOf(intent))).toMatchObject({ outcome: 'abandoned' });
  });
});
