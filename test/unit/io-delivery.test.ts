import { Writable, PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExitCode, LocalError } from '../../src/errors.js';
import { Io } from '../../src/output/io.js';

function ioOver(stdout: Writable): Io {
  return new Io({
    stdin: new PassThrough(),
    stdout,
    stderr: new PassThrough(),
    env: {},
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
}

function failingStdout(code: string): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error(code), { code }));
    },
  });
}

describe('Io.flushOut: stdout delivery is a fact', () => {
  it('resolves once every write reached a stdout that accepted it', async () => {
    const chunks: string[] = [];
    const io = ioOver(
      new Writable({
        write: (chunk, _e, callback) => {
          chunks.push(String(chunk));
          setImmediate(callback);
        },
      }),
    );
    io.outJson({ id: 'ord_1' });
    io.out('done');
    await expect(io.flushOut()).resolves.toBeUndefined();
    expect(chunks.join('')).toBe('{\n  "id": "ord_1"\n}\ndone\n');
  });

  it.each([
    ['EPIPE', 'the reader closed the pipe'],
    ['ENOSPC', 'no space left on the device'],
    ['EBADF', 'EBADF'],
  ])('a write that failed with %s is exit 8 with the cause in the message', async (code, why) => {
    const io = ioOver(failingStdout(code));
    io.outJson({ id: 'ord_1' });
    const error = await io.flushOut().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LocalError);
    expect((error as LocalError).exitCode).toBe(ExitCode.local);
    expect((error as LocalError).message).toContain(why);
  });

  it('a stdout that throws on write is a failure too, not an internal error', async () => {
    const io = ioOver(
      new Writable({
        write() {
          throw Object.assign(new Error('closed'), { code: 'EBADF' });
        },
      }),
    );
    expect(() => io.out('x')).not.toThrow();
    await expect(io.flushOut()).rejects.toBeInstanceOf(LocalError);
  });
});
