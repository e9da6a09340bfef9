// A small file read where its absence is the usual answer: a plan's row looks for its record, its intent file
// and the lock's waiter, none of which is there. A failed readFileSync builds an Error with its stack, about
// four times the cost of asking first (issue 33: 6,000 such misses in a 1,000-row plan).
import { existsSync, readFileSync } from 'node:fs';

/** The file's text (or, asked for `bytes`, its bytes), or undefined when it is not there or cannot be read. */
export function readIfThere(file: string): string | undefined;
export function readIfThere(file: string, as: 'bytes'): Buffer | undefined;
export function readIfThere(file: string, as?: 'bytes'): string | Buffer | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return as === 'bytes' ? readFileSync(file) : readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
