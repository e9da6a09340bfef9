// Stoplight Prism's validation proxy in front of a server: every request and response is checked against
// openapi.yaml. With --errors Prism answers a violation itself (422 for a request, 500 VIOLATIONS for a
// response), sets an `sl-violations` header, and logs it; `problems()` returns what it logged since a mark.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './e2e.js';
import { freePort } from './ports.js';

const PRISM = join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
const OPENAPI = join(ROOT, 'openapi.yaml');

export interface PrismProxy {
  url: string;
  /** Everything Prism printed, for a failing test's message. */
  log(): string;
  /** Where the log stands now; pass it to problems() to see only what came after. */
  mark(): number;
  /** Log lines since `mark` that report a violation, a warning or an error of Prism's. */
  problems(mark: number): string[];
  /** Lines since `mark` that show a request forwarded upstream (proof the traffic went through Prism). */
  forwarded(mark: number): string[];
  stop(): Promise<void>;
}

/** Starts `prism proxy openapi.yaml <upstream> --errors` on a free loopback port and waits until it listens. */
export async function startPrism(upstream: string, timeoutMs = 120_000): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [PRISM, 'proxy', OPENAPI, upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`prism did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = setInterval(() => {
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        clearInterval(check);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearTimeout(timer);
      clearInterval(check);
      reject(new Error(`prism exited ${code}:\n${output}`));
    });
  });
  const lines = (mark: number) => output.slice(mark).split('\n');
  return {
    url,
    log: () => output,
    mark: () => output.length,
    // Prism prints "✖  error" and "⚠  warning" lines, and "Violation: <where> <what>" for each finding.
    problems: (mark) => lines(mark).filter((line) => /✖|⚠|\berror\b|\bwarn(ing)?\b|Violation/i.test(line)),
    forwarded: (mark) => lines(mark).filter((line) => line.includes('Forwarding')),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
