// Reading part of an open file by position: how a file that only grows is read on from where a process stopped
// (the journal's logs, journal/log.ts readLog; the history's line files, journal/history.ts).
import { readSync } from 'node:fs';

/**
 * Up to `length` bytes of the open file from `position` (fewer where the file ends first), read into `into` when
 * it is given (a buffer kept for many reads: at least `length` long), else into a new buffer.
 */
export function bytesAt(fd: number, position: number, length: number, into?: Buffer): Buffer {
  // Unfilled: only the bytes read are given back.
  const bytes = into ?? Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, bytes, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return bytes.subarray(0, got);
}
