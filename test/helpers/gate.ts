// A gate for a failpoint's `wait:<file>` action (src/failpoints.ts): the CLI holds at the step until the test
// opens the gate (creates the file), so what the test does meanwhile may take as long as the machine needs.
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { tempDir } from './e2e.js';

export interface Gate {
  /** The GIFTCODES_FAILPOINTS entry that holds `point` until the gate opens. */
  at(point: string): string;
  /** Lets every process held at this gate go on (and any that reaches it later pass at once). */
  open(): void;
}

/** A closed gate; made inside a test, it opens when the test ends, so a failed test leaves no process held. */
export function gate(): Gate {
  const file = join(tempDir('giftcodes-gate-'), 'open');
  const open = (): void => writeFileSync(file, '');
  onTestFinished(open);
  return { at: (point) => `${point}=wait:${file}`, open };
}

/** Resolves when the process's stderr shows `text` (a failpoint's announcement: the process is at that step). */
export function stderrShows(proc: ChildProcess, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        proc.stderr?.off('data', onData);
        resolve();
      }
    };
    proc.stderr?.on('data', onData);
  });
}
