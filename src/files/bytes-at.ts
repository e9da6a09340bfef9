// Reading part of an open file by position, and a file that only grows read on from where a process stopped
// (the journal's logs, journal/log.ts readLog; the history's line files, journal/history.ts mayName).
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

/** Where a process stopped reading a file that only grows: the file, how far (just after a newline), the bytes before. */
export interface ReadPoint {
  dev: number;
  ino: number;
  offset: number;
  /** The last bytes before `offset` (READ_ON_TAIL at most), checked again before reading on. */
  tail: Buffer;
}

const READ_ON_TAIL = 4096;

/**
 * Whether the open file (`now`: its fstat) is the one `point` was read from and has only grown since: the same file
 * at its name, not shorter than the point, and the bytes just before the point as they were. Otherwise it is read
 * again from its start (another file renamed over it, one cut back after a failed fsync, one rewritten in place).
 */
export function onlyGrew(fd: number, point: ReadPoint, now: { dev: number; ino: number; size: number }): boolean {
  return (
    point.dev === now.dev &&
    point.ino === now.ino &&
    now.size >= point.offset &&
    bytesAt(fd, point.offset - point.tail.length, point.tail.length).equals(point.tail)
  );
}

/**
 * The bytes of the open file from `point` up to `size`, and `end`: how many of them are whole lines (up to and with
 * the last newline). The point moves past those lines; what follows the last newline (a line being written, or cut
 * short) is read again next time. The tail kept is a copy: the bytes read are not held.
 */
export function readOn(fd: number, point: ReadPoint, size: number): { bytes: Buffer; end: number } {
  const bytes = bytesAt(fd, point.offset, size - point.offset);
  const end = bytes.lastIndexOf(0x0a) + 1;
  point.tail =
    end >= READ_ON_TAIL
      ? Buffer.from(bytes.subarray(end - READ_ON_TAIL, end))
      : Buffer.concat([point.tail, bytes.subarray(0, end)]).subarray(-READ_ON_TAIL);
  point.offset += end;
  return { bytes, end };
}

/** Each line of `bytes` from `from` to `to` (the last one also without its newline), by where it begins and ends; none empty. */
export function eachLine(bytes: Buffer, from: number, to: number, each: (start: number, end: number) => void): void {
  for (let start = from; start < to;) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0 || end > to) end = to;
    if (end > start) each(start, end);
    start = end + 1;
  }
}
