// The command tree as the CLI builds it, for the tests that read it (help, examples, the argument fuzz): built over
// an Io of empty streams that is no terminal, so nothing it could print reaches the test's output.
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli.js';
import { createApp } from '../../src/commands/app.js';
import { Io } from '../../src/output/io.js';

/** The whole tree (or, with `argv`, the branch the CLI builds for those words). */
export function commandTree(argv?: string[]): Command {
  const stream = (): PassThrough => new PassThrough();
  const io = new Io({
    stdin: stream(),
    stdout: stream(),
    stderr: stream(),
    env: {},
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  });
  return buildProgram(createApp(io, new AbortController().signal), argv);
}
